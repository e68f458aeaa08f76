/**
 * `list`: the session index — newest activity first, titles, counts, owner filters, paging by
 * offset and by cursor, and the listing of expired sessions a purge has not removed yet.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { MAX_LIST_LIMIT } from '../../store/session-store.js';
import type { ListCursor, ListQuery, SessionStore } from '../../store/session-store-types.js';
import { FakeClock, conversation, expectCode, freshId, lengthCounter } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const MINUTE = 60_000;

/** Times of the cursor tests: several sessions share each, so ties must break by id. */
const AT = ['2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.001Z', '2024-05-02T08:30:00.000Z'] as const;

/** List order, the same in every store: `updatedAt` descending, then `id` ascending. */
function listOrder(a: ListCursor, b: ListCursor): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Saves an empty session with this id, owners and `updatedAt` (kept, as an import keeps it). */
async function saveAt(
  store: SessionStore,
  id: string,
  updatedAt: string,
  owner: { readonly userId?: string; readonly agentId?: string } = {},
): Promise<ListCursor> {
  const json = { ...Session.create({ id, ...owner }).toJSON(), createdAt: '2024-01-01T00:00:00.000Z', updatedAt };
  await store.save(Session.fromJSON(json), { keepUpdatedAt: true });
  return { updatedAt, id };
}

/**
 * Ids that sort differently by byte, by case or by length (a shorter id before the longer one it
 * starts), in an order that is not theirs: a store that breaks ties by insertion order fails.
 */
function tieIds(): string[] {
  const base = freshId();
  return [`${base}a`, `${base}-1`, `${base}_`, base, `${base}A`, `${base}.1`, `${base}1`, `${base}-0`];
}

/** Walks `query` page by page with `after` (the last row of each page); returns the pages' ids. */
async function walk(store: SessionStore, query: ListQuery, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: ListCursor | undefined;
  for (;;) {
    const page = await store.list({ ...query, limit, after });
    pages.push(page.map((row) => row.id));
    if (page.length < limit) return pages;
    after = page.at(-1);
  }
}

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

    spec.it(
      'paging with after returns every session once, in one order: updatedAt descending, then id ascending',
      async () => {
        const store = await spec.open();
        const ids = tieIds();
        const saved: ListCursor[] = [];
        // Three sessions at the first time, three at the second, the rest at the third.
        for (const [index, id] of ids.entries())
          saved.push(await saveAt(store, id, AT[Math.min(Math.floor(index / 3), 2)] as string));
        const order = [...saved].sort(listOrder).map((row) => row.id);
        expect((await store.list()).map((row) => row.id)).toEqual(order);
        for (const limit of [1, 2, 3, 5]) {
          const pages = await walk(store, {}, limit);
          expect(pages.flat()).toEqual(order);
          expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
        }
        const rows = await store.list();
        // A summary is a cursor as it is; offset counts after it.
        expect((await store.list({ after: rows[2] })).map((row) => row.id)).toEqual(order.slice(3));
        expect((await store.list({ after: rows[2], offset: 2, limit: 3 })).map((row) => row.id)).toEqual(
          order.slice(5, 8),
        );
        expect(await store.list({ after: rows.at(-1) })).toEqual([]);
        // A cursor need not be a row: ids before or after every id of its time, a time between rows.
        const [newest, middle] = [AT[2], AT[1]];
        const atNewest = order.filter((id) => saved.find((row) => row.id === id)?.updatedAt === newest);
        expect((await store.list({ after: { updatedAt: newest, id: '0' } })).map((row) => row.id)).toEqual(order);
        expect((await store.list({ after: { updatedAt: newest, id: 'z' } })).map((row) => row.id)).toEqual(
          order.slice(atNewest.length),
        );
        expect(
          (await store.list({ after: { updatedAt: '2024-05-01T12:00:00.000Z', id: 'x' } })).map((row) => row.id),
        ).toEqual(order.filter((id) => saved.find((row) => row.id === id)?.updatedAt !== newest));
        expect((await store.list({ after: { updatedAt: middle, id: '0' } })).map((row) => row.id)).toEqual(
          order.filter((id) => saved.find((row) => row.id === id)?.updatedAt !== newest),
        );
      },
    );

    spec.it('sessions deleted between pages make the cursor skip none of the others', async () => {
      const store = await spec.open();
      const ids = tieIds();
      const saved: ListCursor[] = [];
      for (const [index, id] of ids.entries()) saved.push(await saveAt(store, id, AT[index % 2] as string));
      const order = [...saved].sort(listOrder).map((row) => row.id);
      const first = await store.list({ limit: 3 });
      expect(first.map((row) => row.id)).toEqual(order.slice(0, 3));
      // The cursor's own row, one seen before it and one not seen yet go.
      const unseen = order[5] as string;
      for (const id of [order[2] as string, order[0] as string, unseen]) expect(await store.delete(id)).toBe(true);
      const seen = first.map((row) => row.id);
      let after = first.at(-1);
      for (;;) {
        const page = await store.list({ limit: 3, after });
        seen.push(...page.map((row) => row.id));
        if (page.length < 3) break;
        // Deleting the next cursor row before it is used, too.
        after = page.at(-1);
        await store.delete(after?.id ?? '');
      }
      expect(seen).toEqual(order.filter((id) => id !== unseen));
    });

    spec.it('after combines with the userId and agentId filters', async () => {
      const store = await spec.open();
      const owners = [
        { userId: 'u-cursor', agentId: 'a-cursor' },
        { userId: 'u-cursor' },
        { agentId: 'a-cursor' },
        { userId: 'u-other', agentId: 'a-cursor' },
      ];
      const saved: Array<ListCursor & { readonly userId?: string; readonly agentId?: string }> = [];
      for (const [index, id] of [...tieIds(), ...tieIds()].entries()) {
        const owner = owners[index % owners.length] ?? {};
        saved.push({ ...(await saveAt(store, id, AT[index % 3] as string, owner)), ...owner });
      }
      const order = [...saved].sort(listOrder);
      for (const query of [
        { userId: 'u-cursor' },
        { agentId: 'a-cursor' },
        { userId: 'u-cursor', agentId: 'a-cursor' },
        { userId: 'u-other' },
      ]) {
        const expected = order
          .filter(
            (row) =>
              (query.userId === undefined || row.userId === query.userId) &&
              (query.agentId === undefined || row.agentId === query.agentId),
          )
          .map((row) => row.id);
        expect(expected.length).toBeGreaterThan(0);
        for (const limit of [1, 3]) expect((await walk(store, query, limit)).flat()).toEqual(expected);
        // A cursor from a row the filter does not match still marks a place in the order.
        const elsewhere = order.find((row) => row.userId !== query.userId && row.agentId !== query.agentId);
        if (elsewhere !== undefined) {
          const place = order.indexOf(elsewhere);
          expect((await store.list({ ...query, after: elsewhere })).map((row) => row.id)).toEqual(
            expected.filter((id) => order.findIndex((row) => row.id === id) > place),
          );
        }
      }
    });

    spec.it('expired: true lists only the expired sessions a purge has not removed, and none after it', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const short: string[] = [];
      for (const owner of ['u-expired', 'u-expired', 'u-other']) {
        clock.advance(1000);
        short.push((await store.save(Session.create({ id: freshId(), userId: owner }), { ttlMs: MINUTE })).id);
      }
      const long = await store.save(Session.create({ id: freshId(), userId: 'u-expired' }), { ttlMs: 10 * MINUTE });
      clock.advance(1000);
      const forever = await store.save(Session.create({ id: freshId(), userId: 'u-expired' }));
      const ids = async (query: ListQuery): Promise<string[]> => (await store.list(query)).map((row) => row.id);
      expect(await store.list({ expired: true })).toEqual([]);
      // Now a second before the first retention ends, then exactly when it does (at or before now).
      clock.advance(MINUTE - 4000);
      expect(await ids({ expired: true })).toEqual([]);
      clock.advance(1000);
      expect(await ids({ expired: true })).toEqual([short[0]]);
      clock.advance(2000);
      const newestFirst = [...short].reverse();
      expect(await ids({ expired: true })).toEqual(newestFirst);
      expect(await ids({ expired: true, userId: 'u-expired' })).toEqual([short[1], short[0]]);
      expect(await ids({ expired: true, userId: 'nobody' })).toEqual([]);
      expect((await walk(store, { expired: true }, 1)).flat()).toEqual(newestFirst);
      expect(await ids({ expired: true, offset: 1, limit: 1 })).toEqual([short[1]]);
      // The rows tell when retention ended; the default listing and expired: false hold the live ones.
      for (const row of await store.list({ expired: true }))
        expect(Date.parse(row.expiresAt ?? '')).toBeLessThanOrEqual(clock.now());
      expect(await ids({})).toEqual([forever.id, long.id]);
      expect(await ids({ expired: false })).toEqual([forever.id, long.id]);
      expect(await store.purgeExpired()).toBe(3);
      expect(await store.list({ expired: true })).toEqual([]);
      clock.advance(10 * MINUTE);
      expect(await ids({ expired: true })).toEqual([long.id]);
      expect(await ids({})).toEqual([forever.id]);
      expect(await store.purgeExpired()).toBe(1);
      expect(await store.list({ expired: true })).toEqual([]);
    });

    spec.it('idPrefix lists only the ids that start with it, with the other filters and the cursor', async () => {
      const store = await spec.open();
      // Neighbours in byte order on both sides of each namespace, and a prefix that is a whole id.
      const ids = ['acme', 'acme-x', 'acme.a', 'acme.b_1', 'acme.Z', 'acmf.a', 'acme.', 'acmd.z', 'other.acme.a'];
      const saved: ListCursor[] = [];
      for (const [index, id] of ids.entries()) {
        saved.push(await saveAt(store, id, AT[index % 3] as string, index % 2 === 0 ? { userId: 'u-prefix' } : {}));
      }
      const order = [...saved].sort(listOrder);
      for (const prefix of ['acme.', 'acme', 'acme.b', 'zz']) {
        const expected = order.filter((row) => row.id.startsWith(prefix)).map((row) => row.id);
        expect((await store.list({ idPrefix: prefix, limit: 1000 })).map((row) => row.id)).toEqual(expected);
        for (const limit of [1, 2]) expect((await walk(store, { idPrefix: prefix }, limit)).flat()).toEqual(expected);
      }
      const mine = order.filter((row) => row.id.startsWith('acme.') && ids.indexOf(row.id) % 2 === 0);
      expect((await store.list({ idPrefix: 'acme.', userId: 'u-prefix' })).map((row) => row.id)).toEqual(
        mine.map((row) => row.id),
      );
      for (const idPrefix of ['', 'a%', 'a b', '../', 7, null]) {
        await expectCode(() => store.list({ idPrefix: idPrefix as string }), 'INVALID_ARGUMENT');
      }
    });

    spec.it('an invalid after or expired fails with INVALID_ARGUMENT', async () => {
      const store = await spec.open();
      const row = await saveAt(store, freshId(), AT[0]);
      for (const after of [
        null,
        'a',
        [row.updatedAt, row.id],
        { id: row.id },
        { updatedAt: row.updatedAt },
        { updatedAt: 'yesterday', id: row.id },
        { updatedAt: Date.parse(row.updatedAt), id: row.id },
        { updatedAt: row.updatedAt, id: 42 },
        { updatedAt: row.updatedAt, id: '../escape' },
      ]) {
        await expectCode(() => store.list({ after: after as ListCursor }), 'INVALID_ARGUMENT');
      }
      for (const expired of ['true', 1, null]) {
        await expectCode(() => store.list({ expired: expired as unknown as boolean }), 'INVALID_ARGUMENT');
      }
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
