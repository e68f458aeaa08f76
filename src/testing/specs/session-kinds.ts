/**
 * `kinds`: the sessions chatstate keeps for itself (a string `metadata.chatstate`: knowledge,
 * working memory, LangGraph checkpoint logs, …) carry their kind on their row, and `list` leaves
 * them out unless `kinds` asks for them — filtered where the store pages, so `limit`, `offset` and
 * `after` stay exact — while purges and `marks` still see them. The kind follows every write that
 * can change `metadata` (save, an append or a tail replace with state) and survives the others.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { ListKinds } from '../../store/session-kind.js';
import type { ListCursor, ListQuery, SessionStore } from '../../store/session-store-types.js';
import { FakeClock, conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const MINUTE = 60_000;

/** Saves a session of kind `kind` (none: a conversation) with this id, user and kept `updatedAt`. */
async function saveAt(store: SessionStore, id: string, updatedAt: string, kind: string | undefined, userId: string) {
  const session = Session.create({
    id,
    userId,
    messages: conversation(1),
    metadata: kind === undefined ? {} : { chatstate: kind },
  });
  const json = { ...session.toJSON(), createdAt: '2024-01-01T00:00:00.000Z', updatedAt };
  await store.save(Session.fromJSON(json), { keepUpdatedAt: true });
}

/** The ids of `query`, walked page by page with `after`, and the same by `offset`. */
async function walks(
  store: SessionStore,
  query: ListQuery,
  limit: number,
): Promise<{ byCursor: string[]; byOffset: string[] }> {
  const byCursor: string[] = [];
  let after: ListCursor | undefined;
  for (;;) {
    const page = await store.list({ ...query, limit, after });
    byCursor.push(...page.map((row) => row.id));
    if (page.length < limit) break;
    after = page.at(-1);
  }
  const byOffset: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await store.list({ ...query, limit, offset });
    byOffset.push(...page.map((row) => row.id));
    if (page.length < limit) break;
  }
  return { byCursor, byOffset };
}

/** The kind `list` shows for session `id` when asked for every kind (`null`: not listed at all). */
async function listedKind(store: SessionStore, id: string): Promise<string | undefined | null> {
  const row = (await store.list({ idPrefix: id, kinds: 'all' })).find((entry) => entry.id === id);
  return row === undefined ? null : row.kind;
}

/** Whether the default listing (conversations) holds session `id`. */
async function inDefault(store: SessionStore, id: string): Promise<boolean> {
  return (await store.list({ idPrefix: id })).some((row) => row.id === id);
}

/** Registers the kinds spec. */
export function sessionKindsSpec(suite: ConformanceSuite): void {
  suite.describe('kinds', "internal sessions: a session's kind and list's kinds", (spec) => {
    spec.it('internal sessions are left out by default, listed with their kind when asked', async () => {
      const store = await spec.open();
      const user = `user-${freshId()}`;
      const plain = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(2) }));
      const knowledge = await store.save(
        Session.create({ id: freshId(), userId: user, metadata: { chatstate: 'knowledge' } }),
      );
      const log = await store.save(
        Session.create({ id: freshId(), userId: user, metadata: { chatstate: 'langgraph-checkpoints', title: 'Log' } }),
      );
      // An object under metadata.chatstate is interchange data (Penguin's), not a kind.
      const penguin = await store.save(
        Session.create({ id: freshId(), userId: user, metadata: { chatstate: { parts: [] } } }),
      );
      const ids = async (query: ListQuery): Promise<string[]> =>
        (await store.list({ userId: user, ...query })).map((row) => row.id).sort();
      expect(await ids({})).toEqual([plain.id, penguin.id].sort());
      expect(await ids({ kinds: 'conversations' })).toEqual([plain.id, penguin.id].sort());
      expect(await ids({ kinds: 'all' })).toEqual([plain.id, knowledge.id, log.id, penguin.id].sort());
      expect(await ids({ kinds: ['knowledge'] })).toEqual([knowledge.id]);
      expect(await ids({ kinds: ['knowledge', 'langgraph-checkpoints', 'nothing-of-this-kind'] })).toEqual(
        [knowledge.id, log.id].sort(),
      );
      const rows = new Map((await store.list({ userId: user, kinds: 'all' })).map((row) => [row.id, row]));
      expect(rows.get(knowledge.id)?.kind).toBe('knowledge');
      expect(rows.get(log.id)).toMatchObject({ kind: 'langgraph-checkpoints', title: 'Log' });
      expect(rows.get(plain.id)).not.toHaveProperty('kind');
      expect(rows.get(penguin.id)).not.toHaveProperty('kind');
      expect((await store.summary(knowledge.id))?.kind).toBe('knowledge');
      expect(await store.summary(plain.id)).not.toHaveProperty('kind');
      // The kind is the session's metadata, read back as it was saved.
      expect((await store.get(knowledge.id))?.metadata.chatstate).toBe('knowledge');
    });

    spec.it('paging by limit, after and offset is exact across a mix of internal and ordinary sessions', async () => {
      const store = await spec.open();
      const user = `user-${freshId()}`;
      const base = freshId();
      // Ties of updatedAt among kinds, so the order within one time breaks by id as everywhere.
      const plan: Array<[string, string, string | undefined]> = [];
      const times = ['2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.001Z', '2024-05-02T08:30:00.000Z'];
      const kinds = [undefined, 'knowledge', undefined, 'working-memory', 'knowledge', undefined, undefined];
      times.forEach((time, t) =>
        kinds.forEach((kind, k) => plan.push([`${base}-${t}${String.fromCharCode(97 + ((k * 5) % 7))}`, time, kind])),
      );
      for (const [id, time, kind] of plan) await saveAt(store, id, time, kind, user);
      const order = (wanted: (kind: string | undefined) => boolean): string[] =>
        plan
          .filter(([, , kind]) => wanted(kind))
          .sort(([a, at], [b, bt]) => (at !== bt ? (at < bt ? 1 : -1) : a < b ? -1 : 1))
          .map(([id]) => id);
      const expected: Array<[ListKinds, string[]]> = [
        ['conversations', order((kind) => kind === undefined)],
        ['all', order(() => true)],
        [['knowledge'], order((kind) => kind === 'knowledge')],
        [['working-memory', 'knowledge'], order((kind) => kind !== undefined)],
      ];
      for (const [kindsQuery, ids] of expected) {
        for (const limit of [1, 2, 3, 5]) {
          const { byCursor, byOffset } = await walks(store, { userId: user, kinds: kindsQuery }, limit);
          expect(byCursor).toEqual(ids);
          expect(byOffset).toEqual(ids);
        }
      }
      // Without kinds the default is conversations, with the idPrefix filter too.
      expect((await walks(store, { idPrefix: base }, 4)).byCursor).toEqual(expected[0]?.[1]);
      // A cursor taken from an internal row pages a conversations-only listing on from its place.
      const all = await store.list({ userId: user, kinds: 'all' });
      const internalRow = all.find((row) => row.kind !== undefined);
      expect(internalRow).toBeDefined();
      const rest = (await store.list({ userId: user, after: internalRow })).map((row) => row.id);
      const at = all.indexOf(internalRow as (typeof all)[number]);
      expect(rest).toEqual(
        all
          .slice(at + 1)
          .filter((row) => row.kind === undefined)
          .map((row) => row.id),
      );
    });

    spec.it(
      'the kind survives append, replaceTail and a copy, and follows the state an append or tail carries',
      async () => {
        const store = await spec.open();
        const saved = await store.save(
          Session.create({ id: freshId(), metadata: { chatstate: 'working-memory' }, messages: conversation(2) }),
        );
        await store.append(saved.id, [Message.user('one more')]);
        expect(await listedKind(store, saved.id)).toBe('working-memory');
        // replaceTail is optional on a SessionStore (the http client has none): checked where it is.
        const tails = store.replaceTail !== undefined;
        if (tails) {
          await store.replaceTail?.(saved.id, {
            afterSeq: 1,
            messages: [Message.assistant('a new tail')],
            expectedVersion: saved.version + 1,
          });
          expect(await listedKind(store, saved.id)).toBe('working-memory');
        }
        expect(await inDefault(store, saved.id)).toBe(false);
        // A copy under another id keeps the metadata, so the kind (what a fork does).
        const loaded = (await store.get(saved.id)) as Session;
        const copy = await store.save(
          Session.create({ id: freshId(), metadata: loaded.metadata, messages: conversation(1) }),
        );
        expect(await listedKind(store, copy.id)).toBe('working-memory');

        // An append's state replaces the metadata: its kind (or none) with it.
        await store.append(saved.id, [Message.user('now a conversation')], {
          state: { metadata: { title: 'Plain' }, variables: {} },
        });
        expect(await listedKind(store, saved.id)).toBeUndefined();
        expect(await inDefault(store, saved.id)).toBe(true);
        await store.append(saved.id, [Message.user('internal again')], {
          state: { metadata: { chatstate: 'knowledge-graph' }, variables: {} },
        });
        expect(await listedKind(store, saved.id)).toBe('knowledge-graph');
        expect(await inDefault(store, saved.id)).toBe(false);
        if (!tails) return;
        const current = (await store.summary(saved.id))?.version ?? 0;
        await store.replaceTail?.(saved.id, {
          afterSeq: 2,
          messages: [],
          expectedVersion: current,
          state: { metadata: {}, variables: {} },
        });
        expect(await listedKind(store, saved.id)).toBeUndefined();
        expect(await inDefault(store, saved.id)).toBe(true);
      },
    );

    spec.it('a save that changes metadata.chatstate moves the session in or out of the default listing', async () => {
      const store = await spec.open();
      const first = await store.save(Session.create({ id: freshId(), messages: conversation(1) }));
      expect(await inDefault(store, first.id)).toBe(true);
      const internal = await store.save(first.withMetadata({ chatstate: 'claude-summary' }), {
        expectedVersion: first.version,
      });
      expect(await inDefault(store, first.id)).toBe(false);
      expect(await listedKind(store, first.id)).toBe('claude-summary');
      const renamed = await store.save(internal.withMetadata({ chatstate: 'knowledge' }), {
        expectedVersion: internal.version,
      });
      expect(await listedKind(store, first.id)).toBe('knowledge');
      expect((await store.list({ kinds: ['claude-summary'], idPrefix: first.id })).length).toBe(0);
      await store.save(renamed.withMetadata({ chatstate: null }), { expectedVersion: renamed.version });
      expect(await inDefault(store, first.id)).toBe(true);
      expect(await listedKind(store, first.id)).toBeUndefined();
    });

    spec.it(
      'the kind is kept by a second store over the same data',
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId(), metadata: { chatstate: 'knowledge' } }));
        await store.append(saved.id, [Message.user('a fact')]);
        const second = await spec.reopen(store);
        expect(await listedKind(second, saved.id)).toBe('knowledge');
        expect(await inDefault(second, saved.id)).toBe(false);
      },
      { needs: ['reopen'] },
    );

    spec.it('purgeExpired and marks still see internal sessions', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const user = `user-${freshId()}`;
      const kept = await store.save(
        Session.create({ id: freshId(), userId: user, metadata: { chatstate: 'knowledge' } }),
      );
      const brief = await store.save(
        Session.create({ id: freshId(), userId: user, metadata: { chatstate: 'working-memory' } }),
        { ttlMs: MINUTE },
      );
      expect((await store.marks?.(user))?.map((mark) => mark.id).sort()).toEqual([kept.id, brief.id].sort());
      clock.advance(2 * MINUTE);
      expect((await store.list({ expired: true, kinds: 'all' })).map((row) => row.id)).toEqual([brief.id]);
      expect(await store.list({ expired: true })).toEqual([]);
      expect(await store.purgeExpired()).toBe(1);
      expect(await store.get(brief.id)).toBeUndefined();
      expect((await store.marks?.(user))?.map((mark) => mark.id)).toEqual([kept.id]);
    });

    spec.it('kinds of any other shape are INVALID_ARGUMENT', async () => {
      const store = await spec.open();
      const bad: unknown[] = [
        'internal',
        '',
        'ALL',
        [],
        ['Knowledge'],
        ['knowledge', 3],
        ['a b'],
        ['-x'],
        ['x'.repeat(65)],
        Array.from({ length: 33 }, (_, index) => `k${index}`),
        5,
        null,
        { knowledge: true },
      ];
      for (const kinds of bad) await expectCode(() => store.list({ kinds: kinds as ListKinds }), 'INVALID_ARGUMENT');
      expect(await store.list({ kinds: undefined })).toEqual([]);
    });
  });
}
