/**
 * `aiSdkModel` end to end: the real `generateText` of `ai` with the real `@ai-sdk/openai` chat
 * model, talking HTTP (Chat Completions) to the local protocol server, which replays recorded
 * bodies and records what was sent. The overflow tests also speak through `@ai-sdk/anthropic` and
 * `@ai-sdk/google`, since each provider package reads its own error body into the APICallError.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type LanguageModel } from 'ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { formats } from '../../src/formats/index.js';
import type { FormatWarning } from '../../src/formats/types.js';
import { Message } from '../../src/message/message.js';
import { aiSdkModel, type AiSdkModelOptions } from '../../src/models/ai-sdk.js';
import type { AiSdkGenerateText, AiSdkLanguageModel } from '../../src/models/ai-sdk-client.js';
import type { ChatRequest, ToolSpec } from '../../src/models/types.js';
import { failure, recordedAnswer, weatherSpec, type Json } from '../support/protocol-fixtures.js';
import { startProtocolServer, type ProtocolServer, type ReplayedResponse } from '../support/protocol-server.js';

type ChatLanguageModel = ReturnType<ReturnType<typeof createOpenAI>['chat']>;

function fixture(name: string): ReplayedResponse & { body: Json } {
  return recordedAnswer('ai-sdk', name);
}

const weather = weatherSpec;

let server: ProtocolServer;
let languageModel: ChatLanguageModel;

/** The body of the `index`-th request the server received. */
function sent(index = 0): Json {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`no request ${index} was received`);
  expect(request.method).toBe('POST');
  expect(request.path).toBe('/v1/chat/completions');
  return request.body as Json;
}

function model(options: Partial<AiSdkModelOptions<ChatLanguageModel>> = {}): ReturnType<typeof aiSdkModel> {
  return aiSdkModel({ generateText, model: languageModel, maxRetries: 0, ...options });
}

beforeAll(async () => {
  server = await startProtocolServer();
  languageModel = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o');
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
  server.respondWith(undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('aiSdkModel: answers', () => {
  it('sends the system prompt and history in one model call, and reads a text answer with usage', async () => {
    server.enqueue(fixture('text'));
    const chat = model({ temperature: 0.2 });
    const response = await chat.complete({
      system: 'Answer in one sentence.',
      messages: [Message.user('What is the capital of France?')],
    });

    expect(chat.provider).toBe('aiSdk');
    expect(chat.model).toBe('gpt-4o');
    expect(response.message.role).toBe('assistant');
    expect(response.message.content).toBe('Paris is the capital of France.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ inputTokens: 1940, outputTokens: 9, cachedInputTokens: 1792 });
    expect(response.modelId).toBe('gpt-4o-2024-08-06');

    expect(server.requests).toHaveLength(1);
    const body = sent();
    expect(body).toEqual({
      model: 'gpt-4o',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'Answer in one sentence.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
    });
    expect(formats.openaiChat.validate(body)).toEqual([]);
  });

  it('lets a request override the defaults, and passes providerOptions', async () => {
    server.enqueue(fixture('text'));
    const chat = model({ maxOutputTokens: 500, temperature: 1, providerOptions: { openai: { user: 'user-42' } } });
    await chat.complete({ messages: [Message.user('Hi')], maxOutputTokens: 64, temperature: 0 });
    expect(sent()).toMatchObject({ max_tokens: 64, temperature: 0, user: 'user-42' });
  });

  it('keeps a mid-conversation system message in place without the prompt-injection warning of ai', async () => {
    server.enqueue(fixture('text'));
    const warn = vi.spyOn(console, 'warn');
    const history = [
      Message.user('Hi'),
      Message.assistant('Hello!'),
      Message.system('From now on, answer in French.'),
      Message.user('Capital of France?'),
    ];
    await model().complete({ messages: history });
    expect((sent()['messages'] as Json[]).map((message) => message['role'])).toEqual([
      'user',
      'assistant',
      'system',
      'user',
    ]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('puts provider options of parts on the wire (image detail for OpenAI)', async () => {
    server.enqueue(fixture('text'));
    const user = Message.user([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', url: 'https://example.com/cat.png', detail: 'low' },
    ]);
    await model().complete({ messages: [user] });
    const [message] = sent()['messages'] as Json[];
    expect(message?.['content']).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
    ]);
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'content_filter'],
    ['tool_calls', 'other'],
  ])('maps finish_reason %s (through ai, with no tool calls) to %s', async (reason, expected) => {
    const recorded = fixture('text');
    const choices = recorded.body['choices'] as Json[];
    server.enqueue({ ...recorded, body: { ...recorded.body, choices: [{ ...choices[0], finish_reason: reason }] } });
    const response = await model().complete({ messages: [Message.user('Hi')] });
    expect(response.finishReason).toBe(expected);
  });

  it('reports what the format could not carry through onWarning', async () => {
    server.enqueue(fixture('text'));
    const warnings: FormatWarning[] = [];
    const foreign = Message.assistant([
      { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'abc' } },
      { type: 'text', text: 'Earlier answer' },
    ]);
    await model({ onWarning: (warning) => warnings.push(warning) }).complete({
      messages: [Message.user('Hi'), foreign, Message.user('Again')],
    });
    expect(warnings.map((warning) => warning.code)).toContain('foreign_raw_part');
  });
});

describe('aiSdkModel: tools', () => {
  it('declares tools without execute and returns the tool calls after exactly one model call', async () => {
    server.enqueue(fixture('tool-calls'));
    const bare: ToolSpec = { name: 'list_cities' };
    const response = await model().complete({
      messages: [Message.user('Weather in Paris?')],
      tools: [weather, bare],
      toolChoice: 'auto',
    });

    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.toolCalls).toEqual([
      { id: 'call_12345xyz', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
    ]);
    expect(server.requests).toHaveLength(1);
    const body = sent();
    expect(body['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Current weather of a city', parameters: weather.parameters },
      },
      { type: 'function', function: { name: 'list_cities', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(body['tool_choice']).toBe('auto');
  });

  it.each([
    ['required', 'required', 'tool-calls'],
    ['none', 'none', 'text'],
    [{ name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }, 'tool-calls'],
  ] as const)('maps toolChoice %j to %j', async (toolChoice, wire, answer) => {
    // ai refuses an answer that breaks the choice, so `none` gets a text answer.
    server.enqueue(fixture(answer));
    await model().complete({ messages: [Message.user('Weather?')], tools: [weather], toolChoice });
    expect(sent()['tool_choice']).toEqual(wire);
  });

  it('reads parallel tool calls and sends their results back', async () => {
    server.enqueue(fixture('parallel-tool-calls'), fixture('after-tool-results'));
    const chat = model();
    const question = Message.user('Weather in Paris and Rome?');
    const first = await chat.complete({ messages: [question], tools: [weather] });
    expect(first.message.toolCalls?.map((call) => [call.id, call.arguments])).toEqual([
      ['call_paris_01', '{"city":"Paris"}'],
      ['call_rome_02', '{"city":"Rome"}'],
    ]);

    const results = [
      Message.tool('call_paris_01', '18°C, cloudy', { name: 'get_weather' }),
      Message.tool('call_rome_02', '{"celsius":24,"sky":"sunny"}', { name: 'get_weather' }),
    ];
    const second = await chat.complete({ messages: [question, first.message, ...results], tools: [weather] });
    expect(second.message.content).toBe('Paris is 18°C and cloudy; Rome is 24°C and sunny.');

    const body = sent(1);
    expect(formats.openaiChat.validate(body)).toEqual([]);
    expect((body['messages'] as Json[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_paris_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_rome_02', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_paris_01', content: '18°C, cloudy' },
      { role: 'tool', tool_call_id: 'call_rome_02', content: '{"celsius":24,"sky":"sunny"}' },
    ]);
  });

  it('keeps calls of unknown tools and the raw text of unparsable arguments, for the runtime to answer', async () => {
    server.enqueue(fixture('invalid-tool-calls'));
    const response = await model().complete({
      messages: [Message.user('Weather in Oslo and Lima, and ACME stock?')],
      tools: [weather],
    });
    expect(server.requests).toHaveLength(1);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.toolCalls).toEqual([
      { id: 'call_ok_01', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_badjson_02', name: 'get_weather', arguments: '{"city": "Lima' },
      { id: 'call_unknown_03', name: 'get_stock_price', arguments: '{"ticker":"ACME"}' },
    ]);
  });
});

describe('aiSdkModel: prompt caching', () => {
  it('sends request.cacheKey to an OpenAI model as providerOptions.openai.promptCacheKey, the adapter’s own winning', async () => {
    server.enqueue(fixture('text'), fixture('text'));
    await model().complete({ messages: [Message.user('Hi')], cacheKey: 'session-trip-lisbon' });
    expect(sent(0)['prompt_cache_key']).toBe('session-trip-lisbon');

    const pinned = model({ providerOptions: { openai: { promptCacheKey: 'shared-policy', user: 'u-1' } } });
    await pinned.complete({ messages: [Message.user('Hi')], cacheKey: 'session-trip-lisbon' });
    expect(sent(1)).toMatchObject({ prompt_cache_key: 'shared-policy', user: 'u-1' });
  });

  /** A `generateText` that records its options and answers with `usage`, for a model of another provider. */
  function recording(usage: Record<string, unknown>): {
    readonly calls: Array<Record<string, unknown>>;
    readonly generate: AiSdkGenerateText<AiSdkLanguageModel>;
  } {
    const calls: Array<Record<string, unknown>> = [];
    const generate: AiSdkGenerateText<AiSdkLanguageModel> = async (options) => {
      calls.push(options as unknown as Record<string, unknown>);
      return {
        finishReason: 'stop',
        usage: usage as never,
        content: [{ type: 'text', text: 'Done.' }],
        response: { modelId: 'claude-sonnet-4-6', messages: [{ role: 'assistant', content: 'Done.' }] },
      };
    };
    return { calls, generate };
  }

  const claude = { specificationVersion: 'v3', provider: 'anthropic.messages', modelId: 'claude-sonnet-4-6' };
  const mark = { anthropic: { cacheControl: { type: 'ephemeral' } } };
  const history = [
    Message.user('Summarise the contract.'),
    Message.assistant('It renews yearly.'),
    Message.user('When?'),
  ];

  it('places Anthropic breakpoints on an Anthropic model’s parts and system prompt, and reads cache writes', async () => {
    const { calls, generate } = recording({
      inputTokens: 2100,
      outputTokens: 5,
      inputTokenDetails: { noCacheTokens: 48, cacheReadTokens: 1800, cacheWriteTokens: 252 },
    });
    const chat = aiSdkModel({ generateText: generate, model: claude });
    const response = await chat.complete({ system: 'You read contracts.', messages: history, cacheKey: 'session-1' });
    expect(response.usage).toEqual({
      inputTokens: 2100,
      outputTokens: 5,
      cachedInputTokens: 1800,
      cacheWriteInputTokens: 252,
    });
    const [call] = calls;
    expect(call?.['system']).toEqual({ role: 'system', content: 'You read contracts.', providerOptions: mark });
    expect(call?.['messages']).toEqual([
      { role: 'user', content: 'Summarise the contract.' },
      { role: 'assistant', content: [{ type: 'text', text: 'It renews yearly.', providerOptions: mark }] },
      { role: 'user', content: [{ type: 'text', text: 'When?', providerOptions: mark }] },
    ]);
    // The cache key is OpenAI's: an Anthropic model gets none.
    expect(call?.['providerOptions']).toBeUndefined();
  });

  it('places none with cache: off, nor for a model of another provider', async () => {
    const { calls, generate } = recording({ inputTokens: 10, outputTokens: 1 });
    await aiSdkModel({ generateText: generate, model: claude, cache: 'off' }).complete({
      system: 'S',
      messages: history,
    });
    const google = { specificationVersion: 'v3', provider: 'google.generative-ai', modelId: 'gemini-2.5-flash' };
    await aiSdkModel({ generateText: generate, model: google }).complete({ system: 'S', messages: history });
    for (const call of calls) {
      expect(call['system']).toBe('S');
      expect(JSON.stringify(call['messages'])).not.toContain('cacheControl');
    }
  });
});

describe('aiSdkModel: failures', () => {
  it('throws RATE_LIMITED for a 429, retryable, with the status', async () => {
    server.enqueue(fixture('error-429'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error).toMatchObject({ provider: 'aiSdk', status: 429, retryable: true });
  });

  it('reads the last attempt when ai gives up retrying (the default maxRetries)', async () => {
    // The recorded 429 says `retry-after-ms: 0`, so ai retries at once.
    server.enqueue(fixture('error-429'), fixture('error-429'), fixture('error-429'));
    const error = await failure(
      aiSdkModel({ generateText, model: languageModel }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error).toMatchObject({ status: 429, retryable: true });
  });

  it('throws a retryable MODEL_FAILED for a 500', async () => {
    server.enqueue(fixture('error-500'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ status: 500, retryable: true });
  });

  it('throws a MODEL_FAILED that is not retryable for a 400', async () => {
    server.enqueue(fixture('error-400'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ status: 400, retryable: false });
  });

  it.each<[string, () => LanguageModel, string, string, Record<string, number>]>([
    [
      'OpenAI (context_length_exceeded)',
      () => languageModel,
      'error-context-overflow',
      '/v1/chat/completions',
      { limitTokens: 128_000, requestedTokens: 173_172 },
    ],
    [
      'Anthropic (prompt is too long)',
      () => createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test' })('claude-sonnet-4-5'),
      'error-context-overflow-anthropic',
      '/v1/messages',
      { limitTokens: 180_000, requestedTokens: 191_989 },
    ],
    [
      'Anthropic (413 request_too_large)',
      () => createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test' })('claude-sonnet-4-5'),
      'error-context-overflow-anthropic-413',
      '/v1/messages',
      {},
    ],
    [
      'Gemini (INVALID_ARGUMENT input token count)',
      () => createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: 'test' })('gemini-2.5-pro'),
      'error-context-overflow-gemini',
      '/v1beta/models/gemini-2.5-pro:generateContent',
      { limitTokens: 1_048_576, requestedTokens: 1_054_016 },
    ],
  ])(
    'throws CONTEXT_OVERFLOW, not retryable, for the APICallError of %s',
    async (_provider, make, name, path, figures) => {
      const answer = fixture(name);
      server.enqueue(answer);
      const error = await failure(
        aiSdkModel({ generateText, model: make(), maxRetries: 0 }).complete({ messages: [Message.user('Hi')] }),
      );
      expect(server.requests.map((request) => request.path)).toEqual([path]);
      expect(error).toBeInstanceOf(ModelError);
      expect(error.code).toBe('CONTEXT_OVERFLOW');
      expect(error.details).toEqual({ provider: 'aiSdk', status: answer.status, retryable: false, ...figures });
    },
  );

  it('keeps the 429 "Request too large … tokens per min" a rate limit', async () => {
    server.enqueue(fixture('error-429-request-too-large'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error).toMatchObject({ status: 429, retryable: true });
  });

  it('throws ABORTED when the signal fires while the server is still answering', async () => {
    const controller = new AbortController();
    server.respondWith(() => {
      controller.abort();
      return { ...fixture('text'), delayMs: 2_000 };
    });
    const error = await failure(model().complete({ messages: [Message.user('Hi')], signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(error).toMatchObject({ retryable: false });
  });

  it('throws a MODEL_FAILED that is not retryable when the provider cannot take the prompt, before any HTTP call', async () => {
    const video = Message.user([{ type: 'file', data: 'AAAAIGZ0eXBpc29t', mediaType: 'video/mp4' }]);
    const error = await failure(model().complete({ messages: [video] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ retryable: false });
    expect(server.requests).toHaveLength(0);
  });

  it('throws ABORTED without an HTTP request for a signal aborted before the call', async () => {
    const error = await failure(model().complete({ messages: [Message.user('Hi')], signal: AbortSignal.abort() }));
    expect(error.code).toBe('ABORTED');
    expect(server.requests).toHaveLength(0);
  });

  const text = fixture('text');
  const choices = text.body['choices'] as Json[];
  it.each<[string, ReplayedResponse]>([
    ['a body that is not JSON', { body: 'upstream proxy error' }],
    ['a JSON body of another shape', { body: { hello: 'world' } }],
    [
      'an answer with no content and no tool calls',
      { body: { ...text.body, choices: [{ ...choices[0], message: { role: 'assistant', content: null } }] } },
    ],
  ])('throws a MODEL_FAILED that is not retryable for %s', async (_what, answer) => {
    server.enqueue(answer);
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ retryable: false });
    expect(error.message).toContain('could not be read');
  });
});

describe('aiSdkModel: bad input', () => {
  const generate = generateText as AiSdkGenerateText<AiSdkLanguageModel>;

  it.each<[string, () => unknown]>([
    [
      'a generateText that is not a function',
      () => aiSdkModel({ generateText: {} as AiSdkGenerateText, model: 'openai/gpt-4o' }),
    ],
    ['an empty model id', () => aiSdkModel({ generateText: generate, model: '' })],
    ['a model without a modelId', () => aiSdkModel({ generateText: generate, model: {} as AiSdkLanguageModel })],
    ['a negative maxRetries', () => aiSdkModel({ generateText: generate, model: 'openai/gpt-4o', maxRetries: -1 })],
    ['a fractional maxRetries', () => aiSdkModel({ generateText: generate, model: 'openai/gpt-4o', maxRetries: 1.5 })],
    [
      'providerOptions that are not objects by provider',
      () => aiSdkModel({ generateText: generate, model: 'openai/gpt-4o', providerOptions: { openai: 'x' } as never }),
    ],
    ['a negative temperature', () => aiSdkModel({ generateText: generate, model: 'openai/gpt-4o', temperature: -1 })],
  ])('refuses %s with INVALID_ARGUMENT', (_what, build) => {
    expect(() => build()).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
  });

  it.each<[string, ChatRequest]>([
    ['no messages at all', { messages: [] }],
    ['only a system prompt', { system: 'Be brief.', messages: [] }],
    ['a tool name providers refuse', { messages: [Message.user('Hi')], tools: [{ name: 'get weather' }] }],
    [
      'a toolChoice naming an unknown tool',
      { messages: [Message.user('Hi')], tools: [weather], toolChoice: { name: 'nope' } },
    ],
    ['a fractional maxOutputTokens', { messages: [Message.user('Hi')], maxOutputTokens: 1.5 }],
  ])('refuses a request with %s before any HTTP call', async (_what, request) => {
    const error = await failure(model().complete(request));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(server.requests).toHaveLength(0);
  });
});
