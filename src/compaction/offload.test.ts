import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import type { Message } from '../message/message.js';
import { estimate } from '../tokens/estimate.js';
import { offload } from './offload.js';

const counter = estimate;
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

describe('offload', () => {
  it('hands the dropped messages to the archive, awaited, before dropping them', async () => {
    const archived: string[][] = [];
    let settled = false;
    const archive = {
      async archive(messages: readonly Message[]): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 5));
        archived.push(ids(messages));
        settled = true;
      },
    };
    const messages = conversation([{ tools: [1] }, { system: true }, {}]);
    const result = await offload({ archive, turns: 1 }).compact({ messages, counter });
    expect(settled).toBe(true);
    expectInvariants(messages, messages.slice(), result, counter);
    expect(archived).toEqual([['t0-1', 't0-2', 't0-3', 't0-4', 't1-1', 't1-3']]);
    expect(ids(result.messages)).toEqual(['sys', 't1-2', 't2-1', 't2-2']);
  });

  it('keeps the history unchanged when the archive fails', async () => {
    const cause = new Error('vector store unreachable');
    const messages = conversation([{}, {}]);
    const result = await offload({ archive: { archive: () => Promise.reject(cause) }, turns: 1 }).compact({
      messages,
      counter,
    });
    expect(result.messages).toBe(messages);
    expect(result.compacted).toBe(false);
    expect(result.error?.code).toBe('ARCHIVE_FAILED');
    expect(result.error?.cause).toBe(cause);
  });

  it('requires an archive and a positive number of turns', () => {
    expect(() => offload({ turns: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'MISSING_COLLABORATOR', message: expect.stringContaining('archive') }),
    );
    expect(() => offload({ archive: {}, turns: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => offload({ archive: { archive: () => undefined }, turns: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('offload with a hostile archive (review regression)', () => {
  it('reports an archive that throws a value String() cannot convert', async () => {
    const messages = conversation([{}, {}, {}]);
    const archive = {
      archive: (): void => {
        throw Object.create(null) as unknown;
      },
    };
    const result = await offload({ archive, turns: 1 }).compact({ messages, counter: estimate });
    expect(result.error?.code).toBe('ARCHIVE_FAILED');
    expect(result.messages).toBe(messages);
  });
});
