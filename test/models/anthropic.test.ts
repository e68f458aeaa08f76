/**
 * `anthropicModel` end to end: the real `@anthropic-ai/sdk` client talks HTTP to the local protocol
 * server, which replays recorded Messages API bodies and records what the client sent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { formats } from '../../src/formats/index.js';
import type { FormatWarning } from '../../src/formats/types.js';
import { Message } from '../../src/message/message.js';
import { anthropicModel, type AnthropicModelOptions } from '../../src/models/anthropic.js';
import type { ChatRequest, ToolSpec } from '../../src/models/types.js';
import { failure, recordedAnswer, weatherSpec, type Json } from '../support/protocol-fixtures.js';
import { startProtocolServer, type ProtocolServer, type ReplayedResponse } from '../support/protocol-server.js';

function fixture(name: string): ReplayedResponse & { body: Json } {
  return recordedAnswer('anthropic', name);
}

const weather = weatherSpec;

let server: ProtocolServer;
let client: Anthropic;

/** The body of the `index`-th request the server received. */
function sent(index = 0): Json {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`no request ${index} was received`);
  expect(request.method).toBe('POST');
  expect(request.path).toBe('/v1/messages');
  return request.body as Json;
}

/** Asserts the sent history passes Anthropic's structural rules. */
function expectValidHistory(body: Json): void {
  expect(formats.anthropic.validate({ system: body['system'], messages: body['messages'] })).toEqual([]);
}

function model(options: Partial<AnthropicModelOptions> = {}): ReturnType<typeof anthropicModel> {
  return anthropicModel({ client, model: 'claude-sonnet-4-6', maxTokens: 1024, ...options });
}

beforeAll(async () => {
  server = await startProtocolServer();
  client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
  server.respondWith(undefined);
});

describe('anthropicModel: answers', () => {
  it('sends the system prompt and history, and reads a text answer with usage', async () => {
    server.enqueue(fixture('text'));
    const chat = model({ model: 'claude-opus-4-5', temperature: 0.2 });
    const response = await chat.complete({
      system: 'Answer in one sentence.',
      messages: [Message.user('What is the capital of France?')],
    });

    expect(chat.provider).toBe('anthropic');
    expect(chat.model).toBe('claude-opus-4-5');
    expect(response.message.role).toBe('assistant');
    expect(response.message.content).toBe('Paris is the capital of France.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({
      inputTokens: 21,
      outputTokens: 9,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
    });
    expect(response.modelId).toBe('claude-opus-4-5-20251101');

    const body = sent();
    expect(body).toEqual({
      model: 'claude-opus-4-5',
      max_tokens: 1024,
      // The automatic prompt-cache breakpoints: the end of the system prompt and of the last message.
      system: [{ type: 'text', text: 'Answer in one sentence.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'What is the capital of France?', cache_control: { type: 'ephemeral' } }],
        },
      ],
      temperature: 0.2,
    });
    expectValidHistory(body);
  });

  it('counts cache reads and writes into the input tokens, and reads citations: null as plain text', async () => {
    server.enqueue(fixture('text-cached'));
    const response = await model().complete({ messages: [Message.user('When does the contract renew?')] });
    expect(response.usage).toEqual({
      inputTokens: 12 + 248 + 1804,
      outputTokens: 11,
      cachedInputTokens: 1804,
      cacheWriteInputTokens: 248,
    });
    expect(response.message.content).toBe('The contract renews on 1 March.');
  });

  it('lets a request override the default token limit and temperature, and sends extraBody fields', async () => {
    server.enqueue(fixture('text'));
    const chat = model({ temperature: 1, extraBody: { top_k: 5, metadata: { user_id: 'u-1' } } });
    await chat.complete({ messages: [Message.user('Hi')], maxOutputTokens: 64, temperature: 0 });
    expect(sent()).toMatchObject({ max_tokens: 64, temperature: 0, top_k: 5, metadata: { user_id: 'u-1' } });
  });

  it('puts cache_control markers of system and user parts on the wire (cache: off adds none)', async () => {
    server.enqueue(fixture('text-cached'));
    const cached = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;
    const system = [
      Message.create({
        role: 'system',
        content: [{ type: 'text', text: 'A long policy document…', providerOptions: cached }],
      }),
    ];
    const user = Message.user([
      {
        type: 'text',
        text: 'The contract:',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } },
      },
      { type: 'text', text: 'When does it renew?' },
    ]);
    await model({ cache: 'off' }).complete({ system, messages: [user] });
    const body = sent();
    expect(body['system']).toEqual([
      { type: 'text', text: 'A long policy document…', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The contract:', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'When does it renew?' },
        ],
      },
    ]);
    expectValidHistory(body);
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'other'],
    ['tool_use (with no tool_use block)', 'other'],
    [null, 'other'],
  ])('maps stop_reason %s to %s', async (stopReason, expected) => {
    const recorded = fixture('text');
    server.enqueue({ ...recorded, body: { ...recorded.body, stop_reason: stopReason?.split(' ')[0] ?? null } });
    const response = await model().complete({ messages: [Message.user('Hi')] });
    expect(response.finishReason).toBe(expected);
  });

  it('reports what the format could not carry through onWarning', async () => {
    server.enqueue(fixture('text'));
    const warnings: FormatWarning[] = [];
    const foreign = Message.assistant([
      { type: 'reasoning', text: 'OpenAI reasoning', provider: 'openaiResponses' },
      { type: 'text', text: 'Earlier answer' },
    ]);
    await model({ onWarning: (warning) => warnings.push(warning) }).complete({
      messages: [Message.user('Hi'), foreign, Message.user('Again')],
    });
    expect(warnings.map((warning) => warning.code)).toContain('dropped_reasoning');
    expectValidHistory(sent());
  });
});

describe('anthropicModel: tools', () => {
  it('sends tools with input_schema and reads a tool_use block as a tool call', async () => {
    server.enqueue(fixture('tool-use'));
    const bare: ToolSpec = { name: 'list_cities' };
    const response = await model().complete({
      messages: [Message.user('Weather in Paris?')],
      tools: [weather, bare],
      toolChoice: 'auto',
    });

    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.content).toBe("I'll check the weather in Paris.");
    expect(response.message.toolCalls).toEqual([
      { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
    ]);
    const body = sent();
    expect(body['tools']).toEqual([
      { name: 'get_weather', description: 'Current weather of a city', input_schema: weather.parameters },
      { name: 'list_cities', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(body['tool_choice']).toEqual({ type: 'auto' });
  });

  it.each([
    ['required', { type: 'any' }],
    ['none', { type: 'none' }],
    [{ name: 'get_weather' }, { type: 'tool', name: 'get_weather' }],
  ] as const)('maps toolChoice %j to %j', async (toolChoice, wire) => {
    server.enqueue(fixture('tool-use'));
    await model().complete({ messages: [Message.user('Weather?')], tools: [weather], toolChoice });
    expect(sent()['tool_choice']).toEqual(wire);
  });

  it('reads parallel tool calls and sends both results back in one user turn', async () => {
    server.enqueue(fixture('parallel-tool-use'), fixture('after-tool-results'));
    const chat = model();
    const question = Message.user('Weather in Paris and Rome?');
    const first = await chat.complete({ messages: [question], tools: [weather] });
    expect(first.message.toolCalls?.map((call) => [call.id, call.arguments])).toEqual([
      ['toolu_01ParisWeather00000001', '{"city":"Paris"}'],
      ['toolu_01RomeWeather000000001', '{"city":"Rome"}'],
    ]);

    const results = [
      Message.tool('toolu_01ParisWeather00000001', '18°C, cloudy', { name: 'get_weather' }),
      Message.tool('toolu_01RomeWeather000000001', 'lookup failed: timeout', {
        name: 'get_weather',
        metadata: { isError: true },
      }),
    ];
    const second = await chat.complete({ messages: [question, first.message, ...results], tools: [weather] });
    expect(second.message.content).toBe('Paris is 18°C and cloudy; Rome is 24°C and sunny.');
    expect(second.finishReason).toBe('stop');

    const body = sent(1);
    expectValidHistory(body);
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      { role: 'assistant', content: fixture('parallel-tool-use').body['content'] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01ParisWeather00000001', content: '18°C, cloudy' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01RomeWeather000000001',
            content: 'lookup failed: timeout',
            is_error: true,
            // The end of the request: the tool loop's next call reads everything up to here from the cache.
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
  });

  it('sends thinking blocks with their signatures and redacted_thinking back unchanged', async () => {
    server.enqueue(fixture('thinking-tool-use'), fixture('after-tool-results'));
    const chat = model({ extraBody: { thinking: { type: 'enabled', budget_tokens: 2048 } } });
    const question = Message.user('Weather in Paris?');
    const first = await chat.complete({ messages: [question], tools: [weather] });

    const recorded = fixture('thinking-tool-use').body['content'] as Json[];
    expect(first.message.content).toEqual([
      {
        type: 'reasoning',
        text: recorded[0]?.['thinking'],
        signature: recorded[0]?.['signature'],
        provider: 'anthropic',
      },
      { type: 'raw', provider: 'anthropic', value: recorded[1] },
    ]);
    expect(first.message.toolCalls?.[0]?.id).toBe('toolu_01ThinkingWeather000001');

    const result = Message.tool('toolu_01ThinkingWeather000001', '18°C, cloudy');
    await chat.complete({ messages: [question, first.message, result], tools: [weather] });
    const body = sent(1);
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect((body['messages'] as Json[])[1]).toEqual({ role: 'assistant', content: recorded });
    expectValidHistory(body);
  });

  it('keeps server-tool blocks and cited text as raw parts and sends them back verbatim', async () => {
    server.enqueue(fixture('server-tool-use'), fixture('text'));
    // Without automatic breakpoints, which would add one to the answer's last block (the previous turn's end).
    const chat = model({ cache: 'off' });
    const question = Message.user('When was Claude Shannon born?');
    const first = await chat.complete({ messages: [question] });
    expect(first.finishReason).toBe('stop');
    expect(first.message.toolCalls).toBeUndefined();

    await chat.complete({ messages: [question, first.message, Message.user('Thanks!')] });
    const body = sent(1);
    expect((body['messages'] as Json[])[1]).toEqual({
      role: 'assistant',
      content: fixture('server-tool-use').body['content'],
    });
  });
});

/** Where the sent body's breakpoints are: `system[i]`, `messages[i].content[j]` (and inside tool results). */
function breakpoints(body: Json): string[] {
  const found: string[] = [];
  const visit = (blocks: unknown, path: string): void => {
    if (!Array.isArray(blocks)) return;
    blocks.forEach((block: Json, index) => {
      if (block['cache_control'] !== undefined) found.push(`${path}[${index}]`);
      visit(block['content'], `${path}[${index}].content`);
    });
  };
  visit(body['system'], 'system');
  (body['messages'] as Json[]).forEach((message, index) => visit(message['content'], `messages[${index}].content`));
  return found;
}

describe('anthropicModel: automatic cache breakpoints', () => {
  const cached = { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } as const;
  const signed = { type: 'reasoning', text: 'Checked the cache.', signature: 'sig-1', provider: 'anthropic' } as const;
  // A second turn in its tool loop: turn 1 ended with an answer whose last block is thinking.
  const history = [
    Message.user('Summarise the contract.'),
    Message.assistant([{ type: 'text', text: 'It renews yearly.' }, signed]),
    Message.user('When does it renew?'),
    Message.assistant('', { toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
    Message.tool('toolu_1', '18°C', { name: 'get_weather' }),
  ];

  it('marks the end of the system prompt, of the last message and of the previous turn, never a thinking block', async () => {
    server.enqueue(fixture('text'));
    await model().complete({ system: 'You read contracts.', messages: history, tools: [weather] });
    const body = sent();
    expect(breakpoints(body)).toEqual(['system[0]', 'messages[1].content[0]', 'messages[4].content[0]']);
    expect((body['messages'] as Json[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'It renews yearly.', cache_control: { type: 'ephemeral' } },
        { type: 'thinking', thinking: 'Checked the cache.', signature: 'sig-1' },
      ],
    });
    expect((body['messages'] as Json[])[4]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C', cache_control: { type: 'ephemeral' } }],
    });
    expect(body['tools']).toEqual([
      { name: 'get_weather', description: 'Current weather of a city', input_schema: weather.parameters },
    ]);
    expectValidHistory(body);
  });

  it('keeps the caller’s markers and adds only as many as make 4 in all', async () => {
    server.enqueue(fixture('text'), fixture('text'));
    const system = [
      Message.create({ role: 'system', content: [{ type: 'text', text: 'Policy', providerOptions: cached }] }),
    ];
    const [question, answer, ...rest] = history;
    const marked = [
      Message.user([{ type: 'text', text: 'Summarise the contract.', providerOptions: cached }]),
      answer as Message,
      Message.user([{ type: 'text', text: 'When does it renew?', providerOptions: cached }]),
      ...rest.slice(1),
    ];
    expect(question).toBeDefined();
    await model().complete({ system, messages: marked });
    const body = sent();
    // Three of the caller's (with their 1h TTL), then the most valuable place left: the last message.
    expect(breakpoints(body)).toEqual([
      'system[0]',
      'messages[0].content[0]',
      'messages[2].content[0]',
      'messages[4].content[0]',
    ]);
    expect((body['system'] as Json[])[0]).toEqual({
      type: 'text',
      text: 'Policy',
      cache_control: { type: 'ephemeral', ttl: '1h' },
    });

    // A top-level cache_control (Anthropic's own automatic breakpoint) takes the last one.
    await model({ extraBody: { cache_control: { type: 'ephemeral' } } }).complete({ system, messages: marked });
    const second = sent(1);
    expect(breakpoints(second)).toEqual(['system[0]', 'messages[0].content[0]', 'messages[2].content[0]']);
    expect(second['cache_control']).toEqual({ type: 'ephemeral' });
  });

  it('adds none with cache: off, and sends no cache key (Anthropic has none)', async () => {
    server.enqueue(fixture('text'));
    await model({ cache: 'off' }).complete({ system: 'You read contracts.', messages: history, cacheKey: 'session-1' });
    expect(breakpoints(sent())).toEqual([]);
    expect(JSON.stringify(sent())).not.toContain('session-1');
  });

  it('refuses a cache policy it does not know', () => {
    expect(() => model({ cache: 'always' as 'auto' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error,
    );
  });
});

describe('anthropicModel: failures', () => {
  it('throws RATE_LIMITED for a 429, retryable, with the status and request id', async () => {
    server.enqueue(fixture('error-429'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error).toMatchObject({ provider: 'anthropic', status: 429, retryable: true });
    expect(error.details['requestId']).toBe('req_011CRateLimited000000001');
  });

  it.each([
    ['error-500', 500],
    ['error-529', 529],
  ])('throws a retryable MODEL_FAILED for %s', async (name, status) => {
    server.enqueue(fixture(name));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ provider: 'anthropic', status, retryable: true });
  });

  it('throws a MODEL_FAILED that is not retryable for a 400', async () => {
    server.enqueue(fixture('error-400'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toContain('invalid_request_error');
  });

  it.each([
    ['error-context-overflow', 400, { limitTokens: 200_000, requestedTokens: 208_310 }],
    // The prompt plus the max_tokens asked for, counted against the window.
    ['error-context-overflow-max-tokens', 400, { limitTokens: 204_648, requestedTokens: 209_136 }],
    // Too many bytes (Cloudflare answers it before the API): an overflow without token figures.
    ['error-context-overflow-413', 413, {}],
  ] as const)('throws CONTEXT_OVERFLOW, not retryable, for %s', async (name, status, figures) => {
    server.enqueue(fixture(name));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('CONTEXT_OVERFLOW');
    expect(error).toMatchObject({ provider: 'anthropic', status, retryable: false });
    expect(error.details).toEqual({
      provider: 'anthropic',
      status,
      retryable: false,
      ...(fixture(name).headers === undefined ? {} : { requestId: fixture(name).headers?.['request-id'] }),
      ...figures,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps a 400 about max_tokens alone a MODEL_FAILED: the prompt fits, the setting is wrong', async () => {
    server.enqueue(fixture('error-400-max-tokens'));
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ status: 400, retryable: false });
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
    expect(server.requests).toHaveLength(1);
  });

  it('throws ABORTED without an HTTP request for a signal aborted before the call', async () => {
    const error = await failure(model().complete({ messages: [Message.user('Hi')], signal: AbortSignal.abort() }));
    expect(error.code).toBe('ABORTED');
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, ReplayedResponse]>([
    ['a body that is not JSON', { body: 'upstream proxy error' }],
    ['a JSON body that does not parse', { body: '{"id": "msg_01', headers: { 'content-type': 'application/json' } }],
    ['a body without content', { body: { id: 'msg_1', type: 'message', role: 'assistant' } }],
    ['a content block without a type', { body: { ...fixture('text').body, content: [{ text: 'hi' }] } }],
    [
      'a tool_use block without an id',
      { body: { ...fixture('tool-use').body, content: [{ type: 'tool_use', name: 'get_weather', input: {} }] } },
    ],
    ['an empty content array (no assistant message can be empty)', fixture('empty-content')],
    ['only blank text', { body: { ...fixture('text').body, content: [{ type: 'text', text: '  ' }] } }],
    [
      'a tool_use id the message rules refuse',
      {
        body: {
          ...fixture('tool-use').body,
          content: [{ type: 'tool_use', id: 'has spaces', name: 'get_weather', input: {} }],
        },
      },
    ],
  ])('throws a MODEL_FAILED that is not retryable for %s', async (_what, answer) => {
    server.enqueue(answer);
    const error = await failure(model().complete({ messages: [Message.user('Hi')] }));
    expect(error.code).toBe('MODEL_FAILED');
    expect(error).toMatchObject({ retryable: false });
    expect(error.message).toContain('could not be read');
  });
});

describe('anthropicModel: bad input', () => {
  const base = { client: {} as Anthropic, model: 'claude-sonnet-4-6', maxTokens: 1024 };

  it.each<[string, () => unknown]>([
    ['a client without messages.create', () => anthropicModel(base)],
    [
      'an empty model id',
      () => anthropicModel({ client: new Anthropic({ apiKey: 'test' }), model: '', maxTokens: 10 }),
    ],
    [
      'a missing maxTokens',
      () =>
        anthropicModel({ client: new Anthropic({ apiKey: 'test' }), model: 'm' } as unknown as AnthropicModelOptions),
    ],
    ['a maxTokens of 0', () => anthropicModel({ client: new Anthropic({ apiKey: 'test' }), model: 'm', maxTokens: 0 })],
    [
      'a negative temperature',
      () => anthropicModel({ client: new Anthropic({ apiKey: 'test' }), model: 'm', maxTokens: 1, temperature: -1 }),
    ],
    [
      'extraBody setting messages',
      () =>
        anthropicModel({
          client: new Anthropic({ apiKey: 'test' }),
          model: 'm',
          maxTokens: 1,
          extraBody: { messages: [] },
        }),
    ],
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
    ['a negative maxOutputTokens', { messages: [Message.user('Hi')], maxOutputTokens: -1 }],
  ])('refuses a request with %s before any HTTP call', async (_what, request) => {
    const error = await failure(model().complete(request));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(server.requests).toHaveLength(0);
  });
});
