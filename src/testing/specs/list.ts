/**
 * `list`: the session index — newest activity first, titles, counts, owner filters and paging.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { MAX_LIST_LIMIT } from '../../store/session-store.js';
import { FakeClock, conversation, expectCode, freshId, lengthCounter } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the list spec. */
export function listSpec(suite: ConformanceSuite): void {
  suite.describe('list', 'list: the session index', (spec) => {
    spec.it('rows are sorted by last activity, newest first, and an append counts as activity', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const ids = [freshId(), freshId(), freshId()];
      for (const id of ids) {
        clock.advance(1000);
        await store.save(Session.create({ id, messages: conversation(2, id) }));
      }
      const [first, second, third] = ids as [string, string, string];
      expect((await store.list()).map((row) => row.id)).toEqual([third, second, first]);
      clock.advance(1000);
      await store.append(first, [Message.user('back again', { id: `${first}-late` })]);
      expect((await store.list()).map((row) => row.id)).toEqual([first, third, second]);
      // A retry that adds nothing is not activity.
      clock.advance(1000);
      await store.append(second, conversation(2, second));
      expect((await store.list()).map((row) => row.id)).toEqual([first, third, second]);
    });

    spec.it(
      'summary(id) is the session’s list row without reading its messages; undefined when gone or expired',
      async () => {
        const clock = new FakeClock();
        const store = await spec.open({ now: clock.now });
        const id = freshId();
        await store.save(
          Session.create({ id, userId: 'u-summary', agentId: 'a-summary', messages: conversation(2, id) }),
          { ttlMs: 60_000 },
        );
        const [row] = (await store.list({ userId: 'u-summary' })).filter((entry) => entry.id === id);
        expect(await store.summary(id)).toEqual(row);
        expect(await store.summary(freshId())).toBeUndefined();
        await expectCode(() => store.summary('../escape'), 'INVALID_ID');
        clock.advance(60_001);
        expect(await store.summary(id)).toBeUndefined();
      },
    );

    spec.it('a row has the title, message count, token total, version, owners and times', async () => {
      const clock = new FakeClock(Date.parse('2031-02-03T04:05:06.000Z'));
      const store = await spec.open({ now: clock.now, counter: lengthCounter });
      const messages = [
        Message.system('Be brief.'),
        Message.user('A user message of category context is no title.', { category: 'context' }),
        Message.user('  Plan   my\ntrip to Lisbon  '),
        Message.assistant('Sure.'),
        Message.user('A later question'),
      ];
      const session = Session.create({ id: freshId(), agentId: 'planner', userId: 'user-1', messages });
      const saved = await store.save(session);
      const [row] = await store.list();
      expect(row).toEqual({
        id: session.id,
        agentId: 'planner',
        userId: 'user-1',
        title: 'Plan my trip to Lisbon',
        messageCount: 5,
        tokenCount: messages.reduce((total, message) => total + lengthCounter.countMessage(message), 0),
        version: saved.version,
        createdAt: session.createdAt,
        updatedAt: '2031-02-03T04:05:06.000Z',
      });
      clock.advance(5000);
      const result = await store.append(session.id, [Message.assistant('Lisbon it is.', { id: 'lisbon' })]);
      const [after] = await store.list();
      expect(after).toMatchObject({
        title: 'Plan my trip to Lisbon',
        messageCount: 6,
        tokenCount: (row?.tokenCount ?? 0) + lengthCounter.countMessage(Message.assistant('Lisbon it is.')),
        version: result.version,
        updatedAt: '2031-02-03T04:05:11.000Z',
      });
    });

    spec.it(
      'the title comes from the first user message, even when it arrives by append, and is shortened',
      async () => {
        const store = await spec.open();
        const id = freshId();
        await store.save(Session.create({ id, messages: [Message.system('No title here.')] }));
        expect((await store.list())[0]?.title).toBeUndefined();
        const long = `${'word '.repeat(100)}end`;
        await store.append(id, [Message.assistant('Hello.'), Message.user(long)]);
        await store.append(id, [Message.user('Not the title.')]);
        const title = (await store.list())[0]?.title ?? '';
        expect(title.length).toBeGreaterThan(10);
        expect(title.length).toBeLessThan(long.length);
        expect(long.startsWith(title.replace(/…$/, '').trimEnd())).toBe(true);
      },
    );

    spec.it('filters by userId and agentId, alone and together', async () => {
      const store = await spec.open();
      const owners = [
        { userId: 'u1', agentId: 'a1' },
        { userId: 'u1', agentId: 'a2' },
        { userId: 'u2', agentId: 'a1' },
        { userId: 'u2' },
        {},
      ];
      const ids = new Map<string, string>();
      for (const [index, owner] of owners.entries()) {
        const id = freshId();
        ids.set(id, `${index}`);
        await store.save(Session.create({ id, ...owner }));
      }
      const picked = async (query: Parameters<typeof store.list>[0]): Promise<string[]> =>
        (await store.list(query)).map((row) => ids.get(row.id) ?? row.id).sort();
      expect(await picked({})).toEqual(['0', '1', '2', '3', '4']);
      expect(await picked({ userId: 'u1' })).toEqual(['0', '1']);
      expect(await picked({ userId: 'u2' })).toEqual(['2', '3']);
      expect(await picked({ agentId: 'a1' })).toEqual(['0', '2']);
      expect(await picked({ userId: 'u1', agentId: 'a1' })).toEqual(['0']);
      expect(await picked({ userId: 'u2', agentId: 'a2' })).toEqual([]);
      expect(await picked({ userId: 'nobody' })).toEqual([]);
    });

    spec.it('limit and offset page through the rows without gaps or repeats', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      for (let index = 0; index < 7; index++) {
        clock.advance(1000);
        await store.save(Session.create({ id: freshId(), userId: 'pager' }));
      }
      const all = (await store.list({ userId: 'pager' })).map((row) => row.id);
      expect(all).toHaveLength(7);
      const pages: string[][] = [];
      for (let offset = 0; offset < 9; offset += 3) {
        pages.push((await store.list({ userId: 'pager', limit: 3, offset })).map((row) => row.id));
      }
      expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(all);
      expect(await store.list({ userId: 'pager', offset: 7 })).toEqual([]);
      expect((await store.list({ userId: 'pager', limit: 1, offset: 6 })).map((row) => row.id)).toEqual([all[6]]);
    });

    spec.it('the default page holds 100 rows', async () => {
      const store = await spec.open();
      await Promise.all(
        Array.from({ length: 105 }, () => store.save(Session.create({ id: freshId(), userId: 'many' }))),
      );
      expect(await store.list({ userId: 'many' })).toHaveLength(100);
      expect(await store.list({ userId: 'many', offset: 100 })).toHaveLength(5);
    });

    spec.it('an invalid limit or offset fails with INVALID_ARGUMENT', async () => {
      const store = await spec.open();
      for (const limit of [
        0,
        -1,
        2.5,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        MAX_LIST_LIMIT + 1,
        '10' as unknown as number,
      ]) {
        await expectCode(() => store.list({ limit }), 'INVALID_ARGUMENT');
      }
      for (const offset of [-1, 0.5, Number.NaN, '1' as unknown as number]) {
        await expectCode(() => store.list({ offset }), 'INVALID_ARGUMENT');
      }
    });

    spec.it(
      'a filter of the wrong type, an unknown field or a query that is no object fails with INVALID_ARGUMENT instead of matching',
      async () => {
        const store = await spec.open();
        // Sessions a loosely typed filter could be taken for: ['a'] as "a", 123 as "123", {} as "[object Object]".
        for (const owner of ['a', '123', '[object Object]', 'true', 'null', 'a,b']) {
          await store.save(Session.create({ id: freshId(), userId: owner, agentId: owner }));
        }
        const wrong: unknown[] = [
          ['a'],
          ['a', 'b'],
          123,
          0,
          {},
          { toString: () => 'a' },
          true,
          null,
          () => 'a',
          Symbol('a'),
          10n,
          Number.NaN,
        ];
        for (const value of wrong) {
          await expectCode(() => store.list({ userId: value as string }), 'INVALID_ARGUMENT');
          await expectCode(() => store.list({ agentId: value as string }), 'INVALID_ARGUMENT');
        }
        for (const query of [
          { user: 'a' },
          { userID: 'a' },
          { limit: 10, owner: 'a' },
          JSON.parse('{"__proto__":{"userId":"a"}}') as object,
        ]) {
          await expectCode(() => store.list(query as never), 'INVALID_ARGUMENT');
        }
        for (const query of [null, 'a', 42, ['a']])
          await expectCode(() => store.list(query as never), 'INVALID_ARGUMENT');
        // Empty or over-long owner ids name no session: the id check refuses them, as everywhere.
        await expectCode(() => store.list({ userId: '' }), 'INVALID_ID');
        await expectCode(() => store.list({ agentId: 'x'.repeat(257) }), 'INVALID_ID');
        // The well-typed filters still work, and undefined means no filter.
        expect(await store.list({ userId: 'a' })).toHaveLength(1);
        expect(
          await store.list({ userId: undefined, agentId: undefined, limit: undefined, offset: undefined }),
        ).toHaveLength(6);
      },
    );

    spec.it('deleted sessions leave the index', async () => {
      const store = await spec.open();
      const kept = await store.save(Session.create({ id: freshId() }));
      const gone = await store.save(Session.create({ id: freshId() }));
      await store.delete(gone.id);
      expect((await store.list()).map((row) => row.id)).toEqual([kept.id]);
    });
  });
}
