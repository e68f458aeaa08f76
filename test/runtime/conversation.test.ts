/**
 * `Conversation.send` on real stores (memory, file, SQLite) with a scripted model: what a turn
 * stores, what the model is sent, usage, agents, retries, and concurrency within one process.
 */
import { knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/session-manager.js';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import type { Agent, Tool } from '../../src/runtime/types.js';
import { Session } from '../../src/session/session.js';
import { callTools, say, scriptedModel } from '../support/scripted-model.js';
import { STORE_KINDS, closeAfterTest, openStoreOf, shape } from './fixtures.js';

const echo: Tool = {
  name: 'echo',
  description: 'Returns its arguments.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (args) => args,
};

describe.each(STORE_KINDS)('Conversation on the %s store', (kind) => {
  it('stores the input and the reply in one write and returns the session as stored', async () => {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([say('Hello! How can I help?', { inputTokens: 12, outputTokens: 7 })]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'helper', model } }));
    const result = await conversation.send('s1', 'Hi there');
    expect(result.reply.content).toBe('Hello! How can I help?');
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(result.iterations).toBe(1);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
    const stored = await store.load('s1');
    expect(shape(result.session)).toEqual(shape(stored));
    expect(stored.messages.map((message) => message.id)).toEqual(result.messages.map((message) => message.id));
    // The usage measured the prompt: the history up to (not including) the reply.
    expect(stored.lastUsage).toEqual({ inputTokens: 12, outputTokens: 7, messageCount: 1 });
    // A new session keeps the agent of its first turn.
    expect(stored.agentId).toBe('helper');
  });

  it('sends the system prompt fresh on every call and never stores it', async () => {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([callTools([{ name: 'echo', arguments: { text: 'x' } }]), say('done'), say('again')]);
    let built = 0;
    const agent: Agent = {
      id: 'a',
      model,
      tools: [echo],
      system: (session) => `You are agent a. Turn prompt ${++built}; ${session.messages.length} messages so far.`,
    };
    const conversation = closeAfterTest(new Conversation({ store, agents: agent }));
    await conversation.send('s1', 'first');
    await conversation.send('s1', 'second');
    expect(model.requests.map((request) => request.system)).toEqual([
      'You are agent a. Turn prompt 1; 0 messages so far.',
      'You are agent a. Turn prompt 1; 0 messages so far.',
      'You are agent a. Turn prompt 2; 4 messages so far.',
    ]);
    for (const request of model.requests)
      expect(request.messages.some((message) => message.role === 'system')).toBe(false);
    const stored = await store.load('s1');
    expect(stored.messages.some((message) => message.role === 'system')).toBe(false);
    expect(stored.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    // A prompt passed as the first input of a session would be stored and resent, stale, on every turn: refused, nothing stored.
    await expect(
      conversation.send('s2', [Message.system('You are someone else.'), Message.user('hi')]),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await store.get('s2')).toBeUndefined();
    // Later in a conversation, a system message is an event of it, and is stored.
    model.push(say('noted'));
    await conversation.send('s1', [Message.system('The user switched to mobile.'), Message.user('still there?')]);
    expect((await store.load('s1')).messages.at(-3)?.role).toBe('system');
  });

  it('runs the tool loop and stores every message in order, with usage summed over the calls', async () => {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([
      callTools([{ id: 'c1', name: 'echo', arguments: { text: 'one' } }], {
        inputTokens: 100,
        outputTokens: 10,
        cachedInputTokens: 50,
      }),
      callTools([{ id: 'c2', name: 'echo', arguments: { text: 'two' } }], { inputTokens: 130, outputTokens: 12 }),
      say('both done', { inputTokens: 160, outputTokens: 20 }),
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [echo] } }));
    const result = await conversation.send('s1', 'echo twice');
    expect(result.iterations).toBe(3);
    expect(result.usage).toEqual({ inputTokens: 390, outputTokens: 42, cachedInputTokens: 50 });
    const stored = await store.load('s1');
    expect(
      stored.messages.map((message) => [
        message.role,
        message.toolCallId ?? message.toolCalls?.[0]?.id ?? Message.text(message),
      ]),
    ).toEqual([
      ['user', 'echo twice'],
      ['assistant', 'c1'],
      ['tool', 'c1'],
      ['assistant', 'c2'],
      ['tool', 'c2'],
      ['assistant', 'both done'],
    ]);
    expect(Message.text(stored.messages[2] as Message)).toBe('{"text":"one"}');
    // The model saw each tool result before answering.
    expect(model.requests[1]?.messages.at(-1)?.toolCallId).toBe('c1');
    expect(model.requests[2]?.messages.length).toBe(5);
    // The recorded usage is the last call's, tied to the five messages of its prompt.
    expect(stored.lastUsage).toEqual({ inputTokens: 160, outputTokens: 20, messageCount: 5 });
    expect(result.messages.map((message) => message.seq)).toEqual(stored.messages.map((message) => message.seq));
  });

  it('persists the agent a turn assigns, so later turns (after a restart too) use it', async () => {
    const opened = await openStoreOf(kind);
    const first = scriptedModel([say('from a')]);
    const second = scriptedModel([say('from b'), say('b again')]);
    const agents = [
      { id: 'a', model: first, system: 'You are a.' },
      { id: 'b', model: second, system: 'You are b.' },
    ];
    const conversation = closeAfterTest(new Conversation({ store: opened.store, agents, defaultAgentId: 'a' }));
    await conversation.send('s1', 'hello');
    expect((await opened.store.load('s1')).agentId).toBe('a');
    await conversation.send('s1', 'switch to b', { agentId: 'b' });
    expect((await opened.store.load('s1')).agentId).toBe('b');
    await conversation.close();
    const store = kind === 'memory' ? opened.store : await opened.reopen();
    const later = closeAfterTest(new Conversation({ store, agents, defaultAgentId: 'a' }));
    const result = await later.send('s1', 'who is this?');
    expect(Message.text(result.reply)).toBe('b again');
    expect(first.requests).toHaveLength(1);
    expect(second.requests.map((request) => request.system)).toEqual(['You are b.', 'You are b.']);
    expect((await store.load('s1')).messages).toHaveLength(6);
  });

  it('returns the stored reply for a retried input instead of calling the model again', async () => {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([say('the answer')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    const input = { id: 'user-msg-1', role: 'user' as const, content: 'What is the answer?' };
    const first = await conversation.send('s1', input);
    const retried = await conversation.send('s1', input);
    expect(model.requests).toHaveLength(1);
    expect(retried.iterations).toBe(0);
    expect(retried.reply.id).toBe(first.reply.id);
    expect(retried.messages.map((message) => message.id)).toEqual(first.messages.map((message) => message.id));
    expect((await store.load('s1')).messages).toHaveLength(2);
    // Through a second conversation too (another process would see the same store).
    const other = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    expect((await other.send('s1', [input])).reply.id).toBe(first.reply.id);
    expect(model.requests).toHaveLength(1);
  });

  it('answers an input that is stored but unanswered without storing it twice', async () => {
    const { store } = await openStoreOf(kind);
    await store.save(Session.create({ id: 's1', messages: [Message.user('queued question', { id: 'q1' })] }));
    const model = scriptedModel([say('queued answer')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    const result = await conversation.send('s1', Message.user('queued question', { id: 'q1' }));
    expect(result.messages.map((message) => message.role)).toEqual(['assistant']);
    expect((await store.load('s1')).messages.map((message) => message.id)).toEqual(['q1', result.reply.id]);
  });

  it('runs a turn on a continued session at the end of its chain, and finds a retried turn in the session it filled', async () => {
    const { store } = await openStoreOf(kind);
    const manager = new SessionManager({ store, autoSaveIntervalMs: false });
    const model = scriptedModel([
      say('first answer'),
      (request) => say(`seen ${request.messages.map((message) => Message.text(message)).join(' | ')}`),
    ]);
    const conversation = closeAfterTest(new Conversation({ manager, agents: { id: 'a', model, system: 'Be brief.' } }));
    const question = Message.user('first question', { id: 'q1' });
    const first = await conversation.send('root', question);
    const successor = await manager.continueSession('root');
    const second = await conversation.send('root', 'second question');
    expect(second.session.id).toBe(successor.id);
    expect(second.continuedFrom).toBe('root');
    // The model saw the successor: its transition marker and the new question, not the old dialog.
    expect(Message.text(second.reply)).not.toContain('first question');
    expect(Message.text(second.reply)).toContain('second question');
    expect((await store.load('root')).messages.map((message) => message.id)).toEqual(
      first.session.messages.map((message) => message.id),
    );
    const retried = await conversation.send('root', question);
    expect(retried.iterations).toBe(0);
    expect(retried.reply.id).toBe(first.reply.id);
    expect(model.requests).toHaveLength(2);
    await manager.close();
  });

  it('with continueAtBoundary, continues a session a turn filled, after storing the turn, and runs later turns in the successor', async () => {
    const { store } = await openStoreOf(kind);
    const manager = new SessionManager({ store, autoSaveIntervalMs: false, maxMessagesPerSession: 4 });
    const model = scriptedModel([
      say('one'),
      callTools([{ name: 'echo', arguments: { text: 'x' } }]),
      say('two'),
      { error: new Error('down') },
      say('three'),
    ]);
    const conversation = closeAfterTest(
      new Conversation({ manager, continueAtBoundary: true, agents: { id: 'a', model, tools: [echo] } }),
    );
    const first = await conversation.send('s1', 'first');
    expect(first.continuedTo).toBeUndefined();
    // Four more messages in one turn (call, result, answer): stored whole in s1, which is then continued.
    const second = await conversation.send('s1', 'use the tool');
    expect(second.session.id).toBe('s1');
    expect(second.session.messages).toHaveLength(6);
    const successor = second.continuedTo as string;
    expect(successor).toBeDefined();
    expect((await store.load('s1')).metadata.continuedTo).toBe(successor);
    // A failed turn in the successor stores nothing there.
    const before = (await store.load(successor)).messages.map((message) => message.id);
    await expect(conversation.send('s1', 'fails')).rejects.toMatchObject({ code: 'MODEL_FAILED' });
    expect((await store.load(successor)).messages.map((message) => message.id)).toEqual(before);
    const third = await conversation.send('s1', 'next');
    expect(third.continuedFrom).toBe('s1');
    expect(third.session.id).toBe(successor);
    expect(third.session.metadata.continuedFrom).toBe('s1');
    expect(third.session.messages.slice(-2).map((message) => Message.text(message))).toEqual(['next', 'three']);
    await manager.close();
  });

  it('runs turns of one session one after another', async () => {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([
      (request) => say(`seen ${request.messages.length}`),
      (request) => say(`seen ${request.messages.length}`),
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    const [one, two] = await Promise.all([conversation.send('s1', 'one'), conversation.send('s1', 'two')]);
    expect(Message.text(one.reply)).toBe('seen 1');
    expect(Message.text(two.reply)).toBe('seen 3');
    expect((await store.load('s1')).messages.map((message) => Message.text(message))).toEqual([
      'one',
      'seen 1',
      'two',
      'seen 3',
    ]);
  });
});

describe('Conversation agents and users', () => {
  it('rejects an unknown agent before calling any model, storing nothing', async () => {
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([]);
    const conversation = closeAfterTest(new Conversation({ store, agents: [{ id: 'a', model }] }));
    await expect(conversation.send('s1', 'hi', { agentId: 'nobody' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await store.get('s1')).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });

  it('needs an agent for a session without one when there is no default', async () => {
    const { store } = await openStoreOf('memory');
    const conversation = closeAfterTest(
      new Conversation({
        store,
        agents: [
          { id: 'a', model: scriptedModel() },
          { id: 'b', model: scriptedModel() },
        ],
      }),
    );
    await expect(conversation.send('s1', 'hi')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('no default agent'),
    });
  });

  it("creates a new session for the given user and refuses another user's session", async () => {
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([say('hi alice')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    await conversation.send('s1', 'hi', { userId: 'alice' });
    expect((await store.load('s1')).userId).toBe('alice');
    await expect(conversation.send('s1', 'let me in', { userId: 'mallory' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect((await store.load('s1')).messages).toHaveLength(2);
  });

  it('refuses continuation links that loop, and a chain that runs into another user’s session, storing nothing', async () => {
    const { store } = await openStoreOf('memory');
    await store.save(
      Session.create({ id: 'a', userId: 'u1', metadata: { continuedTo: 'b' }, messages: [Message.user('hello')] }),
    );
    await store.save(
      Session.create({
        id: 'b',
        userId: 'u1',
        metadata: { continuedTo: 'a', continuedFrom: 'a' },
        messages: [Message.user('again')],
      }),
    );
    await store.save(
      Session.create({ id: 'c', userId: 'u1', metadata: { continuedTo: 'd' }, messages: [Message.user('mine')] }),
    );
    await store.save(Session.create({ id: 'd', userId: 'u2', messages: [Message.user('theirs')] }));
    const model = scriptedModel([say('never')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    await expect(conversation.send('a', 'hi', { userId: 'u1' })).rejects.toMatchObject({ code: 'CORRUPT' });
    await expect(conversation.send('c', 'hi', { userId: 'u1' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(model.requests).toHaveLength(0);
    expect((await store.load('d')).messages).toHaveLength(1);
  });

  it('checks its options', async () => {
    const { store } = await openStoreOf('memory');
    const model = scriptedModel();
    const bad: Array<[string, () => unknown]> = [
      ['no agents', () => new Conversation({ store, agents: [] })],
      [
        'both store and manager',
        () =>
          new Conversation({
            store,
            manager: new SessionManager({ store, autoSaveIntervalMs: false }),
            agents: { id: 'a', model },
          }),
      ],
      ['neither store nor manager', () => new Conversation({ agents: { id: 'a', model } } as never)],
      [
        'duplicate agent ids',
        () =>
          new Conversation({
            store,
            agents: [
              { id: 'a', model },
              { id: 'a', model },
            ],
          }),
      ],
      ['unknown default', () => new Conversation({ store, agents: { id: 'a', model }, defaultAgentId: 'b' })],
      ['maxIterations 0', () => new Conversation({ store, agents: { id: 'a', model }, maxIterations: 0 })],
      [
        'a bad tool name',
        () => new Conversation({ store, agents: { id: 'a', model, tools: [{ ...echo, name: 'no spaces allowed' }] } }),
      ],
      [
        'a tool clashing with the memory tools',
        () =>
          new Conversation({
            store,
            agents: { id: 'a', model, memoryTools: true, tools: [{ ...echo, name: 'recall' }] },
          }),
      ],
      [
        'a tool without execute',
        () => new Conversation({ store, agents: { id: 'a', model, tools: [{ name: 'x' } as Tool] } }),
      ],
      [
        'a tool whose recall is not a boolean',
        () => new Conversation({ store, agents: { id: 'a', model, tools: [{ ...echo, recall: 'no' as never }] } }),
      ],
      ['a model that is not one', () => new Conversation({ store, agents: { id: 'a', model: {} as never } })],
      [
        'continueAtBoundary not a boolean',
        () => new Conversation({ store, agents: { id: 'a', model }, continueAtBoundary: 'yes' as never }),
      ],
    ];
    for (const [what, make] of bad) expect(make, what).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    await expect(conversation.send('../etc', 'hi')).rejects.toMatchObject({ code: 'INVALID_ID' });
    // Knowledge session ids are derived from user ids: a turn must not squat another user's.
    await expect(conversation.send(knowledgeSessionId('victim'), 'hi', { userId: 'attacker' })).rejects.toMatchObject({
      code: 'INVALID_ID',
    });
    expect(await store.get(knowledgeSessionId('victim'))).toBeUndefined();
    await expect(conversation.send('s1', '')).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
    await expect(conversation.send('s1', [])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // Entries that are not messages at all are typed errors too, not a TypeError from reading their id.
    for (const entry of [null, 42, 'hi'])
      await expect(conversation.send('s1', [Message.user('ok'), entry as never])).rejects.toMatchObject({
        code: 'INVALID_MESSAGE',
      });
    await expect(conversation.send('s1', 'hi', { signal: 'stop' as never })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
