/**
 * `SessionManager.commit`, the write a turn ends with: messages and state changed on the session
 * the turn read, stored only if the session is still that one — one atomic append with the new
 * state, or a compare-and-replace when the agent changes, or a create for a new session.
 */
import { describe, expect, it } from 'vitest';
import { wrappedStore } from '../support/wrapped-store.js';
import { SessionManager } from '../../src/manager/session-manager.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { STORE_KINDS, openStoreOf, shape, snapshot } from './fixtures.js';

function managerOver(store: SessionStore): SessionManager {
  return new SessionManager({ store, autoSaveIntervalMs: false });
}

/** A store whose `save` and `append` calls are counted (the commit must use exactly one). */
function counting(inner: SessionStore): { store: SessionStore; calls: string[] } {
  const calls: string[] = [];
  const store = wrappedStore(inner, {
    save: (session, options) => (calls.push('save'), inner.save(session, options)),
    append: (id, messages, options) => (calls.push('append'), inner.append(id, messages, options)),
  });
  return { store, calls };
}

describe.each(STORE_KINDS)('SessionManager.commit on the %s store', (kind) => {
  it('appends the new messages with the new variables and usage in one append, one version step', async () => {
    const { store } = await openStoreOf(kind);
    const manager = managerOver(store);
    await manager.create({ id: 's1', messages: [Message.user('hello')] });
    const base = await manager.load('s1');
    const stored = await manager.commit(base, {
      messages: [Message.assistant('sunny')],
      variables: { topic: 'weather' },
      lastUsage: { inputTokens: 42, outputTokens: 3, messageCount: 1 },
    });
    const loaded = await store.load('s1');
    expect(shape(stored)).toEqual(shape(loaded));
    expect(loaded.version).toBe(base.version + 1);
    expect(loaded.variables).toEqual({ topic: 'weather' });
    expect(loaded.lastUsage).toEqual({ inputTokens: 42, outputTokens: 3, messageCount: 1 });
    expect(loaded.messages.map((message) => message.seq)).toEqual([1, 2]);
    // The manager now holds the stored session: the next commit builds on it.
    expect(await manager.load('s1')).toBe(stored);
    // Messages alone leave the state as it is.
    const next = await manager.commit(stored, { messages: [Message.user('and tomorrow?')] });
    const reloaded = await store.load('s1');
    expect(shape(next)).toEqual(shape(reloaded));
    expect(reloaded.variables).toEqual({ topic: 'weather' });
    expect(reloaded.lastUsage).toEqual({ inputTokens: 42, outputTokens: 3, messageCount: 1 });
    await manager.close();
  });

  it('refuses a base the manager no longer holds, writing nothing', async () => {
    const { store } = await openStoreOf(kind);
    const manager = managerOver(store);
    await manager.create({ id: 's1' });
    const base = await manager.load('s1');
    await manager.append('s1', Message.user('appended meanwhile'));
    const before = await snapshot(store, 's1');
    await expect(manager.commit(base, { messages: [Message.user('late')] })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await snapshot(store, 's1')).toEqual(before);
    await manager.close();
  });

  it('refuses when another writer changed the store, and reads the store again afterwards', async () => {
    const { store } = await openStoreOf(kind);
    const manager = managerOver(store);
    await manager.create({ id: 's1' });
    const base = await manager.load('s1');
    await store.append('s1', [Message.user('from another process')]);
    const before = await snapshot(store, 's1');
    await expect(manager.commit(base, { messages: [Message.user('mine')] })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await snapshot(store, 's1')).toEqual(before);
    expect((await manager.load('s1')).messages.map((message) => Message.text(message))).toEqual([
      'from another process',
    ]);
    await manager.close();
  });
});

describe('SessionManager.commit paths', () => {
  it('creates a new session with one save that fails if someone created it first', async () => {
    const { store, calls } = counting(memoryStore());
    const manager = managerOver(store);
    const base = Session.create({ id: 'fresh', userId: 'u1' });
    const stored = await manager.commit(base, {
      agentId: 'a',
      messages: [Message.user('hi'), Message.assistant('hello')],
    });
    expect(calls).toEqual(['save']);
    expect((await store.load('fresh')).agentId).toBe('a');
    expect(stored.version).toBe((await store.load('fresh')).version);
    const again = Session.create({ id: 'fresh' });
    await expect(manager.commit(again, { messages: [Message.user('second creator')] })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect((await store.load('fresh')).messages).toHaveLength(2);
    await manager.close();
  });

  it('uses one append for a turn and one compare-and-replace for a reassignment', async () => {
    const { store, calls } = counting(memoryStore());
    const manager = managerOver(store);
    await manager.create({ id: 's1', agentId: 'a' });
    calls.length = 0;
    let base = await manager.load('s1');
    base = await manager.commit(base, { messages: [Message.user('one')] });
    expect(calls).toEqual(['append']);
    await manager.commit(base, { agentId: 'b', messages: [Message.user('two')] });
    expect(calls).toEqual(['append', 'save']);
    expect((await store.load('s1')).agentId).toBe('b');
    await manager.close();
  });

  it('replaces the history with one compare-and-replace when the change gives one', async () => {
    const { store, calls } = counting(memoryStore());
    const manager = managerOver(store);
    const base = await manager.create({
      id: 's1',
      messages: [Message.user('old'), Message.assistant('older answer'), Message.user('q')],
    });
    calls.length = 0;
    const summary = Message.context('summary of the old turn');
    const stored = await manager.commit(base, {
      history: [summary, ...base.messages.slice(2)],
      messages: [Message.assistant('a')],
    });
    expect(calls).toEqual(['save']);
    expect((await store.load('s1')).messages.map((message) => Message.text(message))).toEqual([
      'summary of the old turn',
      'q',
      'a',
    ]);
    expect(shape(stored)).toEqual(shape(await store.load('s1')));
    await manager.close();
  });

  it('writes local changes the base already contains before the append', async () => {
    const store = memoryStore();
    const manager = managerOver(store);
    await manager.create({ id: 's1' });
    const base = await manager.update('s1', (session) => session.withMetadata({ title: 'local' }));
    expect(manager.isDirty('s1')).toBe(true);
    await manager.commit(base, { messages: [Message.user('hi')] });
    const loaded = await store.load('s1');
    expect(loaded.metadata).toEqual({ title: 'local' });
    expect(loaded.messages).toHaveLength(1);
    expect(manager.isDirty('s1')).toBe(false);
    await manager.close();
  });

  it('rejects a bad change before writing anything', async () => {
    const store = memoryStore();
    const manager = managerOver(store);
    const base = await manager.create({ id: 's1', messages: [Message.user('a')] });
    const before = await snapshot(store, 's1');
    await expect(manager.commit(base, {} as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(manager.commit({} as Session, { messages: [] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(manager.commit(base, { messages: [{ role: 'user' } as never] })).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
    });
    const twice = Message.user('twice');
    await expect(manager.commit(base, { messages: [twice, twice] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      manager.commit(base, { messages: [Message.user('b')], variables: JSON.parse('{"__proto__": 1}') as never }),
    ).rejects.toMatchObject({ code: 'INVALID_SESSION' });
    await expect(
      manager.commit(base, { messages: [Message.user('b')], lastUsage: { inputTokens: -1, messageCount: 1 } }),
    ).rejects.toMatchObject({ code: 'INVALID_SESSION' });
    expect(await snapshot(store, 's1')).toEqual(before);
    await manager.close();
  });

  it('removes the recorded usage when the change says null', async () => {
    const store = memoryStore();
    const manager = managerOver(store);
    const base = await manager.create({ id: 's1', messages: [Message.user('a')] });
    const measured = await manager.commit(base, {
      messages: [Message.assistant('b')],
      lastUsage: { inputTokens: 5, messageCount: 1 },
    });
    expect((await store.load('s1')).lastUsage).toEqual({ inputTokens: 5, messageCount: 1 });
    await manager.commit(measured, { messages: [Message.user('c')], lastUsage: null });
    expect((await store.load('s1')).lastUsage).toBeUndefined();
    await manager.close();
  });
});
