/**
 * `openaiResponsesModel` end to end: the real `openai` client speaks HTTP to the local protocol
 * server, which replays recorded Responses bodies; tests check the exact wire the client sent and
 * the `ChatResponse` read back — above all that reasoning items return to the API unchanged.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { formats } from '../../src/formats/index.js';
import type { FormatWarning } from '../../src/formats/types.js';
import { Message } from '../../src/message/message.js';
import { openaiResponsesModel } from '../../src/models/openai-responses.js';
import type { ChatRequest, ToolSpec } from '../../src/models/types.js';
import { failure, openaiBody } from '../support/protocol-fixtures.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';

const fixture = openaiBody;

/** The `index`th output item of a recorded response. */
function outputItem(name: string, index: number): unknown {
  return (fixture(name)['output'] as unknown[])[index];
}

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather of a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
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
describe('openaiResponsesModel: answers', () => {
  it('sends instructions, input and settings, and reads a text answer with usage', async () => {
    server.enqueue({ body: fixture('responses-text') });
    const model = openaiResponsesModel({ client, model: 'gpt-4.1' });
    const response = await model.complete({
      system: 'Be brief.',
      messages: [Message.user('Capital of France?')],
      maxOutputTokens: 100,
      temperature: 0.2,
    });

    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(sent()).toEqual({
      model: 'gpt-4.1',
      instructions: 'Be brief.',
      input: [{ type: 'message', role: 'user', content: 'Capital of France?' }],
      max_output_tokens: 100,
      temperature: 0.2,
    });
    expect(model.provider).toBe('openaiResponses');
    expect(Message.text(response.message)).toBe('Paris is the capital of France.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ inputTokens: 1536, outputTokens: 9, cachedInputTokens: 1280 });
    expect(response.modelId).toBe('gpt-4.1-2025-04-14');
  });

  it('sends request.cacheKey as prompt_cache_key (hashed past 64 characters) and reads cache writes', async () => {
    const text = fixture('responses-text');
    const usage = text['usage'] as Record<string, unknown>;
    const written = {
      ...text,
      usage: { ...usage, input_tokens_details: { cached_tokens: 1280, cache_write_tokens: 256 } },
    };
    server.enqueue({ body: written }, { body: text });
    const model = openaiResponsesModel({ client, model: 'gpt-5-mini' });
    const response = await model.complete({ messages: [Message.user('Hi')], cacheKey: 'session-trip-lisbon' });
    expect(sent(0)['prompt_cache_key']).toBe('session-trip-lisbon');
    expect(response.usage).toMatchObject({ cachedInputTokens: 1280, cacheWriteInputTokens: 256 });

    const long = 'k'.repeat(65);
    await model.complete({ messages: [Message.user('Hi')], cacheKey: long });
    expect(sent(1)['prompt_cache_key']).toBe(createHash('sha256').update(long).digest('hex'));
  });

  it('sends extraBody fields and the adapter defaults', async () => {
    server.enqueue({ body: fixture('responses-text') });
    const extraBody = { store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low' } };
    await openaiResponsesModel({ client, model: 'o4-mini', maxOutputTokens: 2000, extraBody }).complete({
      messages: [Message.user('Hi')],
    });
    expect(sent()).toEqual({
      ...extraBody,
      model: 'o4-mini',
      input: [{ type: 'message', role: 'user', content: 'Hi' }],
      max_output_tokens: 2000,
    });
  });

  it('reads one tool call and sends function tools (strict false unless asked) with tool_choice', async () => {
    server.enqueue({ body: fixture('responses-tool-call') }, { body: fixture('responses-tool-call') });
    const response = await openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({
      messages: [Message.user('Weather in Paris?')],
      tools: [weather],
      toolChoice: 'required',
    });
    await openaiResponsesModel({ client, model: 'gpt-4.1', strict: true }).complete({
      messages: [Message.user('Weather?')],
      tools: [weather, { name: 'get_time' }],
      toolChoice: { name: 'get_weather' },
    });

    expect(sent(0)['tools']).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Current weather of a city.',
        parameters: weather.parameters,
        strict: false,
      },
    ]);
    expect(sent(0)['tool_choice']).toBe('required');
    expect(sent(1)['tools']).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Current weather of a city.',
        parameters: weather.parameters,
        strict: true,
      },
      { type: 'function', name: 'get_time', parameters: { type: 'object', properties: {} }, strict: true },
    ]);
    expect(sent(1)['tool_choice']).toEqual({ type: 'function', name: 'get_weather' });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.toolCalls?.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['call_unLAR8MvFNptuiZK6K6HCy5k', 'get_weather', '{"city":"Paris"}'],
    ]);
  });

  it('reads parallel tool calls and sends their results back in a follow-up request the API accepts', async () => {
    server.enqueue({ body: fixture('responses-parallel-tool-calls') }, { body: fixture('responses-text') });
    const model = openaiResponsesModel({ client, model: 'gpt-4.1' });
    const question = Message.user('Weather in Paris and Tokyo?');
    const first = await model.complete({ messages: [question], tools: [weather] });
    const calls = first.message.toolCalls ?? [];
    expect(calls.map((call) => call.id)).toEqual(['call_Xp3nD8qLr2VbM6wT0zY5sK1a', 'call_Hq7fJ2vN9cR4xL1pW8mB3tE6']);

    const results = calls.map((call, index) =>
      Message.tool(call.id, index === 0 ? '18°C, sunny' : '24°C, rain', { name: call.name }),
    );
    await model.complete({ messages: [question, first.message, ...results], tools: [weather] });
    const body = sent(1);
    expect(formats.openaiResponses.validate(body)).toEqual([]);
    expect(body['input']).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Paris and Tokyo?' },
      outputItem('responses-parallel-tool-calls', 0),
      outputItem('responses-parallel-tool-calls', 1),
      { type: 'function_call_output', call_id: 'call_Xp3nD8qLr2VbM6wT0zY5sK1a', output: '18°C, sunny' },
      { type: 'function_call_output', call_id: 'call_Hq7fJ2vN9cR4xL1pW8mB3tE6', output: '24°C, rain' },
    ]);
  });

  it('sends reasoning items back exactly as received, across a tool call and the final answer', async () => {
    server.enqueue(
      { body: fixture('responses-reasoning-tool-call') },
      { body: fixture('responses-reasoning-text') },
      { body: fixture('responses-text') },
    );
    const model = openaiResponsesModel({
      client,
      model: 'o4-mini',
      extraBody: { store: false, include: ['reasoning.encrypted_content'] },
    });
    const question = Message.user('Weather in Paris?');
    const first = await model.complete({ system: 'Be brief.', messages: [question], tools: [weather] });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.usage).toEqual({ inputTokens: 412, outputTokens: 180, cachedInputTokens: 0 });

    const result = Message.tool(first.message.toolCalls?.[0]?.id ?? '', '18°C, sunny', { name: 'get_weather' });
    const second = await model.complete({
      system: 'Be brief.',
      messages: [question, first.message, result],
      tools: [weather],
    });
    expect(second.finishReason).toBe('stop');
    expect(Message.text(second.message)).toBe('It is 18°C and sunny in Paris.');

    expect(formats.openaiResponses.validate(sent(1))).toEqual([]);
    expect(sent(1)['input']).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Paris?' },
      outputItem('responses-reasoning-tool-call', 0),
      outputItem('responses-reasoning-tool-call', 1),
      { type: 'function_call_output', call_id: 'call_R7sT1vW3zA5cD9eF2gH4jK6l', output: '18°C, sunny' },
    ]);

    // The final answer's reasoning item and message id go back too, on the next user turn.
    await model.complete({
      system: 'Be brief.',
      messages: [question, first.message, result, second.message, Message.user('And tomorrow?')],
      tools: [weather],
    });
    const input = sent(2)['input'] as unknown[];
    expect(formats.openaiResponses.validate(sent(2))).toEqual([]);
    expect(input[4]).toEqual(outputItem('responses-reasoning-text', 0));
    expect(input[5]).toEqual({
      type: 'message',
      id: 'msg_68a1b2c3d4e5f6071829304a5b6c7d93',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'It is 18°C and sunny in Paris.', annotations: [] }],
    });
    expect(input[6]).toEqual({ type: 'message', role: 'user', content: 'And tomorrow?' });
  });

  it('maps an answer cut at max_output_tokens to length', async () => {
    server.enqueue({ body: fixture('responses-incomplete') });
    const response = await openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({
      messages: [Message.user('Tell me')],
      maxOutputTokens: 8,
    });
    expect(response.finishReason).toBe('length');
    expect(Message.text(response.message)).toBe('The history of Paris begins with');
  });

  it('reports what the format could not carry through onWarning', async () => {
    server.enqueue({ body: fixture('responses-text') });
    const warnings: FormatWarning[] = [];
    const model = openaiResponsesModel({ client, model: 'gpt-4.1', onWarning: (warning) => warnings.push(warning) });
    const foreign = Message.assistant([
      { type: 'raw', provider: 'anthropic', value: { type: 'thinking', thinking: 'x', signature: 's' } },
      { type: 'text', text: 'Hello.' },
    ]);
    await model.complete({ messages: [Message.user('Hi'), foreign, Message.user('Again')] });
    expect(warnings.map((warning) => [warning.code, warning.messageId])).toEqual([['foreign_raw_part', foreign.id]]);
  });
});

describe('openaiResponsesModel: failures', () => {
  it.each([
    [429, 'error-429', 'RATE_LIMITED', true],
    [500, 'error-500', 'MODEL_FAILED', true],
    [400, 'error-400', 'MODEL_FAILED', false],
  ] as const)('turns HTTP %i into %s', async (status, name, code, retryable) => {
    server.enqueue({ status, body: fixture(name), headers: { 'x-request-id': `req_${status}` } });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ provider: 'openaiResponses', status, retryable, requestId: `req_${status}` });
    expect(server.requests).toHaveLength(1);
  });

  it('turns the 400 context_length_exceeded of Responses into CONTEXT_OVERFLOW, without figures (it gives none)', async () => {
    server.enqueue({
      status: 400,
      body: fixture('error-context-overflow-responses'),
      headers: { 'x-request-id': 'req_overflow' },
    });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-5' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('CONTEXT_OVERFLOW');
    expect(error.details).toEqual({
      provider: 'openaiResponses',
      status: 400,
      retryable: false,
      requestId: 'req_overflow',
    });
    expect(error.message).toContain('Your input exceeds the context window of this model');
  });

  it('turns a failed response whose error is context_length_exceeded into CONTEXT_OVERFLOW', async () => {
    server.enqueue({ body: fixture('responses-failed-context-overflow') });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-5' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('CONTEXT_OVERFLOW');
    expect(error.details).toEqual({ provider: 'openaiResponses', retryable: false });
    expect(error.message).toContain('the response failed: context_length_exceeded');
  });

  it('keeps the 429 "Request too large … tokens per min" a rate limit', async () => {
    server.enqueue({ status: 429, body: fixture('error-429-request-too-large') });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-4o' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error.code).toBe('RATE_LIMITED');
  });

  it("relies on the client's own retry: a 429 then a 200 succeeds", async () => {
    server.enqueue(
      { status: 429, body: fixture('error-429'), headers: { 'retry-after-ms': '0' } },
      { body: fixture('responses-text') },
    );
    const retrying = new OpenAI({ apiKey: 'test', baseURL: `${server.url}/v1`, maxRetries: 1 });
    const response = await openaiResponsesModel({ client: retrying, model: 'gpt-4.1' }).complete({
      messages: [Message.user('Hi')],
    });
    expect(response.finishReason).toBe('stop');
    expect(server.requests).toHaveLength(2);
  });

  it('throws ABORTED when the signal aborts while the server delays', async () => {
    const controller = new AbortController();
    server.respondWith(() => {
      controller.abort(); // the request has arrived: abort while the answer is still pending
      return { body: fixture('responses-text'), delayMs: 2_000 };
    });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({
        messages: [Message.user('Hi')],
        signal: controller.signal,
      }),
    );
    expect(error.code).toBe('ABORTED');
    expect(error.details).toMatchObject({ provider: 'openaiResponses', retryable: false });
  });

  it('turns a failed response into MODEL_FAILED, retryable for server_error', async () => {
    server.enqueue(
      { body: fixture('responses-failed') },
      { body: { ...fixture('responses-failed'), error: { code: 'invalid_prompt', message: 'Bad prompt.' } } },
    );
    const model = openaiResponsesModel({ client, model: 'gpt-4.1' });
    const transient = await failure(model.complete({ messages: [Message.user('Hi')] }));
    expect(transient.code).toBe('MODEL_FAILED');
    expect(transient.details).toMatchObject({ provider: 'openaiResponses', retryable: true });
    expect(transient.message).toContain('server_error: The model failed to generate a response.');
    const permanent = await failure(model.complete({ messages: [Message.user('Hi')] }));
    expect(permanent.details).toMatchObject({ retryable: false });
  });

  it('turns a failed response for rate limits into RATE_LIMITED', async () => {
    server.enqueue({
      body: { ...fixture('responses-failed'), error: { code: 'rate_limit_exceeded', message: 'Slow down.' } },
    });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details).toMatchObject({ retryable: true });
  });

  it.each([
    ['no output', { ...fixture('responses-text'), output: undefined }, 'no readable message or function call'],
    ['an empty output', { ...fixture('responses-text'), output: [] }, 'no readable message or function call'],
    ['a text body', '<html>Bad gateway</html>', 'no readable message or function call'],
    [
      'an output cut before anything was written',
      fixture('responses-incomplete-empty'),
      'cut at the output token limit',
    ],
    [
      'a background response still queued',
      { ...fixture('responses-text'), status: 'queued', output: [] },
      'still queued',
    ],
  ])('throws a non-retryable MODEL_FAILED for %s', async (_what, body, why) => {
    server.enqueue({ body });
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({ messages: [Message.user('Hi')] }),
    );
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.details).toMatchObject({ provider: 'openaiResponses', retryable: false });
    expect(error.message).toContain(why);
  });
});

describe('openaiResponsesModel: bad input', () => {
  it.each<[string, Partial<ChatRequest>, string]>([
    ['a tool name longer than 64 characters', { tools: [{ name: 'x'.repeat(65) }] }, 'tools[0].name'],
    ['a tool choice that is not one of the four', { toolChoice: 'any' as 'auto' }, 'toolChoice must be'],
    ['a system prompt that is neither text nor messages', { system: 42 as unknown as string }, 'request.system'],
  ])('refuses %s before any HTTP call', async (_what, changes, why) => {
    const error = await failure(
      openaiResponsesModel({ client, model: 'gpt-4.1' }).complete({ messages: [Message.user('Hi')], ...changes }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(why);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['a client without responses', { client: {} as OpenAI, model: 'o4-mini' }, 'responses.create'],
    [
      'extraBody chaining a stored response',
      { client: new OpenAI({ apiKey: 'test' }), model: 'o4-mini', extraBody: { previous_response_id: 'resp_1' } },
      'may not set "previous_response_id"',
    ],
    [
      'extraBody that is not an object',
      { client: new OpenAI({ apiKey: 'test' }), model: 'o4-mini', extraBody: [] as unknown as Record<string, never> },
      'extraBody must be an object',
    ],
    [
      'a strict flag that is not a boolean',
      { client: new OpenAI({ apiKey: 'test' }), model: 'o4-mini', strict: 'yes' as unknown as boolean },
      'strict must be a boolean',
    ],
    [
      'a default temperature that is not a number',
      { client: new OpenAI({ apiKey: 'test' }), model: 'o4-mini', temperature: Number.NaN },
      'temperature',
    ],
  ])('refuses %s at construction', (_what, options, why) => {
    expect(() => openaiResponsesModel(options)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(why) as unknown }),
    );
  });
});
