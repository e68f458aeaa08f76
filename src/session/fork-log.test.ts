import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../message/schema.js';
import { FORKS_KEY, MAX_FORK_ENTRIES, forkLog, withForkEntry } from './fork-log.js';

const at = '2026-01-01T00:00:00.000Z';

describe('the fork log', () => {
  it('adds an entry once: recording the same fork again replaces it at the end', () => {
    let metadata = withForkEntry({ title: 't' }, { sessionId: 'a', messageId: 'm1', seq: 1, createdAt: at });
    metadata = withForkEntry(metadata, { sessionId: 'b', createdAt: at });
    metadata = withForkEntry(metadata, { sessionId: 'a', messageId: 'm1', seq: 1, createdAt: at });
    expect(metadata.title).toBe('t');
    expect(forkLog(metadata)).toEqual([
      { sessionId: 'b', createdAt: at },
      { sessionId: 'a', messageId: 'm1', seq: 1, createdAt: at },
    ]);
  });

  it(`keeps the newest ${MAX_FORK_ENTRIES}`, () => {
    let metadata = {};
    for (let i = 0; i <= MAX_FORK_ENTRIES; i++)
      metadata = withForkEntry(metadata, { sessionId: `f${i}`, createdAt: at });
    const ids = forkLog(metadata).map((entry) => entry.sessionId);
    expect([ids.length, ids[0], ids.at(-1)]).toEqual([MAX_FORK_ENTRIES, 'f1', `f${MAX_FORK_ENTRIES}`]);
  });

  it("reads past what is not an entry (metadata is anyone's to write)", () => {
    const metadata: JsonObject = {
      [FORKS_KEY]: [null, 'x', { sessionId: 1, createdAt: at }, { sessionId: 'ok', createdAt: at, seq: -1 }],
    };
    expect(forkLog(metadata)).toEqual([{ sessionId: 'ok', createdAt: at }]);
    expect(forkLog({ [FORKS_KEY]: 'nope' })).toEqual([]);
  });
});
