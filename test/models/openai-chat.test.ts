/**
 * `openaiChatModel` end to end: the real `openai` client speaks HTTP to the local protocol server,
 * which replays recorded Chat Completions bodies; tests check the exact wire the client sent and
 * the `ChatResponse` read back.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { formats } from '../../src/formats/index.js';
import type { FormatWarning } from '../../src/formats/types.js';
import { Message } from '../../src/message/message.js';
import { openaiChatModel } from '../../src/models/openai-chat.js';
import type { ChatRequest, ToolSpec } from '../../src/models/types.js';
import { failure, openaiBody } from '../support/protocol-fixtures.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';

const fixture = openaiBody;

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

let server: ProtocolServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startProtocolServer();
  client = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterEach(() => server.close());

/** The JSON body of the `index`th request the server received. */
function sent(index = 0): Record<string, unknown> {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`no request #${index}`);
  return request.body as Record<string, unknown>;
}

/** The error `promise` rejects with, asserted to be a chatstate error. */
describe('openaiChatModel: answers', () => {
  it('sends the system prompt, messages and settings, and reads a text answer with usage', async () => {
    server.enqueue({ body: fixture('chat-text') });
    const model = openaiChatModel({ client, model: 'gpt-4.1', temperature: 0.7 });
    const response = await model.complete({
      system: 'Be brief.',
      messages: [Message.user('Capital of France?')],
      maxOutputTokens: 100,
      temperature: 0.2,
    });

    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer test');
    expect(sent()).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      max_completion_tokens: 100,
      temperature: 0.2,
    });
    expect(model.provider).toBe('openaiChat');
    expect(model.model).toBe('gpt-4.1');
    expect(response.message.role).toBe('assistant');
    expect(Message.text(response.message)).toBe('Paris is the capital of France.');
    expect(response.message.toolCalls).toBeUndefined();
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ inputTokens: 2006, outputTokens: 9, cachedInputTokens: 1920 });
    expect(response.modelId).toBe('gpt-4.1-2025-04-14');
  });

  it('sends request.cacheKey as prompt_cache_key (hashed past 64 characters; extraBody wins) and reads cache writes', async () => {
    const chatText = fixture('chat-text');
    const usage = chatText['usage'] as Record<string, unknown>;
    const written = {
      ...chatText,
      usage: { ...usage, prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 86 } },
    };
    server.enqueue({ body: written }, { body: chatText }, { body: chatText });
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const response = await model.complete({ messages: [Message.user('Hi')], cacheKey: 'session-trip-lisbon' });
    expect(sent(0)['prompt_cache_key']).toBe('session-trip-lisbon');
    expect(response.usage).toEqual({
      inputTokens: 2006,
      outputTokens: 9,
      cachedInputTokens: 1920,
      cacheWriteInputTokens: 86,
    });

    const long = `tenant-${'x'.repeat(80)}/session-1`;
    await model.complete({ messages: [Message.user('Hi')], cacheKey: long });
    expect(sent(1)['prompt_cache_key']).toBe(createHash('sha256').update(long).digest('hex'));
    expect(sent(1)['prompt_cache_key']).toHaveLength(64);

    const pinned = openaiChatModel({ client, model: 'gpt-4.1', extraBody: { prompt_cache_key: 'shared-policy' } });
    await pinned.complete({ messages: [Message.user('Hi')], cacheKey: 'session-trip-lisbon' });
    expect(sent(2)['prompt_cache_key']).toBe('shared-policy');

    const error = await failure(model.complete({ messages: [Message.user('Hi')], cacheKey: '' }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(server.requests).toHaveLength(3);
  });

  it('uses the adapter defaults when the request sets none, and sends extraBody fields', async () => {
    server.enqueue({ body: fixture('chat-text') });
    const model = openaiChatModel({
      client,
      model: 'gpt-4.1',
      temperature: 0.7,
      maxOutputTokens: 50,
      extraBody: { parallel_tool_calls: false, user: 'u-1' },
    });
    await model.complete({
      system: [Message.system('Rules.'), Message.context('Facts.')],
      messages: [Message.user('Hi')],
    });
    expect(sent()).toEqual({
      parallel_tool_calls: false,
      user: 'u-1',
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Rules.' },
        { role: 'system', content: 'Facts.' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 50,
      temperature: 0.7,
    });
  });

  it('reads one tool call and sends function tools with tool_choice', async () => {
    server.enqueue({ body: fixture('chat-tool-call') });
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const response = await model.complete({
      messages: [Message.user('Weather in Paris?')],
      tools: [weather],
      toolChoice: 'auto',
    });

    expect(sent()['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Current weather of a city.', parameters: weather.parameters },
      },
    ]);
    expect(sent()['tool_choice']).toBe('auto');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.toolCalls).toEqual([
      { id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(response.usage).toEqual({ inputTokens: 82, outputTokens: 17, cachedInputTokens: 0 });
  });

  it('sends the default parameters schema, strict tools and a named tool choice; a forced call that stops is tool_calls', async () => {
    server.enqueue({ body: fixture('chat-forced-tool-call') });
    const model = openaiChatModel({ client, model: 'gpt-4.1', strict: true });
    const response = await model.complete({
      messages: [Message.user('Time?')],
      tools: [{ name: 'get_time' }],
      toolChoice: { name: 'get_time' },
    });

    expect(sent()['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'get_time', parameters: { type: 'object', properties: {} }, strict: true },
      },
    ]);
    expect(sent()['tool_choice']).toEqual({ type: 'function', function: { name: 'get_time' } });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.toolCalls?.map((call) => call.name)).toEqual(['get_time']);
  });

  it('leaves out tool_choice auto or none when there are no tools (OpenAI rejects it)', async () => {
    server.enqueue({ body: fixture('chat-text') }, { body: fixture('chat-text') });
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    await model.complete({ messages: [Message.user('Hi')], toolChoice: 'none' });
    await model.complete({ messages: [Message.user('Hi')], tools: [], toolChoice: 'auto' });
    expect(Object.keys(sent(0))).toEqual(['model', 'messages']);
    expect(Object.keys(sent(1))).toEqual(['model', 'messages']);
  });

  it('reads parallel tool calls and sends their results back in a follow-up request the API accepts', async () => {
    server.enqueue({ body: fixture('chat-parallel-tool-calls') }, { body: fixture('chat-text') });
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const question = Message.user('Weather in Paris and Tokyo?');
    const first = await model.complete({ system: 'Be brief.', messages: [question], tools: [weather] });

    expect(first.finishReason).toBe('tool_calls');
    const calls = first.message.toolCalls ?? [];
    expect(calls.map((call) => [call.id, call.arguments])).toEqual([
      ['call_K6Ka4fY4Q9OsR4lJtN7U0C9a', '{"city":"Paris"}'],
      ['call_Ne2H9m7GqQ1bVd3uS5pLx8Zr', '{"city":"Tokyo"}'],
    ]);
    const results = calls.map((call, index) =>
      Message.tool(call.id, index === 0 ? '18°C, sunny' : '24°C, rain', { name: call.name }),
    );
    const second = await model.complete({
      system: 'Be brief.',
      messages: [question, first.message, ...results],
      tools: [weather],
    });

    const body = sent(1);
    expect(formats.openaiChat.validate(body)).toEqual([]);
    expect(body['messages']).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Tokyo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_K6Ka4fY4Q9OsR4lJtN7U0C9a',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'call_Ne2H9m7GqQ1bVd3uS5pLx8Zr',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_K6Ka4fY4Q9OsR4lJtN7U0C9a', content: '18°C, sunny' },
      { role: 'tool', tool_call_id: 'call_Ne2H9m7GqQ1bVd3uS5pLx8Zr', content: '24°C, rain' },
    ]);
    expect(second.finishReason).toBe('stop');
  });

  it('keeps a refusal as a provider part and sends it back unchanged', async () => {
    server.enqueue({ body: fixture('chat-refusal') }, { body: fixture('chat-text') });
    const model = openaiChatModel({ client, model: 'gpt-4.1' });
    const first = await model.complete({ messages: [Message.user('Something forbidden')] });
    await model.complete({
      messages: [Message.user('Something forbidden'), first.message, Message.user('Then the capital of France?')],
    });

    const messages = sent(1)['messages'] as unknown[];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: null,
      refusal: "I'm sorry, I can't help with that request.",
    });
    expect(formats.openaiChat.validate(sent(1))).toEqual([]);
  });

  it.each([
    ['chat-length', 'length'],
    ['chat-content-filter', 'content_filter'],
  ] as const)('maps %s to the finish reason %s', async (name, reason) => {
    server.enqueue({ body: fixture(name) });
    const response = await openaiChatModel({ client, model: 'gpt-4.1' }).complete({
      messages: [Message.user('Tell me')],
    });
    expect(response.finishReason).toBe(reason);
  });

  it('reports what the format could not carry through onWarning', async () => {
    server.enqueue({ body: fixture('chat-text') });
    const warnings: FormatWarning[] = [];
    const model = openaiChatModel({ client, model: 'gpt-4.1', onWarning: (warning) => warnings.push(warning) });
    const thought = Message.assistant([
      { type: 'reasoning', text: 'Thinking.' },
      { type: 'text', text: 'Hello.' },
    ]);
    await model.complete({ messages: [Message.user('Hi'), thought, Message.user('Again')] });
    expect(warnings.map((warning) => [warning.code, warning.messageId])).toEqual([['unsupported_part', thought.id]]);
  });
});

describe('openaiChatModel: failures', () => {
  it.each([
    [429, 'error-429', 'RATE_LIMITED', true],
    [500, 'error-500', 'MODEL_FAILED', true],
    [400, 'error-400', 'MODEL_FAILED', false],
  ] as const)('turns HTTP %i into %s', async (status, name, code, retryable) => {
    server.enqueue({ status, body: fixture(name), headers: { 'x-request-id': `req_${status}` } });
    const error = await failure(
      openaiChatModel({ client, model: 'gpt-4.1' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ provider: 'openaiChat', status, retryable, requestId: `req_${status}` });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['error-context-overflow', 128_000, 173_172],
    ['error-context-overflow-requested', 4097, 4268],
  ] as const)(
    'turns the 400 context_length_exceeded of %s into CONTEXT_OVERFLOW with its figures',
    async (name, limitTokens, requestedTokens) => {
      server.enqueue({ status: 400, body: fixture(name), headers: { 'x-request-id': 'req_overflow' } });
      const error = await failure(
        openaiChatModel({ client, model: 'gpt-4o' }).complete({ messages: [Message.user('Hi')] }),
      );
      expect(error).toBeInstanceOf(ModelError);
      expect(error.code).toBe('CONTEXT_OVERFLOW');
      expect(error.details).toEqual({
        provider: 'openaiChat',
        status: 400,
        retryable: false,
        requestId: 'req_overflow',
        limitTokens,
        requestedTokens,
      });
      expect(error.message).toContain(`(${requestedTokens} tokens > ${limitTokens})`);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('keeps the 429 "Request too large … tokens per min" a rate limit: it is not the context window', async () => {
    server.enqueue({ status: 429, body: fixture('error-429-request-too-large') });
    const error = await failure(
      openaiChatModel({ client, model: 'gpt-4o' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details).not.toHaveProperty('limitTokens');
  });

  it("relies on the client's own retry: a 500 then a 200 succeeds", async () => {
    server.enqueue(
      { status: 500, body: fixture('error-500'), headers: { 'retry-after-ms': '0' } },
      { body: fixture('chat-text') },
    );
    const retrying = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 1 });
    const response = await openaiChatModel({ client: retrying, model: 'gpt-4.1' }).complete({
      messages: [Message.user('Hi')],
    });
    expect(Message.text(response.message)).toBe('Paris is the capital of France.');
    expect(server.requests).toHaveLength(2);
    expect(sent(1)).toEqual(sent(0));
  });

  it('throws ABORTED when the signal aborts while the server delays', async () => {
    const controller = new AbortController();
    server.respondWith(() => {
      controller.abort(); // the request has arrived: abort while the answer is still pending
      return { body: fixture('chat-text'), delayMs: 2_000 };
    });
    const error = await failure(
      openaiChatModel({ client, model: 'gpt-4.1' }).complete({
        messages: [Message.user('Hi')],
        signal: controller.signal,
      }),
    );
    expect(error.code).toBe('ABORTED');
    expect(error.details).toMatchObject({ provider: 'openaiChat', retryable: false });
  });

  it('throws ABORTED for a signal aborted before the call', async () => {
    const error = await failure(
      openaiChatModel({ client, model: 'gpt-4.1' }).complete({
        messages: [Message.user('Hi')],
        signal: AbortSignal.abort(),
      }),
    );
    expect(error.code).toBe('ABORTED');
  });

  it.each([
    ['no choices', fixture('chat-no-choices'), 'the answer has no choices'],
    ['a text body', '<html>Bad gateway</html>', 'the answer has no choices'],
    ['a message without content', fixture('chat-length-empty'), 'cut at the output token limit'],
    [
      'a choice without a message',
      { ...fixture('chat-text'), choices: [{ index: 0, finish_reason: 'stop' }] },
      'not a readable assistant message',
    ],
  ])('throws a non-retryable MODEL_FAILED for %s', async (_what, body, why) => {
    server.enqueue({ body });
    const error = await failure(
      openaiChatModel({ client, model: 'gpt-4.1' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.details).toMatchObject({ provider: 'openaiChat', retryable: false });
    expect(error.message).toContain(why);
  });
});

describe('openaiChatModel: bad input', () => {
  const hi = [Message.user('Hi')];

  it.each<[string, Partial<ChatRequest>, string]>([
    ['a tool name outside the rule', { tools: [{ name: 'get weather' }] }, 'tools[0].name'],
    ['two tools with one name', { tools: [weather, weather] }, 'two tools are named "get_weather"'],
    [
      'parameters that are not an object schema',
      { tools: [{ name: 'x', parameters: { type: 'string' } }] },
      'type "object"',
    ],
    ['a tool choice naming a missing tool', { tools: [weather], toolChoice: { name: 'get_time' } }, 'not in tools'],
    ['a required tool choice without tools', { toolChoice: 'required' }, 'at least one tool'],
    ['a zero token limit', { maxOutputTokens: 0 }, 'maxOutputTokens'],
    ['a negative temperature', { temperature: -1 }, 'temperature'],
    ['no messages at all', { messages: [] }, 'no messages'],
  ])('refuses %s before any HTTP call', async (_what, changes, why) => {
    const error = await failure(openaiChatModel({ client, model: 'gpt-4.1' }).complete({ messages: hi, ...changes }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(why);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an invalid plain message with INVALID_MESSAGE', async () => {
    const messages = [{ role: 'robot', content: 'Hi' }] as unknown as Message[];
    const error = await failure(openaiChatModel({ client, model: 'gpt-4.1' }).complete({ messages }));
    expect(error.code).toBe('INVALID_MESSAGE');
  });

  it.each([
    ['a client without chat.completions', { client: {} as OpenAI, model: 'gpt-4.1' }, 'chat.completions.create'],
    ['an empty model', { client: new OpenAI({ apiKey: 'test' }), model: '' }, 'model'],
    [
      'extraBody replacing the messages',
      { client: new OpenAI({ apiKey: 'test' }), model: 'gpt-4.1', extraBody: { messages: [] } },
      'may not set "messages"',
    ],
    [
      'extraBody asking for a stream',
      { client: new OpenAI({ apiKey: 'test' }), model: 'gpt-4.1', extraBody: { stream: true } },
      'may not set "stream"',
    ],
    [
      'a default token limit that is not an integer',
      { client: new OpenAI({ apiKey: 'test' }), model: 'gpt-4.1', maxOutputTokens: 1.5 },
      'maxOutputTokens',
    ],
  ])('refuses %s at construction', (_what, options, why) => {
    expect(() => openaiChatModel(options)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(why) as unknown }),
    );
  });
});
