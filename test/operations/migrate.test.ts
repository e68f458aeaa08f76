import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { compareStores, migrateSessions } from '../../src/operations/index.js';
import { mapOrdered } from '../../src/operations/pool.js';
import { cleanup, collect, fill, newStore } from './helpers.js';

afterEach(cleanup);

describe('migrateSessions', () => {
  it('copies sessions with every scope of values, and a second run copies nothing', async () => {
    const source = await newStore('file');
    const target = await newStore('sqlite');
    try {
      await fill(source, 6, 7);
      const first = await migrateSessions(source, target, { verify: true, concurrency: 3 });
      expect(first).toMatchObject({ sessions: 6, created: 6, unchanged: 0, conflicts: [], problems: [] });
      expect(first.verify).toMatchObject({ compared: 6, equal: true, differences: [] });
      expect(await target.values.getAll({ scope: 'app' })).toEqual({ motd: 'hello' });
      expect(await target.values.getAll({ scope: 'agent', agentId: 'helper', userId: 'user-1' })).toEqual({
        style: 'terse',
      });
      const second = await migrateSessions(source, target);
      expect(second).toMatchObject({ sessions: 6, created: 0, unchanged: 6 });
    } finally {
      await source.close();
      await target.close();
    }
  });

  it('lists a target session that differs as a conflict, replaces it when asked, and verify names differences', async () => {
    const source = await newStore('memory');
    const target = await newStore('memory');
    try {
      await fill(source, 3);
      await migrateSessions(source, target);
      const copy = await target.load('s-0002');
      await target.save(copy.append(Message.user('only in the target')), { expectedVersion: copy.version });
      await target.values.set({ scope: 'user', userId: 'user-0' }, { name: 'Renamed' });
      const compared = await compareStores(source, target);
      expect(compared.equal).toBe(false);
      expect(compared.differences.map((each) => [each.sessionId, each.kind, each.message])).toEqual(
        expect.arrayContaining([
          ['s-0002', 'different', 'differs in session'],
          ['s-0000', 'different', 'differs in user values'],
        ]),
      );
      const refused = await migrateSessions(source, target);
      expect(refused.conflicts.map((each) => each.sessionId).sort()).toEqual(['s-0000', 's-0002']);
      expect(refused.conflicts.find((each) => each.sessionId === 's-0000')?.message).toMatch(/user\.name/);
      const replaced = await migrateSessions(source, target, { mode: 'replace', verify: true });
      expect(replaced.conflicts).toEqual([]);
      expect(replaced.verify?.equal).toBe(true);
      await target.save((await target.load('s-0001')).append(Message.user('x')));
      await target.delete('s-0000');
      const extra = await newStore('memory');
      await extra.save((await target.load('s-0001')).withMetadata({ elsewhere: true }));
      const report = await compareStores(source, target, { extras: true });
      expect(report.differences.map((each) => each.kind).sort()).toEqual(['different', 'missing']);
      const reverse = await compareStores(extra, source);
      expect(reverse.equal).toBe(false);
    } finally {
      await source.close();
      await target.close();
    }
  });
});

describe('mapOrdered', () => {
  it('keeps the source order, runs at most `limit` at once, and stops at the first error', async () => {
    let running = 0;
    let most = 0;
    const results = await collect(
      mapOrdered([5, 1, 4, 2, 3], 2, async (n) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, n * 3));
        running -= 1;
        return n * 10;
      }),
    );
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
    await expect(
      collect(
        mapOrdered([1, 2, 3], 2, async (n) => {
          if (n === 2) throw new Error('two');
          return n;
        }),
      ),
    ).rejects.toThrow('two');
  });
});
