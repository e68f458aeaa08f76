/**
 * Turns end to end through the real `openai` client: `Conversation` and `chatWithState` over
 * `openaiChatModel`, speaking HTTP to the local protocol server, which replays recorded Chat
 * Completions bodies and records what the client sent. Stores are real SQLite files.
 */
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { openaiChatModel } from '../../src/models/openai-chat.js';
import { chatWithState } from '../../src/runtime/chat-with-state.js';
import { Conversation } from '../../src/runtime/conversation.js';
import type { Tool } from '../../src/runtime/types.js';
import { decodeState } from '../../src/state/decode-state.js';
import { openaiBody } from '../support/protocol-fixtures.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { closeAfterTest, openStoreOf, snapshot } from './fixtures.js';

const fixture = openaiBody;

/** A recorded text answer with `content` in place of the recorded one. */
function textAnswer(content: string): Record<string, unknown> {
  const body = fixture('chat-text');
  const choices = body.choices as Array<{ message: Record<string, unknown> }>;
  return { ...body, choices: [{ ...choices[0], message: { ...choices[0]?.message, content } }] };
}

const weather: Tool = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: (args) => ({
    city: (args as { city: string }).city,
    sky: (args as { city: string }).city === 'Paris' ? 'rain' : 'sun',
  }),
};

let server: ProtocolServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startProtocolServer();
  client = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterEach(() => server.close());

/** The JSON body of the `index`th request. */
function sent(index: number): { messages: Array<Record<string, unknown>>; tools?: unknown[] } {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`no request #${index}`);
  return request.body as { messages: Array<Record<string, unknown>>; tools?: unknown[] };
}

describe('Conversation through the openai client', () => {
  it('runs parallel tools, sends the system prompt on every call, and stores the turn without it', async () => {
    const { store } = await openStoreOf('sqlite');
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const conversation = closeAfterTest(
      new Conversation({
        store,
        agents: { id: 'forecaster', model, tools: [weather], system: 'You report the weather.' },
      }),
    );
    server.enqueue({ body: fixture('chat-parallel-tool-calls') }, { body: textAnswer('Rain in Paris, sun in Tokyo.') });
    const result = await conversation.send('trip', 'Weather in Paris and Tokyo?');

    expect(Message.text(result.reply)).toBe('Rain in Paris, sun in Tokyo.');
    expect(result.usage).toEqual({ inputTokens: 96 + 2006, outputTokens: 52 + 9, cachedInputTokens: 1920 });
    expect(server.requests).toHaveLength(2);
    for (const index of [0, 1]) {
      expect(sent(index).messages[0]).toMatchObject({ content: 'You report the weather.' });
      expect(sent(index).tools).toHaveLength(1);
    }
    // The second call carries the calls and both results, in call order, right after them.
    expect(
      sent(1)
        .messages.slice(1)
        .map((message) => [message.role, message.tool_call_id ?? null]),
    ).toEqual([
      ['user', null],
      ['assistant', null],
      ['tool', 'call_K6Ka4fY4Q9OsR4lJtN7U0C9a'],
      ['tool', 'call_Ne2H9m7GqQ1bVd3uS5pLx8Zr'],
    ]);
    expect(sent(1).messages[3]?.content).toBe('{"city":"Paris","sky":"rain"}');

    const stored = await store.load('trip');
    expect(stored.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(stored.lastUsage).toEqual({ inputTokens: 2006, outputTokens: 9, cachedInputTokens: 1920, messageCount: 4 });
    expect(stored.agentId).toBe('forecaster');
  });

  it('sends the stored history back on the next turn and answers a retried input from the store', async () => {
    const { store } = await openStoreOf('sqlite');
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, system: 'Be brief.' } }));
    server.enqueue({ body: textAnswer('Paris.') }, { body: textAnswer('About 2.1 million.') });
    await conversation.send('geo', { id: 'q1', role: 'user', content: 'Capital of France?' });
    await conversation.send('geo', { id: 'q2', role: 'user', content: 'Population?' });
    expect(sent(1).messages.map((message) => message.content)).toEqual([
      'Be brief.',
      'Capital of France?',
      'Paris.',
      'Population?',
    ]);
    const retried = await conversation.send('geo', { id: 'q2', role: 'user', content: 'Population?' });
    expect(Message.text(retried.reply)).toBe('About 2.1 million.');
    expect(server.requests).toHaveLength(2);
    expect((await store.load('geo')).messages).toHaveLength(4);
  });

  it('stores nothing when the provider answers 500 or 429, and throws the typed error', async () => {
    const { store } = await openStoreOf('sqlite');
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [weather] } }));
    server.enqueue({ body: textAnswer('first') });
    await conversation.send('s1', 'hello');
    const before = await snapshot(store, 's1');
    server.enqueue({ body: fixture('chat-parallel-tool-calls') }, { status: 500, body: fixture('error-500') });
    await expect(conversation.send('s1', 'weather?')).rejects.toMatchObject({ code: 'MODEL_FAILED', status: 500 });
    server.enqueue({ status: 429, body: fixture('error-429') });
    await expect(conversation.send('s1', 'weather?')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(await snapshot(store, 's1')).toEqual(before);
  });

  it('stores nothing when the turn is aborted while the provider is answering', async () => {
    const { store } = await openStoreOf('sqlite');
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    const controller = new AbortController();
    server.respondWith(() => {
      controller.abort();
      return { body: textAnswer('too late'), delayMs: 2_000 };
    });
    await expect(conversation.send('s1', 'hello', { signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(await store.get('s1')).toBeUndefined();
  });
});

describe('chatWithState through the openai client', () => {
  it('carries the history in the state, the preamble only on the wire', async () => {
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    server.enqueue(
      { body: fixture('chat-parallel-tool-calls') },
      { body: textAnswer('Rain and sun.') },
      { body: textAnswer('Pack an umbrella.') },
    );
    const first = await chatWithState(
      model,
      undefined,
      [Message.system('Today is Monday.'), Message.user('Weather in Paris and Tokyo?')],
      { tools: [weather] },
    );
    const second = await chatWithState(model, first.state, 'What should I pack?', { system: 'Today is Tuesday.' });
    expect(sent(2).messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect(sent(2).messages[0]?.content).toBe('Today is Tuesday.');
    const decoded = decodeState(second.state, { provider: 'openaiChat' });
    expect(decoded.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(decoded.processedLength).toBe(7);
  });
});
