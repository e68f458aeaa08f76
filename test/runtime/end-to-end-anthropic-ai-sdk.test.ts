/**
 * Turns end to end through the real `@anthropic-ai/sdk` client and the real `generateText` of `ai`
 * (with `@ai-sdk/openai`), against the local protocol server replaying recorded bodies: a tool
 * loop, provider parts (Anthropic thinking signatures) kept across the loop and across turns, a
 * provider failure that stores nothing, and the agent's memory tools. Stores are real files.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formats } from '../../src/formats/index.js';
import { Message } from '../../src/message/message.js';
import { aiSdkModel } from '../../src/models/ai-sdk.js';
import { anthropicModel } from '../../src/models/anthropic.js';
import { Conversation } from '../../src/runtime/conversation.js';
import type { Tool } from '../../src/runtime/types.js';
import { recordedAnswer } from '../support/protocol-fixtures.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { closeAfterTest, openStoreOf, snapshot } from './fixtures.js';

const fixture = recordedAnswer;

const weather: Tool = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: (args) => ({ city: (args as { city: string }).city, sky: 'cloudy', celsius: 18 }),
};

let server: ProtocolServer;
beforeEach(async () => {
  server = await startProtocolServer();
});
afterEach(() => server.close());

function body(index: number): Record<string, unknown> {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`no request #${index}`);
  return request.body as Record<string, unknown>;
}

describe('Conversation through the @anthropic-ai/sdk client', () => {
  function conversationOver(store: Awaited<ReturnType<typeof openStoreOf>>['store']): Conversation {
    const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
    const model = anthropicModel({ client, model: 'claude-sonnet-4-6', maxTokens: 1024 });
    return closeAfterTest(
      new Conversation({ store, agents: { id: 'claude', model, tools: [weather], system: 'You report the weather.' } }),
    );
  }

  it('runs the tool loop, sends thinking blocks back with their signatures, and keeps them for the next turn', async () => {
    const { store } = await openStoreOf('file');
    const conversation = conversationOver(store);
    server.enqueue(fixture('anthropic', 'thinking-tool-use'), fixture('anthropic', 'after-tool-results'));
    const turn = await conversation.send('paris', 'Weather in Paris?');
    expect(Message.text(turn.reply)).toBe('Paris is 18°C and cloudy; Rome is 24°C and sunny.');
    expect(turn.iterations).toBe(2);
    // The reply keeps its call's cache reads and writes (Anthropic reports both).
    expect(turn.reply.metadata.usage).toMatchObject({ cachedInputTokens: 0, cacheWriteInputTokens: 0 });

    // The second call carries the first answer's blocks unchanged, then the tool result.
    const recorded = (fixture('anthropic', 'thinking-tool-use').body as { content: unknown[] }).content;
    const second = body(1) as { system: unknown; messages: Array<{ role: string; content: unknown }> };
    // The adapter's automatic prompt-cache breakpoint ends the system prompt.
    expect(second.system).toEqual([
      { type: 'text', text: 'You report the weather.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(second.messages[1]).toEqual({ role: 'assistant', content: recorded });
    expect(second.messages[2]?.content).toEqual([
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01ThinkingWeather000001' }),
    ]);
    expect(formats.anthropic.validate({ messages: second.messages })).toEqual([]);

    // The next turn, from the store, sends the same blocks again.
    server.enqueue(fixture('anthropic', 'text'));
    await conversation.send('paris', 'Thanks!');
    const third = body(2) as { messages: Array<{ role: string; content: unknown }> };
    expect(third.messages[1]).toEqual({ role: 'assistant', content: recorded });
    expect(formats.anthropic.validate({ messages: third.messages })).toEqual([]);
    expect((await store.load('paris')).messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('stores nothing when the provider fails in the middle of the tool loop', async () => {
    const { store } = await openStoreOf('file');
    const conversation = conversationOver(store);
    server.enqueue(fixture('anthropic', 'text'));
    await conversation.send('paris', 'Hello');
    const before = await snapshot(store, 'paris');
    server.enqueue(fixture('anthropic', 'tool-use'), fixture('anthropic', 'error-529'));
    await expect(conversation.send('paris', 'Weather in Paris?')).rejects.toMatchObject({
      code: 'MODEL_FAILED',
      retryable: true,
      status: 529,
    });
    expect(await snapshot(store, 'paris')).toEqual(before);
  });
});

describe('Conversation through generateText of ai', () => {
  it('runs parallel tools over one model call per step and stores the turn', async () => {
    const { store } = await openStoreOf('file');
    const provider = createOpenAI({ apiKey: 'test', baseURL: `${server.url}/v1` });
    const model = aiSdkModel({ generateText, model: provider.chat('gpt-4o'), maxRetries: 0 });
    const conversation = closeAfterTest(
      new Conversation({ store, agents: { id: 'gpt', model, tools: [weather], system: 'You report the weather.' } }),
    );
    server.enqueue(fixture('ai-sdk', 'parallel-tool-calls'), fixture('ai-sdk', 'after-tool-results'));
    const turn = await conversation.send('trip', 'Weather in Paris and Rome?');

    expect(server.requests).toHaveLength(2);
    const second = body(1) as { messages: Array<{ role: string; tool_call_id?: string }> };
    expect(second.messages.map((message) => [message.role, message.tool_call_id ?? null])).toEqual([
      ['system', null],
      ['user', null],
      ['assistant', null],
      ['tool', 'call_paris_01'],
      ['tool', 'call_rome_02'],
    ]);
    expect(formats.openaiChat.validate({ messages: second.messages })).toEqual([]);
    expect(turn.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect((await store.load('trip')).messages).toHaveLength(5);
  });

  it('a rate limit fails the turn with RATE_LIMITED and stores nothing', async () => {
    const { store } = await openStoreOf('file');
    const provider = createOpenAI({ apiKey: 'test', baseURL: `${server.url}/v1` });
    const model = aiSdkModel({ generateText, model: provider.chat('gpt-4o'), maxRetries: 0 });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'gpt', model } }));
    server.enqueue(fixture('ai-sdk', 'error-429'));
    await expect(conversation.send('trip', 'Hello')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await store.get('trip')).toBeUndefined();
  });
});
