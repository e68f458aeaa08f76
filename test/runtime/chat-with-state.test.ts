/**
 * `chatWithState` (goaitools' ChatWithState): the opaque state in and out, the preamble never
 * stored, bad state degrading to an empty history, `processedLength`, the shared tool loop and
 * compaction after the answer.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { messageLimit } from '../../src/compaction/message-limit.js';
import { Message } from '../../src/message/message.js';
import { StateTooLargeError, chatWithState } from '../../src/runtime/chat-with-state.js';
import type { Tool } from '../../src/runtime/types.js';
import { appendToState } from '../../src/state/append-to-state.js';
import { decodeState } from '../../src/state/decode-state.js';
import { encodeState } from '../../src/state/encode-state.js';
import { isEncryptedBlob } from '../../src/state/envelope.js';
import { callTools, say, scriptedModel } from '../support/scripted-model.js';

const KEY = 'a long enough secret for state!';

describe('chatWithState', () => {
  it('keeps the history in the state across calls, with the preamble sent but never stored', async () => {
    const model = scriptedModel([say('Hello!'), say('Warm and sunny.')]);
    const first = await chatWithState(model, undefined, [Message.system('Now is 10:00.'), Message.user('Hello')], {
      system: 'You are helpful.',
    });
    expect(model.requests[0]?.system).toEqual([
      expect.objectContaining({ content: 'You are helpful.' }),
      expect.objectContaining({ content: 'Now is 10:00.' }),
    ]);
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(['user']);
    const decoded = decodeState(first.state, { provider: 'openaiChat' });
    expect(decoded.messages.map((message) => Message.text(message))).toEqual(['Hello', 'Hello!']);
    expect(decoded.processedLength).toBe(2);
    expect(first.rejected).toBeUndefined();

    const second = await chatWithState(model, first.state, "What's the weather?", {
      system: 'You are helpful (updated).',
    });
    expect(model.requests[1]?.system).toBe('You are helpful (updated).');
    expect(model.requests[1]?.messages.map((message) => Message.text(message))).toEqual([
      'Hello',
      'Hello!',
      "What's the weather?",
    ]);
    expect(decodeState(second.state, { provider: 'openaiChat' }).messages).toHaveLength(4);
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('starts over from an empty history, and says why, when the state is unusable', async () => {
    const model = scriptedModel([say('fresh'), say('fresh again'), say('and again')]);
    const garbage = await chatWithState(model, 'not a state at all', 'hi');
    expect(garbage.rejected?.reason).toBe('invalid');
    expect(model.requests[0]?.messages).toHaveLength(1);
    const foreign = encodeState([Message.user('hi'), Message.assistant('hello')], { provider: 'anthropic' });
    expect((await chatWithState(model, foreign, 'hi')).rejected?.reason).toBe('provider');
    const forged = encodeState([Message.user('hi'), Message.assistant('hello')], {
      provider: 'openaiChat',
      key: 'another long secret value!!',
    });
    const result = await chatWithState(model, forged, 'hi', { key: KEY });
    expect(result.rejected?.reason).toBe('signature');
    expect(decodeState(result.state, { provider: 'openaiChat', key: KEY }).messages).toHaveLength(2);
  });

  it('keeps a signed, encrypted state encrypted', async () => {
    const model = scriptedModel([say('one'), say('two')]);
    const first = await chatWithState(model, undefined, 'secret plans', { key: KEY, encrypt: true });
    expect(isEncryptedBlob(first.state)).toBe(true);
    expect(first.state).not.toContain('secret plans');
    const second = await chatWithState(model, first.state, 'more', { key: KEY });
    expect(isEncryptedBlob(second.state)).toBe(true);
    expect(decodeState(second.state, { provider: 'openaiChat', key: KEY }).messages).toHaveLength(4);
  });

  it('answers what appendToState added without a model call, and then counts it as processed', async () => {
    const model = scriptedModel([say('Hi.'), say('It is a theatre from 1900.')]);
    const first = await chatWithState(model, undefined, 'Hi');
    const appended = appendToState(first.state, [Message.user('User checked in at Harrogate Theatre')], {
      provider: 'openaiChat',
    });
    expect(decodeState(appended.state, { provider: 'openaiChat' }).processedLength).toBe(2);
    const second = await chatWithState(model, appended.state, 'Tell me about this place');
    expect(model.requests[1]?.messages.map((message) => Message.text(message))).toEqual([
      'Hi',
      'Hi.',
      'User checked in at Harrogate Theatre',
      'Tell me about this place',
    ]);
    const decoded = decodeState(second.state, { provider: 'openaiChat' });
    expect(decoded.processedLength).toBe(5);
    expect(decoded.messages).toHaveLength(5);
  });

  it('answers the history alone when given no new input', async () => {
    const model = scriptedModel([say('Welcome back.')]);
    const state = appendToState(undefined, [Message.user('User opened the app')], { provider: 'openaiChat' }).state;
    const result = await chatWithState(model, state, []);
    expect(Message.text(result.reply)).toBe('Welcome back.');
    expect(decodeState(result.state, { provider: 'openaiChat' }).messages).toHaveLength(2);
  });

  it('runs tools with the same loop, and gives them the history without a store', async () => {
    const peek: Tool = {
      name: 'peek',
      async execute(_args, context) {
        const page = await context.memory.history({ limit: 10 });
        return page.messages.map((message) => Message.text(message));
      },
    };
    const remember: Tool = {
      name: 'keep',
      execute: async (_args, context) => context.memory.store('fact', 'x', { scope: 'user' }) as never,
    };
    const model = scriptedModel([
      callTools([
        { id: 'p', name: 'peek' },
        { id: 'k', name: 'keep' },
      ]),
      say('done'),
    ]);
    const result = await chatWithState(model, undefined, 'look back', { tools: [peek, remember] });
    const results = result.messages
      .filter((message) => message.role === 'tool')
      .map((message) => Message.text(message));
    expect(results[0]).toBe('["look back"]');
    expect(results[1]).toMatch(/^Error: keep failed: chatWithState keeps no store, so the user scope is not available/);
    expect(decodeState(result.state, { provider: 'openaiChat' }).messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
  });

  it('compacts after the final answer and stores the compacted history', async () => {
    const model = scriptedModel([say('a1'), say('a2'), say('a3')]);
    const compactor = messageLimit({ maxMessages: 2 });
    let state: string | undefined;
    for (const question of ['q1', 'q2', 'q3']) {
      const result = await chatWithState(model, state, question, { compactor });
      state = result.state;
    }
    expect(decodeState(state, { provider: 'openaiChat' }).messages.map((message) => Message.text(message))).toEqual([
      'q3',
      'a3',
    ]);
  });

  it('throws on a failed turn, so the caller keeps the state it had', async () => {
    const model = scriptedModel([{ error: Object.assign(new Error('overloaded'), { status: 529 }) }]);
    await expect(chatWithState(model, undefined, 'hi')).rejects.toMatchObject({ code: 'MODEL_FAILED', status: 529 });
    const looping = scriptedModel([callTools([{ name: 'x' }]), callTools([{ name: 'x' }])]);
    await expect(chatWithState(looping, undefined, 'hi', { maxIterations: 2 })).rejects.toMatchObject({
      code: 'TOOL_LOOP_LIMIT',
    });
    await expect(
      chatWithState(scriptedModel([]), undefined, 'hi', { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('gives the answer on the TOO_LARGE error when the new state would pass maxBytes, and the old state still works', async () => {
    // Random text: the state is compressed, so a repeated one would stay small.
    const long = `A long answer: ${randomBytes(2_000).toString('hex')}`;
    const model = scriptedModel([say('short'), say(long), say('after compacting')]);
    const first = await chatWithState(model, undefined, 'Hi', { maxBytes: 2_000 });
    const error: unknown = await chatWithState(model, first.state, 'Tell me everything', { maxBytes: 2_000 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StateTooLargeError);
    const tooLarge = error as StateTooLargeError;
    expect(tooLarge.code).toBe('TOO_LARGE');
    expect(Message.text(tooLarge.reply)).toBe(long);
    expect(tooLarge.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    // Content stays out of the details, which are for logs.
    expect(JSON.stringify(tooLarge.details)).not.toContain('A long answer');
    const next = await chatWithState(model, first.state, 'Briefly, then', {
      maxBytes: 2_000,
      compactor: messageLimit({ maxMessages: 2 }),
    });
    expect(Message.text(next.reply)).toBe('after compacting');
  });

  it('throws for bad options instead of discarding the state', async () => {
    const model = scriptedModel([]);
    await expect(chatWithState(model, undefined, 'hi', { key: 'short' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(chatWithState(model, undefined, 'hi', { maxIterations: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(chatWithState(model, undefined, 'hi', { encrypt: true })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(chatWithState({} as never, undefined, 'hi')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(chatWithState(model, undefined, [null] as never)).rejects.toMatchObject({ code: 'INVALID_MESSAGE' });
    // Nothing to answer: no history, and no input past the system prompt.
    await expect(chatWithState(model, undefined, [])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(chatWithState(model, 'not a state', [Message.system('Be brief.')])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(
      chatWithState(model, undefined, 'hi', { tools: [{ name: 'odd', execute: () => 'x', recall: 0 as never }] }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('recall') });
    await expect(chatWithState(model, undefined, 'hi', { tools: [{ name: 'none' } as never] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('no execute'),
    });
    const tool = { name: 'twice', execute: () => 'x' };
    await expect(chatWithState(model, undefined, 'hi', { tools: [tool, tool] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(model.requests).toHaveLength(0);
  });
});
