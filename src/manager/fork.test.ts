import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { memoryStore } from '../stores/memory.js';
import type { SessionStore } from '../store/types.js';
import { SessionManager } from './index.js';
import { wrappedStore } from '../../test/support/wrapped-store.js';

const managers: SessionManager[] = [];

/** A memory store that counts the calls the manager makes, to check how a fork is written. */
function countingStore(): { store: SessionStore; calls: string[] } {
  const inner = memoryStore();
  const calls: string[] = [];
  const store = wrappedStore(inner, {
    name: 'counting',
    load: (id) => (calls.push(`load ${id}`), inner.load(id)),
    get: (id) => (calls.push(`get ${id}`), inner.get(id)),
    save: (session, options) => (calls.push(`save ${session.id}`), inner.save(session, options)),
    append: (id, messages, options) => (calls.push(`append ${id}`), inner.append(id, messages, options)),
  });
  return { store, calls };
}

afterEach(async () => {
  await Promise.allSettled(managers.splice(0).map((manager) => manager.close()));
});

describe('fork', () => {
  it('keeps the history up to and including the message, records forkedFrom, and writes with one save', async () => {
    const { store, calls } = countingStore();
    const manager = new SessionManager({ store, autoSaveIntervalMs: false });
    managers.push(manager);
    const source = await manager.create({
      userId: 'ann',
      variables: { plan: 'A' },
      metadata: { tag: 't' },
      messages: [Message.system('rules')],
    });
    const question = Message.user('which way?');
    await manager.append(source.id, question, Message.assistant('left'));
    await manager.append(source.id, Message.user('and then?'));
    calls.length = 0;
    const fork = await manager.fork(source.id, { atMessageId: question.id });
    expect(calls).toEqual([`save ${fork.id}`]);
    expect(fork.id).not.toBe(source.id);
    expect(fork.messages.map((message) => message.content)).toEqual(['rules', 'which way?']);
    expect(fork.metadata).toEqual({ tag: 't', forkedFrom: { sessionId: source.id, messageId: question.id } });
    expect([fork.userId, fork.variables]).toEqual(['ann', { plan: 'A' }]);
    const stored = await store.load(fork.id);
    expect(stored.messages.map((message) => message.id)).toEqual(fork.messages.map((message) => message.id));
    // The fork lives on its own: appends to it leave the source alone.
    await manager.append(fork.id, Message.assistant('right'));
    expect((await store.load(source.id)).messages).toHaveLength(4);
    expect((await store.load(fork.id)).messages.map((message) => message.content)).toEqual([
      'rules',
      'which way?',
      'right',
    ]);
  });

  it('forks at the last message, with a chosen id, including unsaved local changes', async () => {
    const manager = new SessionManager({ store: memoryStore(), autoSaveIntervalMs: false });
    managers.push(manager);
    const { id } = await manager.create();
    const { appended } = await manager.append(id, Message.user('only'));
    await manager.update(id, (session) => session.withVariable('draft', true));
    const fork = await manager.fork(id, { atMessageId: appended[0]?.id as string, id: 'my-fork' });
    expect([fork.id, fork.messages.length, fork.variables.draft]).toEqual(['my-fork', 1, true]);
    await expect(manager.fork(id, { atMessageId: appended[0]?.id as string, id: 'my-fork' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('an unknown message id is NOT_FOUND and stores nothing', async () => {
    const store = memoryStore();
    const manager = new SessionManager({ store, autoSaveIntervalMs: false });
    managers.push(manager);
    const { id } = await manager.create();
    await manager.append(id, Message.user('hi'));
    await expect(manager.fork(id, { atMessageId: 'msg_nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await store.list()).map((row) => row.id)).toEqual([id]);
  });

  it('a fork of a continuation does not claim its links', async () => {
    const manager = new SessionManager({ store: memoryStore(), autoSaveIntervalMs: false });
    managers.push(manager);
    const { id } = await manager.create({ messages: [Message.context('facts')] });
    const successor = await manager.continueSession(id);
    const fork = await manager.fork(successor.id, { atMessageId: successor.messages[0]?.id as string });
    expect(fork.metadata).toEqual({ forkedFrom: { sessionId: successor.id, messageId: successor.messages[0]?.id } });
  });
});
