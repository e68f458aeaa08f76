/**
 * A failed turn stores nothing: after a model error, an abort (before, during the model call, in
 * the middle of a tool), the tool loop bound, or a `CONFLICT` with another writer, the store holds
 * exactly what it held before — checked by reading the store, not the conversation's cache.
 */
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import type { Tool } from '../../src/runtime/types.js';
import { callTools, say, scriptedModel, waitForAbort } from '../support/scripted-model.js';
import { STORE_KINDS, closeAfterTest, openStoreOf, snapshot } from './fixtures.js';

const noop: Tool = { name: 'noop', execute: () => 'ok' };

describe.each(STORE_KINDS)('a failed turn on the %s store', (kind) => {
  /** A store with session s1 holding one answered turn, a conversation over it, and the snapshot before the failing turn. */
  async function setup(tools: Tool[] = [noop], options: { maxIterations?: number } = {}) {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([say('first answer')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools }, ...options }));
    await conversation.send('s1', 'first question');
    return { store, model, conversation, before: await snapshot(store, 's1') };
  }

  it('keeps the session as it was when the model fails, with the provider error typed', async () => {
    const { store, model, conversation, before } = await setup();
    model.push({ error: Object.assign(new Error('upstream exploded'), { status: 500 }) });
    await expect(conversation.send('s1', 'second question')).rejects.toMatchObject({
      code: 'MODEL_FAILED',
      status: 500,
      retryable: true,
    });
    model.push({ error: Object.assign(new Error('slow down'), { status: 429 }) });
    await expect(conversation.send('s1', 'second question')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await snapshot(store, 's1')).toEqual(before);
  });

  it('keeps the session as it was when a model error comes after tools ran', async () => {
    const { store, model, conversation, before } = await setup();
    model.push(callTools([{ name: 'noop' }]), { error: new Error('lost connection') });
    await expect(conversation.send('s1', 'use a tool')).rejects.toMatchObject({ code: 'MODEL_FAILED' });
    expect(await snapshot(store, 's1')).toEqual(before);
  });

  it('fails with TOOL_LOOP_LIMIT after maxIterations calls and stores nothing', async () => {
    let runs = 0;
    const counted: Tool = { name: 'noop', execute: () => `run ${++runs}` };
    const { store, model, conversation, before } = await setup([counted], { maxIterations: 3 });
    model.push(
      callTools([{ name: 'noop' }]),
      callTools([{ name: 'noop' }]),
      callTools([{ name: 'noop' }]),
      say('never reached'),
    );
    await expect(conversation.send('s1', 'loop forever')).rejects.toMatchObject({
      code: 'TOOL_LOOP_LIMIT',
      details: { maxIterations: 3 },
    });
    // The third answer's tools are not run: their results could never reach the model.
    expect(runs).toBe(2);
    expect(model.requests).toHaveLength(1 + 3);
    expect(await snapshot(store, 's1')).toEqual(before);
  });

  it('stores nothing when aborted in the middle of a tool, even one that ignores its signal', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const stuck: Tool = {
      name: 'noop',
      execute: (_args, context) => {
        toolSignal = context.signal;
        controller.abort(new Error('user pressed stop'));
        return new Promise<never>(() => undefined);
      },
    };
    const { store, model, conversation, before } = await setup([stuck]);
    model.push(callTools([{ name: 'noop' }]), say('never reached'));
    await expect(conversation.send('s1', 'start the slow tool', { signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(toolSignal?.aborted).toBe(true);
    expect(model.requests).toHaveLength(2);
    expect(await snapshot(store, 's1')).toEqual(before);
  });

  it("refuses a tool that ignores the abort and writes the user's memory after the turn failed", async () => {
    const controller = new AbortController();
    let resume!: () => void;
    const gate = new Promise<void>((resolve) => (resume = resolve));
    let reportLate!: (outcome: Promise<string>) => void;
    const late = new Promise<Promise<string>>((resolve) => (reportLate = resolve));
    const stubborn: Tool = {
      name: 'noop',
      async execute(_args, context) {
        controller.abort();
        await gate;
        // Temp and session values die with the turn; user values and knowledge would outlive it.
        reportLate(
          Promise.all([
            context.memory.store('note', 'after the turn', { scope: 'temp' }),
            context.memory.store('note', 'after the turn', { scope: 'user' }).then(
              () => 'stored',
              (error: { code?: string }) => String(error.code),
            ),
            context.memory.remember('written after the turn').then(
              () => 'stored',
              (error: { code?: string }) => String(error.code),
            ),
          ]).then(([, user, knowledge]) => `${user} ${knowledge}`),
        );
        return 'done';
      },
    };
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([callTools([{ name: 'noop' }])]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [stubborn] } }));
    await expect(conversation.send('s1', 'go', { userId: 'u1', signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    resume();
    expect(await await late).toBe('ABORTED ABORTED');
    expect(await store.values.get({ scope: 'user', userId: 'u1' }, 'note')).toBeUndefined();
    expect(await store.list({ kinds: 'all' })).toEqual([]);
  });

  it('stores nothing when aborted during the model call or before the turn starts', async () => {
    const { store, model, conversation, before } = await setup();
    const controller = new AbortController();
    model.push((request) => {
      queueMicrotask(() => controller.abort());
      return (waitForAbort() as (r: typeof request) => Promise<never>)(request);
    });
    await expect(conversation.send('s1', 'second', { signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    const calls = model.requests.length;
    await expect(conversation.send('s1', 'third', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(model.requests).toHaveLength(calls);
    expect(await snapshot(store, 's1')).toEqual(before);
  });

  it('fails with CONFLICT when another writer appends during the turn, keeping exactly what that writer stored', async () => {
    const { store, model, conversation } = await setup();
    model.push(async () => {
      await store.append('s1', [Message.user('written by someone else', { id: 'other-1' })]);
      return say('answer to a stale history');
    });
    await expect(conversation.send('s1', 'second question')).rejects.toMatchObject({ code: 'CONFLICT' });
    const stored = await store.load('s1');
    expect(stored.messages.map((message) => Message.text(message))).toEqual([
      'first question',
      'first answer',
      'written by someone else',
    ]);
    // The next turn reads the store again and sees the other writer's message.
    model.push((request) => say(`I see ${request.messages.length} messages`));
    const retried = await conversation.send('s1', 'second question');
    expect(Message.text(retried.reply)).toBe('I see 4 messages');
    expect((await store.load('s1')).messages).toHaveLength(5);
  });

  it('fails with CONFLICT when another conversation on the same store finishes a turn first', async () => {
    const { store, model, conversation, before } = await setup();
    const otherModel = scriptedModel([say('the other answer')]);
    const other = closeAfterTest(new Conversation({ store, agents: { id: 'a', model: otherModel } }));
    model.push(async () => {
      await other.send('s1', 'meanwhile, elsewhere');
      return say('too late');
    });
    await expect(conversation.send('s1', 'second question')).rejects.toMatchObject({ code: 'CONFLICT' });
    const stored = await store.load('s1');
    expect(stored.messages.map((message) => Message.text(message))).toEqual([
      'first question',
      'first answer',
      'meanwhile, elsewhere',
      'the other answer',
    ]);
    expect(before).not.toEqual(await snapshot(store, 's1'));
  });

  it('fails with CONFLICT when another writer creates the same new session first', async () => {
    const { store } = await openStoreOf(kind);
    const otherModel = scriptedModel([say('theirs')]);
    const other = closeAfterTest(new Conversation({ store, agents: { id: 'a', model: otherModel } }));
    const model = scriptedModel([
      async () => {
        await other.send('fresh', 'created elsewhere');
        return say('mine');
      },
    ]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    await expect(conversation.send('fresh', 'hello')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.load('fresh')).messages.map((message) => Message.text(message))).toEqual([
      'created elsewhere',
      'theirs',
    ]);
  });

  it('stores session values a tool set with the turn, in the same write, and drops them with a failed turn', async () => {
    const setter: Tool = {
      name: 'noop',
      async execute(args, context) {
        await context.memory.store('mood', (args as { mood: string }).mood);
        await context.memory.store('scratch', 'for this turn only', { scope: 'temp' });
        return {
          saw: (await context.memory.get('scratch', { scope: 'temp' })) ?? null,
          before: (await context.memory.get('mood')) ?? null,
        };
      },
    };
    const { store, model, conversation, before } = await setup([setter]);
    model.push(callTools([{ name: 'noop', arguments: { mood: 'grumpy' } }]), { error: new Error('down') });
    await expect(conversation.send('s1', 'set a mood')).rejects.toMatchObject({ code: 'MODEL_FAILED' });
    expect(await snapshot(store, 's1')).toEqual(before);
    const version = (await store.load('s1')).version;
    model.push(callTools([{ name: 'noop', arguments: { mood: 'cheerful' } }]), say('mood set'));
    const result = await conversation.send('s1', 'set a mood');
    expect(Message.text(result.messages[2] as Message)).toBe('{"saw":"for this turn only","before":"cheerful"}');
    const stored = await store.load('s1');
    expect(stored.variables).toEqual({ mood: 'cheerful' });
    // Messages, variables and usage in one append: one version step.
    expect(stored.version).toBe(version + 1);
    // The temp value lived for that turn only.
    const reader: Tool = {
      name: 'noop',
      execute: async (_args, context) =>
        (await context.memory.get('scratch', { scope: 'temp', default: 'gone' })) ?? null,
    };
    const next = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [reader] } }));
    model.push(callTools([{ name: 'noop' }]), say('checked'));
    const checked = await next.send('s1', 'is the scratch value still there?');
    expect(Message.text(checked.messages[2] as Message)).toBe('gone');
  });

  it('stores nothing when the system prompt cannot be built', async () => {
    const { store } = await openStoreOf(kind);
    const model = scriptedModel([]);
    const conversation = closeAfterTest(
      new Conversation({
        store,
        agents: {
          id: 'a',
          model,
          system: () => {
            throw new Error('prompt template missing');
          },
        },
      }),
    );
    await expect(conversation.send('s1', 'hi')).rejects.toThrow('prompt template missing');
    expect(await store.get('s1')).toBeUndefined();
    expect(model.requests).toHaveLength(0);
  });
});
