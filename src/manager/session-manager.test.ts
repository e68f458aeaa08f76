import { describe, expect, it } from 'vitest';
import { compaction } from '../compaction/index.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { CompactedEvent, RecoveredEvent, SavedEvent } from './events.js';
import { setup } from '../../test/support/managers.js';

async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? 'no code';
  }
  return undefined;
}

describe('SessionManager basics', () => {
  it('create stores the session at once, so an append can follow', async () => {
    const { store, manager } = setup();
    const session = await manager.create({ userId: 'u1', metadata: { topic: 'tests' } });
    expect((await store.load(session.id)).userId).toBe('u1');
    const { session: after, appended } = await manager.append(session.id, Message.user('hello'));
    expect(appended.map((message) => message.seq)).toEqual([1]);
    expect(after.messages.map((message) => message.content)).toEqual(['hello']);
    expect((await store.load(session.id)).messages.map((message) => message.content)).toEqual(['hello']);
  });

  it('create with a taken id is CONFLICT and leaves the stored session alone', async () => {
    const { store, manager } = setup();
    const first = await manager.create({ id: 'taken' });
    await manager.append(first.id, Message.user('keep me'));
    expect(await rejectionCode(manager.create({ id: 'taken' }))).toBe('CONFLICT');
    expect((await store.load('taken')).messages).toHaveLength(1);
  });

  it('append is durable when it resolves and keeps the cached copy in step with the store', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    for (let i = 0; i < 5; i++) await manager.append(id, Message.user(`m${i}`), Message.assistant(`a${i}`));
    const stored = await store.load(id);
    const cached = await manager.load(id);
    expect(cached.version).toBe(stored.version);
    expect(cached.messages.map((message) => [message.id, message.seq])).toEqual(
      stored.messages.map((message) => [message.id, message.seq]),
    );
    expect(manager.isDirty(id)).toBe(false);
  });

  it('a retried append adds nothing and reports the duplicates', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    const message = Message.user('once');
    await manager.append(id, message);
    const retry = await manager.append(id, message);
    expect(retry.appended).toEqual([]);
    expect(retry.duplicates).toEqual([message.id]);
    expect((await store.load(id)).messages).toHaveLength(1);
    expect(retry.session.messages).toHaveLength(1);
  });

  it('an append with no messages writes nothing', async () => {
    const { store, manager } = setup();
    const { id, version } = await manager.create();
    const result = await manager.append(id);
    expect(result.appended).toEqual([]);
    expect((await store.load(id)).version).toBe(version);
  });

  it('load reads a session this manager never saw, and NOT_FOUND when there is none', async () => {
    const { store, manager } = setup();
    await store.save(Session.create({ id: 'elsewhere', messages: [Message.user('hi')] }));
    expect((await manager.load('elsewhere')).messages).toHaveLength(1);
    expect(await rejectionCode(manager.load('nobody'))).toBe('NOT_FOUND');
  });

  it('update marks the session dirty; save writes it with the next version', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    const changed = await manager.update(id, (session) => session.withVariable('mood', 'calm'));
    expect(changed.variables.mood).toBe('calm');
    expect(manager.isDirty(id)).toBe(true);
    expect((await store.load(id)).variables.mood).toBeUndefined();
    const saved = await manager.save(id);
    expect(manager.isDirty(id)).toBe(false);
    const stored = await store.load(id);
    expect(stored.variables.mood).toBe('calm');
    expect(stored.version).toBe(saved.version);
  });

  it('an update that returns the same session changes nothing', async () => {
    const { manager } = setup();
    const { id } = await manager.create();
    await manager.update(id, (session) => session);
    expect(manager.isDirty(id)).toBe(false);
  });

  it('appends to a dirty session keep both the appended messages and the local change', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    await manager.update(id, (session) => session.withVariable('step', 1));
    await manager.append(id, Message.user('after the change'));
    expect(manager.isDirty(id)).toBe(true);
    await manager.flush();
    const stored = await store.load(id);
    expect(stored.variables.step).toBe(1);
    expect(stored.messages.map((message) => message.content)).toEqual(['after the change']);
  });

  it('save(value) writes a newer value and refuses a stale one with CONFLICT', async () => {
    const { store, manager } = setup();
    const loaded = await manager.create();
    await manager.save(loaded.withVariable('a', 1));
    expect((await store.load(loaded.id)).variables.a).toBe(1);
    // `loaded` is now older than the managed copy: writing a change of it would drop `a`.
    expect(await rejectionCode(manager.save(loaded.withVariable('b', 2)))).toBe('CONFLICT');
    expect((await store.load(loaded.id)).variables).toEqual({ a: 1 });
  });

  it('save(value) of a session nobody stored yet creates it', async () => {
    const { store, manager } = setup();
    const session = Session.create({ id: 'fresh', messages: [Message.user('hi')] });
    const saved = await manager.save(session);
    expect(saved.messages[0]?.seq).toBe(1);
    expect((await store.load('fresh')).messages).toHaveLength(1);
  });

  it('delete removes the session from cache and store, dropping unsaved changes', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    await manager.update(id, (session) => session.withVariable('x', 1));
    expect(await manager.delete(id)).toBe(true);
    expect(manager.cachedIds).not.toContain(id);
    expect(await store.get(id)).toBeUndefined();
    await manager.flush();
    expect(await store.get(id)).toBeUndefined();
    expect(await manager.delete(id)).toBe(false);
  });

  it('list is the store index', async () => {
    const { manager } = setup();
    const { id } = await manager.create({ userId: 'ann' });
    await manager.append(id, Message.user('What is a journal?'));
    await manager.create({ userId: 'bob' });
    const rows = await manager.list({ userId: 'ann' });
    expect(rows.map((row) => [row.id, row.title, row.messageCount])).toEqual([[id, 'What is a journal?', 1]]);
  });

  it('operations on one session run in order even when started together', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    const texts = Array.from({ length: 20 }, (_, i) => `m${i}`);
    await Promise.all(
      texts.map((text, i) =>
        i % 4 === 0
          ? manager.update(id, (session) => session.withVariable(text, i))
          : manager.append(id, Message.user(text)),
      ),
    );
    await manager.flush();
    const stored = await store.load(id);
    expect(stored.messages).toHaveLength(15);
    expect(Object.keys(stored.variables)).toHaveLength(5);
  });
});

describe('SessionManager events', () => {
  it('saved: on create, save and flush, with the stored session', async () => {
    const { manager } = setup();
    const events: SavedEvent[] = [];
    manager.on('saved', (event) => events.push(event));
    const { id } = await manager.create();
    await manager.update(id, (session) => session.withVariable('k', 'v'));
    await manager.save(id);
    await manager.update(id, (session) => session.withVariable('k', 'w'));
    await manager.flush();
    expect(events.map((event) => event.reason)).toEqual(['create', 'save', 'flush']);
    expect(events.at(-1)?.session.variables.k).toBe('w');
  });

  it('recovered: a loaded session whose metadata names the session it replaces', async () => {
    const { store, manager } = setup();
    await store.save(
      Session.create({
        id: 'rescued',
        metadata: { recoveredFrom: 'lost-one' },
        messages: [Message.context('recovered')],
      }),
    );
    await store.save(Session.create({ id: 'plain' }));
    const events: RecoveredEvent[] = [];
    manager.on('recovered', (event) => events.push(event));
    await manager.load('plain');
    await manager.load('rescued');
    await manager.load('rescued');
    expect(events.map((event) => [event.session.id, event.recoveredFrom])).toEqual([['rescued', 'lost-one']]);
  });

  it('compacted: the compactor runs after a final answer only, and the result is saved by flush', async () => {
    const { store, manager } = setup({ compactor: compaction.messageLimit({ maxMessages: 2 }) });
    const events: CompactedEvent[] = [];
    manager.on('compacted', (event) => events.push(event));
    const { id } = await manager.create({ messages: [Message.system('be brief')] });
    await manager.append(id, Message.user('q1'), Message.assistant('a1'));
    await manager.append(id, Message.user('q2'));
    // A tool call is not a final answer: no compaction mid tool loop.
    await manager.append(
      id,
      Message.assistant('', { toolCalls: [{ id: 'c1', name: 'look', arguments: {} }] }),
      Message.tool('c1', 'found'),
    );
    expect(events).toHaveLength(0);
    await manager.append(id, Message.assistant('a2'));
    expect(events).toHaveLength(1);
    expect(events[0]?.result.compacted).toBe(true);
    const compacted = await manager.load(id);
    expect(compacted.messages[0]?.content).toBe('be brief');
    expect(compacted.messages.some((message) => message.content === 'q1')).toBe(false);
    expect(manager.isDirty(id)).toBe(true);
    await manager.flush();
    expect((await store.load(id)).messages.map((message) => message.id)).toEqual(
      compacted.messages.map((message) => message.id),
    );
  });

  it('a listener that throws does not fail the write; it is reported as an error event', async () => {
    const { store, manager } = setup();
    const errors: string[] = [];
    manager.on('error', (_error, context) => errors.push(context.operation));
    manager.on('saved', () => {
      throw new Error('listener bug');
    });
    const session = await manager.create();
    expect((await store.load(session.id)).id).toBe(session.id);
    expect(errors).toEqual(['listener']);
  });
});
