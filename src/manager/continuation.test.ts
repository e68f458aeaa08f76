import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryStore } from '../stores/memory.js';
import { estimate } from '../tokens/estimate.js';
import type { ContinuedEvent } from './events.js';
import { isTransitionMarker } from './continuation.js';
import { setup } from '../../test/support/managers.js';

const markersOf = (session: Session): Message[] => session.messages.filter((message) => isTransitionMarker(message));

describe('checkBoundary', () => {
  it('is true from maxMessagesPerSession messages on', () => {
    const { manager } = setup({ maxMessagesPerSession: 3 });
    const two = Session.create({ messages: [Message.user('a'), Message.assistant('b')] });
    expect(manager.checkBoundary(two)).toBe(false);
    expect(manager.checkBoundary(two.append(Message.user('c')))).toBe(true);
    expect(manager.checkBoundary(two.append(Message.user('c'), Message.user('d')))).toBe(true);
  });

  it('defaults to 5000 messages', () => {
    const { manager } = setup();
    expect(manager.maxMessagesPerSession).toBe(5000);
    expect(manager.maxSessionsInMemory).toBe(20);
  });
});

describe('continueSession', () => {
  it('carries system and context messages once, with new ids, and adds one transition marker', async () => {
    const { store, manager } = setup();
    const source = await manager.create({
      agentId: 'helper',
      userId: 'ann',
      variables: { plan: 'A' },
      metadata: { project: 'x' },
      messages: [
        Message.system('You are helpful.'),
        Message.context('Docs: the API.'),
        Message.user('hi'),
        Message.assistant('hello'),
      ],
    });
    const successor = await manager.continueSession(source.id);
    expect(successor.messages.map((message) => [message.category, message.content])).toEqual([
      ['system', 'You are helpful.'],
      ['context', 'Docs: the API.'],
      ['context', expect.stringContaining(source.id)],
    ]);
    const sourceIds = new Set(source.messages.map((message) => message.id));
    expect(successor.messages.some((message) => sourceIds.has(message.id))).toBe(false);
    expect(markersOf(successor)).toHaveLength(1);
    expect(successor.metadata).toEqual({ project: 'x', continuedFrom: source.id, continuationIndex: 1 });
    expect([successor.agentId, successor.userId, successor.variables]).toEqual(['helper', 'ann', { plan: 'A' }]);
    // Both ends of the link are stored.
    expect((await store.load(source.id)).metadata.continuedTo).toBe(successor.id);
    expect((await store.load(successor.id)).metadata.continuedFrom).toBe(source.id);
  });

  it('a chain of three links has exactly one marker per link and continuationIndex 1, 2', async () => {
    const { store, manager } = setup();
    const root = await manager.create({
      messages: [Message.system('rules'), Message.context('facts'), Message.user('q')],
    });
    const second = await manager.continueSession(root);
    await manager.append(second.id, Message.user('more'), Message.context('new fact'));
    const third = await manager.continueSession(second.id);
    const [storedRoot, storedSecond, storedThird] = await Promise.all(
      [root.id, second.id, third.id].map((id) => store.load(id)),
    );
    expect(markersOf(storedRoot as Session)).toHaveLength(0);
    expect(markersOf(storedSecond as Session)).toHaveLength(1);
    expect(markersOf(storedThird as Session)).toHaveLength(1);
    expect(markersOf(storedThird as Session)[0]?.content).toContain(second.id);
    expect([storedSecond?.metadata.continuationIndex, storedThird?.metadata.continuationIndex]).toEqual([1, 2]);
    expect(
      storedThird?.messages
        .map((message) => message.content)
        .filter((content) => !String(content).startsWith('This session')),
    ).toEqual(['rules', 'facts', 'new fact']);
    expect([storedRoot?.metadata.continuedTo, storedSecond?.metadata.continuedTo]).toEqual([second.id, third.id]);
  });

  it('continuationIndex is the depth, not the number of siblings', async () => {
    const { manager } = setup();
    // Penguin counted continuations of the same original; two separate roots must each start at 1.
    const first = await manager.continueSession((await manager.create()).id);
    const other = await manager.continueSession((await manager.create()).id);
    expect([first.metadata.continuationIndex, other.metadata.continuationIndex]).toEqual([1, 1]);
  });

  it('a session can be continued only once: CONFLICT, and no orphan is left', async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    await manager.continueSession(id);
    const before = (await store.list()).length;
    await expect(manager.continueSession(id)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.list()).length).toBe(before);
  });

  it('a race to continue from two managers leaves one successor linked and removes the other', async () => {
    const store = memoryStore();
    const alice = setup({ store }).manager;
    const bob = setup({ store }).manager;
    const { id } = await alice.create({ messages: [Message.user('hi')] });
    await bob.load(id);
    const winner = await alice.continueSession(id);
    await expect(bob.continueSession(id)).rejects.toMatchObject({ code: 'CONFLICT' });
    const ids = (await store.list()).map((row) => row.id).sort();
    expect(ids).toEqual([id, winner.id].sort());
    expect((await store.load(id)).metadata.continuedTo).toBe(winner.id);
  });

  it("stores the source's unsaved local changes along with the link", async () => {
    const { store, manager } = setup();
    const { id } = await manager.create();
    await manager.update(id, (session) => session.withVariable('last', 'words'));
    const successor = await manager.continueSession(id);
    const stored = await store.load(id);
    expect(stored.variables.last).toBe('words');
    expect(stored.metadata.continuedTo).toBe(successor.id);
    expect(successor.variables.last).toBe('words');
  });

  it('a successor of a recovery session does not claim to be one', async () => {
    const { store, manager } = setup();
    await store.save(
      Session.create({
        id: 'rescued',
        metadata: { recoveredFrom: 'rescued', reason: 'snapshot: garbage', keptAside: ['lost+found/x'], project: 'p' },
      }),
    );
    const successor = await manager.continueSession('rescued');
    expect(successor.metadata).toEqual({ project: 'p', continuedFrom: 'rescued', continuationIndex: 1 });
  });

  it('emits continued with the successor and its depth', async () => {
    const { manager } = setup();
    const events: ContinuedEvent[] = [];
    manager.on('continued', (event) => events.push(event));
    const { id } = await manager.create();
    const successor = await manager.continueSession(id);
    expect(events).toEqual([{ from: id, session: successor, continuationIndex: 1 }]);
  });
});

describe('automatic continuation on append', () => {
  it('an append to a session at its boundary lands in a new successor and says so', async () => {
    const { store, manager } = setup({ maxMessagesPerSession: 4 });
    const { id } = await manager.create({ messages: [Message.system('rules')] });
    await manager.append(id, Message.user('q1'), Message.assistant('a1'), Message.user('q2'));
    const result = await manager.append(id, Message.assistant('a2'));
    expect(result.continuedFrom).toBe(id);
    expect(result.session.id).not.toBe(id);
    expect(result.session.messages.map((message) => message.content)).toEqual([
      'rules',
      expect.stringContaining(id),
      'a2',
    ]);
    expect((await store.load(result.session.id)).messages.at(-1)?.content).toBe('a2');
    expect((await store.load(id)).messages).toHaveLength(4);
  });

  it('an append through an old id follows the chain to its newest session', async () => {
    const { manager } = setup({ maxMessagesPerSession: 3 });
    const { id } = await manager.create();
    await manager.append(id, Message.user('1'), Message.assistant('2'), Message.user('3'));
    const second = await manager.append(id, Message.assistant('4'));
    // The successor holds its marker and '4'; '5' fills it to the boundary.
    await manager.append(second.session.id, Message.user('5'));
    const third = await manager.append(id, Message.assistant('6'));
    expect(third.continuedFrom).toBe(id);
    expect(third.session.metadata.continuationIndex).toBe(2);
    expect(third.session.messages.map((message) => message.content)).toEqual([
      expect.stringContaining(second.session.id),
      '6',
    ]);
  });

  it('the transition marker counts toward the boundary like any message', async () => {
    const { manager } = setup({ maxMessagesPerSession: 2 });
    const { id } = await manager.create();
    await manager.append(id, Message.user('1'), Message.assistant('2'));
    const second = await manager.append(id, Message.user('3'));
    const third = await manager.append(second.session.id, Message.assistant('4'));
    expect(third.continuedFrom).toBe(second.session.id);
    expect(third.session.metadata.continuationIndex).toBe(2);
  });

  it('never continues in the middle of a tool exchange', async () => {
    const { store, manager } = setup({ maxMessagesPerSession: 3 });
    const { id } = await manager.create();
    await manager.append(
      id,
      Message.user('weather?'),
      Message.assistant('', {
        toolCalls: [
          { id: 'c1', name: 'weather', arguments: {} },
          { id: 'c2', name: 'time', arguments: {} },
        ],
      }),
    );
    await manager.append(id, Message.tool('c1', 'sunny'));
    // At the boundary, but c2 has no result yet: the result must land beside its call.
    const result = await manager.append(id, Message.tool('c2', 'noon'));
    expect(result.continuedFrom).toBeUndefined();
    expect((await store.load(id)).messages).toHaveLength(4);
    const next = await manager.append(id, Message.assistant('Sunny at noon.'));
    expect(next.continuedFrom).toBe(id);
  });

  it('does not loop when the carried messages alone reach the boundary', async () => {
    const { manager } = setup({ maxMessagesPerSession: 2 });
    const { id } = await manager.create({ messages: [Message.system('s'), Message.context('c')] });
    // Only carried messages: continuing would make an equal session, at its boundary again.
    const first = await manager.append(id, Message.user('hello'));
    expect(first.continuedFrom).toBeUndefined();
    const second = await manager.append(id, Message.assistant('hi'));
    expect(second.continuedFrom).toBe(id);
    expect(second.session.messages.map((message) => message.content)).toEqual([
      's',
      'c',
      expect.stringContaining(id),
      'hi',
    ]);
  });

  it('a retried append adds nothing, also when the first attempt filled the session to its boundary', async () => {
    const { store, manager } = setup({ maxMessagesPerSession: 3 });
    const { id } = await manager.create();
    await manager.append(id, Message.user('1'));
    const message = Message.assistant('2');
    const filling = Message.user('3');
    await manager.append(id, message, filling);
    // The session is at its boundary now: a retry must not continue it and land the messages again.
    const retry = await manager.append(id, message, filling);
    expect(retry.continuedFrom).toBeUndefined();
    expect(retry.duplicates).toEqual([message.id, filling.id]);
    expect((await store.list()).map((row) => row.id)).toEqual([id]);
    // A batch with one new message continues, and only the new one lands in the successor.
    const fresh = Message.assistant('4');
    const mixed = await manager.append(id, filling, fresh);
    expect(mixed.continuedFrom).toBe(id);
    expect(mixed.duplicates).toEqual([filling.id]);
    expect(mixed.appended.map((each) => each.id)).toEqual([fresh.id]);
    // And a retry of that one goes to the successor, where it is a duplicate.
    const again = await manager.append(id, filling, fresh);
    expect(again.session.id).toBe(mixed.session.id);
    expect(again.appended).toEqual([]);
    expect((await store.load(mixed.session.id)).messages.filter((each) => each.id === fresh.id)).toHaveLength(1);
  });
});

describe('chainStats', () => {
  it('totals messages and tokens across the chain, from any of its ids', async () => {
    const { manager } = setup({ maxMessagesPerSession: 4 });
    const { id } = await manager.create({ messages: [Message.system('rules')] });
    await manager.append(id, Message.user('q1'), Message.assistant('a1'), Message.user('q2'));
    const second = (await manager.append(id, Message.assistant('a2'))).session;
    await manager.append(id, Message.user('q3'));
    const third = (await manager.append(id, Message.assistant('a3'))).session;
    expect(third.metadata.continuationIndex).toBe(2);
    const sessions = await Promise.all([id, second.id, third.id].map((each) => manager.load(each)));
    const expected = {
      ids: [id, second.id, third.id],
      links: sessions.map((session) => ({
        id: session.id,
        messageCount: session.messages.length,
        tokenCount: session.tokenCount(estimate),
      })),
      messageCount: sessions.reduce((sum, session) => sum + session.messages.length, 0),
      tokenCount: sessions.reduce((sum, session) => sum + session.tokenCount(estimate), 0),
      missing: [],
    };
    expect(expected.messageCount).toBe(4 + 4 + 3);
    expect(await manager.chainStats(id)).toEqual(expected);
    expect(await manager.chainStats(second.id)).toEqual(expected);
    expect(await manager.chainStats(third.id)).toEqual(expected);
  });

  it('a lone session is a chain of one', async () => {
    const { manager } = setup();
    const { id } = await manager.create({ messages: [Message.user('alone')] });
    const stats = await manager.chainStats(id);
    expect([stats.ids, stats.messageCount]).toEqual([[id], 1]);
  });

  it('names a deleted link as missing', async () => {
    const { manager } = setup();
    const { id } = await manager.create();
    const successor = await manager.continueSession(id);
    await manager.delete(id);
    const stats = await manager.chainStats(successor.id);
    expect([stats.ids, stats.missing]).toEqual([[successor.id], [id]]);
  });

  it('a cycle or a hostile link in stored metadata is CORRUPT, not an endless walk', async () => {
    const { store, manager } = setup();
    await store.save(Session.create({ id: 'loop-a', metadata: { continuedTo: 'loop-b' } }));
    await store.save(Session.create({ id: 'loop-b', metadata: { continuedTo: 'loop-a', continuedFrom: 'loop-a' } }));
    await expect(manager.chainStats('loop-a')).rejects.toMatchObject({ code: 'CORRUPT' });
    await expect(manager.append('loop-a', Message.user('x'))).rejects.toMatchObject({ code: 'CORRUPT' });
    await store.save(Session.create({ id: 'escape', metadata: { continuedFrom: '../../etc/passwd' } }));
    await expect(manager.chainStats('escape')).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});
