/**
 * `createSessionHandle` itself: its options, the in-flight session accessor, the temp scope, and
 * what it reads from the store (tail reads, never a full load, for history and recall).
 */
import { describe, expect, it } from 'vitest';
import { RecallIndex, recallIndexFor } from '../../src/active-memory/recall-index.js';
import { createSessionHandle, type SessionAccessor } from '../../src/active-memory/session-handle.js';
import type { Embed } from '../../src/active-memory/types.js';
import { InvalidInputError } from '../../src/errors.js';
import { KNOWLEDGE_PREFIX, knowledgeSessionId } from '../../src/index.js';
import type { JsonValue } from '../../src/message/schema.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { expectRejection, seedSession } from './harness.js';

function accessorOf(initial: Session): SessionAccessor & { current: Session } {
  const accessor = {
    current: initial,
    get: () => accessor.current,
    set: (next: Session) => void (accessor.current = next),
  };
  return accessor;
}

/** `store` with every call counted by method name (the store itself does the work). */
function counted(store: SessionStore): { store: SessionStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describe('createSessionHandle', () => {
  it('refuses bad options with typed errors', () => {
    const store = memoryStore();
    const other = memoryStore();
    expect(() => createSessionHandle({ store, sessionId: '../x' })).toThrow(InvalidInputError);
    expect(() => createSessionHandle({ store: undefined as unknown as SessionStore, sessionId: 's' })).toThrow(
      InvalidInputError,
    );
    expect(() => createSessionHandle({ store, sessionId: 's', agentId: '' })).toThrow(InvalidInputError);
    expect(() => createSessionHandle({ store, sessionId: 's', embed: 'yes' as unknown as Embed })).toThrow(
      InvalidInputError,
    );
    expect(() => createSessionHandle({ store, sessionId: 's', embed: async () => [], embedId: 'has space' })).toThrow(
      InvalidInputError,
    );
    expect(() => createSessionHandle({ store, sessionId: 's', index: recallIndexFor(other) })).toThrow(
      InvalidInputError,
    );
    const session = Session.create({ id: 's', userId: 'u1', agentId: 'a1' });
    expect(() => createSessionHandle({ store, sessionId: 'other', session: accessorOf(session) })).toThrow(
      InvalidInputError,
    );
    expect(() => createSessionHandle({ store, sessionId: 's', userId: 'u2', session: accessorOf(session) })).toThrow(
      InvalidInputError,
    );
    expect(() => createSessionHandle({ store, sessionId: 's', agentId: 'a2', session: accessorOf(session) })).toThrow(
      InvalidInputError,
    );
  });

  it('takes user and agent from the in-flight session and is frozen', () => {
    const store = memoryStore();
    const handle = createSessionHandle({
      store,
      sessionId: 's',
      session: accessorOf(Session.create({ id: 's', userId: 'u1', agentId: 'a1' })),
    });
    expect([handle.sessionId, handle.userId, handle.agentId]).toEqual(['s', 'u1', 'a1']);
    expect(Object.isFrozen(handle)).toBe(true);
  });

  it('changes the in-flight session for session values and leaves the store alone', async () => {
    const { store, calls } = counted(memoryStore());
    const accessor = accessorOf(Session.create({ id: 'turn', userId: 'u1' }));
    const handle = createSessionHandle({ store, sessionId: 'turn', session: accessor });
    await handle.store('plan', ['a', 'b']);
    expect(accessor.current.variables.plan).toEqual(['a', 'b']);
    expect(await handle.get('plan')).toEqual(['a', 'b']);
    await handle.store('plan', undefined);
    expect(accessor.current.variables).toEqual({});
    expect([...calls.keys()].filter((name) => name !== 'values')).toEqual([]);
    expect(await store.get('turn')).toBeUndefined();
  });

  it('keeps temp values in the given per-turn map only', async () => {
    const temp = new Map<string, JsonValue>();
    const handle = createSessionHandle({ store: memoryStore(), sessionId: 's', temp });
    await handle.store('draft', { text: 'hi' }, { scope: 'temp' });
    expect(temp.get('draft')).toEqual({ text: 'hi' });
    expect(
      await createSessionHandle({ store: memoryStore(), sessionId: 's', temp }).get('draft', { scope: 'temp' }),
    ).toEqual({ text: 'hi' });
    expect(
      await createSessionHandle({ store: memoryStore(), sessionId: 's' }).get('draft', { scope: 'temp' }),
    ).toBeUndefined();
  });

  it('reads history and recall with tail reads, reading only the head once to check its owner', async () => {
    const { store, calls } = counted(memoryStore());
    await seedSession(
      store,
      'big',
      'u1',
      Array.from({ length: 300 }, (_, index) => `line ${index} about topic${index % 7}`),
    );
    calls.clear();
    const handle = createSessionHandle({ store, sessionId: 'big', userId: 'u1' });
    const page = await handle.history({ limit: 20 });
    expect(page.messages).toHaveLength(20);
    expect((await handle.history({ limit: 20, before: page.nextBefore })).messages).toHaveLength(20);
    expect((await handle.recall('topic3', { k: 3 })).length).toBe(3);
    // Nothing new: the second recall reads only the list and the hits.
    await handle.recall('topic4', { k: 3 });
    expect(calls.get('load') ?? 0).toBe(0);
    // History ranges do not say whose they are: the owner is read from the head, once per handle, not per page.
    expect(calls.get('get') ?? 0).toBe(0);
    // And each recall reads the head of the user's knowledge session: which facts are superseded.
    expect(calls.get('summary')).toBe(1 + 2);
    // Two history pages, the index's one read of the session, then each recall's hits in one call.
    expect(calls.get('readMessages')).toBe(2 + 1);
    expect(calls.get('readMessagesAt')).toBe(2);
    // With the turn's session in hand, the owner is known: nothing is loaded.
    calls.clear();
    const session = await store.load('big');
    calls.clear();
    await createSessionHandle({ store, sessionId: 'big', session: accessorOf(session) }).history({ limit: 5 });
    expect(calls.get('get') ?? 0).toBe(0);
    expect(calls.get('summary') ?? 0).toBe(0);
  });

  it('shares one index per store, and a given index is used', async () => {
    const store = memoryStore();
    await seedSession(store, 'shared', 'u1', ['kiwi smoothie recipe']);
    expect(recallIndexFor(store)).toBe(recallIndexFor(store));
    await createSessionHandle({ store, sessionId: 'shared', userId: 'u1' }).recall('kiwi');
    expect(recallIndexFor(store).size).toBe(1);
    const own = new RecallIndex(store);
    await createSessionHandle({ store, sessionId: 'shared', userId: 'u1', index: own }).recall('kiwi');
    expect(own.size).toBe(1);
    own.forget('u1');
    expect(own.size).toBe(0);
    expect(() => new RecallIndex(store, { maxDocuments: 0 })).toThrow(InvalidInputError);
  });

  it('drops the least recently searched users beyond maxDocuments', async () => {
    const store = memoryStore();
    const index = new RecallIndex(store, { maxDocuments: 3 });
    for (const user of ['u1', 'u2', 'u3']) await seedSession(store, `s-${user}`, user, ['apple pie', 'apple tart']);
    for (const user of ['u1', 'u2', 'u3']) {
      const hits = await createSessionHandle({ store, sessionId: `s-${user}`, userId: user, index }).recall('apple');
      expect(hits).toHaveLength(2);
      expect(index.size).toBeLessThanOrEqual(3);
    }
  });

  it('refuses an unknown scope', async () => {
    const handle = createSessionHandle({ store: memoryStore(), sessionId: 's' });
    await expectRejection(handle.get('k', { scope: 'global' as 'app' }), InvalidInputError, 'INVALID_ARGUMENT');
  });

  it("keeps what is remembered in the user's knowledge session, listed among theirs (kind knowledge) under the exported id", async () => {
    const store = memoryStore();
    await store.save(Session.create({ id: 'chat', userId: 'u1' }));
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'u1' });
    await handle.remember('Prefers tea to coffee.');
    const rows = await store.list({ userId: 'u1', kinds: 'all' });
    const listed = rows.map((summary) => summary.id);
    expect(listed.sort()).toEqual(['chat', knowledgeSessionId('u1')].sort());
    expect(rows.find((row) => row.id === knowledgeSessionId('u1'))?.kind).toBe('knowledge');
    // Out of the default listing: a conversations-only list holds the chat alone.
    expect((await store.list({ userId: 'u1' })).map((summary) => summary.id)).toEqual(['chat']);
    expect(listed.filter((id) => !id.startsWith(KNOWLEDGE_PREFIX))).toEqual(['chat']);
  });
});
