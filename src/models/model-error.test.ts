import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors.js';
import { contextOverflowOf, toModelError } from './model-error.js';

/** A client error with `status` and response headers as `openai` / `@anthropic-ai/sdk` give them. */
function apiError(status: number, headers: Record<string, string>): Error {
  return Object.assign(new Error(`${status} from the provider`), { status, headers: new Headers(headers) });
}

describe('toModelError: the wait the provider asked for', () => {
  it('reads retry-after in seconds, or as an HTTP date', () => {
    expect(toModelError(apiError(429, { 'retry-after': '12' }), 'anthropic').details).toMatchObject({
      retryAfterMs: 12_000,
    });
    const date = new Date(Date.now() + 30_000).toUTCString();
    const wait = toModelError(apiError(429, { 'retry-after': date }), 'openaiChat').details['retryAfterMs'] as number;
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });

  it("prefers retry-after-ms (OpenAI's), and reads the `ai` package's responseHeaders", () => {
    const both = apiError(429, { 'retry-after-ms': '250', 'retry-after': '9' });
    expect(toModelError(both, 'openaiChat').details['retryAfterMs']).toBe(250);
    const fromAi = Object.assign(new Error('rate limited'), {
      statusCode: 429,
      responseHeaders: { 'retry-after': '3' },
    });
    expect(toModelError(fromAi, 'aiSdk')).toMatchObject({ code: 'RATE_LIMITED', details: { retryAfterMs: 3000 } });
  });

  it('leaves it out when absent or unreadable, never more than a day, and survives hostile headers', () => {
    expect(toModelError(apiError(429, {}), 'openaiChat').details).not.toHaveProperty('retryAfterMs');
    expect(toModelError(apiError(429, { 'retry-after': 'soon' }), 'openaiChat').details).not.toHaveProperty(
      'retryAfterMs',
    );
    expect(toModelError(apiError(503, { 'retry-after': '999999999' }), 'openaiChat').details['retryAfterMs']).toBe(
      86_400_000,
    );
    const past = new Date(Date.now() - 60_000).toUTCString();
    expect(toModelError(apiError(429, { 'retry-after': past }), 'openaiChat').details['retryAfterMs']).toBe(0);
    // A getter that throws (defined, not assigned: `Object.assign` would call it here).
    const hostile = Object.defineProperty(Object.assign(new Error('x'), { status: 429 }), 'headers', {
      get(): never {
        throw new Error('no headers for you');
      },
    });
    expect(toModelError(hostile, 'openaiChat')).toMatchObject({ code: 'RATE_LIMITED' });
  });
});

/** A client error as `openai` throws it: `status`, the body's `error` object, and its code and type. */
function openaiError(status: number, body: { message: string; type: string; code: string | null }): Error {
  return Object.assign(new Error(`${status} ${body.message}`), {
    status,
    error: body,
    code: body.code,
    type: body.type,
  });
}

/** A client error as `@anthropic-ai/sdk` throws it: `status` and the whole body as `error`. */
function anthropicError(status: number, type: string, message: string): Error {
  const body = { type: 'error', error: { type, message } };
  return Object.assign(new Error(`${status} ${JSON.stringify(body)}`), { status, error: body });
}

describe('contextOverflowOf: the figures of an overflow', () => {
  it("reads OpenAI's limit and count, in both of its wordings", () => {
    const resulted = openaiError(400, {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 173172 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    });
    expect(contextOverflowOf(resulted)).toEqual({ limitTokens: 128_000, requestedTokens: 173_172 });
    const requested = openaiError(400, {
      message:
        "This model's maximum context length is 4097 tokens. However, you requested 4268 tokens (4012 in the messages, 256 in the completion). Please reduce the length of the messages or completion.",
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    });
    expect(contextOverflowOf(requested)).toEqual({ limitTokens: 4097, requestedTokens: 4268 });
  });

  it("reads Anthropic's, Gemini's, and Anthropic's input-plus-max_tokens sum", () => {
    expect(
      contextOverflowOf(
        anthropicError(400, 'invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
      ),
    ).toEqual({ limitTokens: 200_000, requestedTokens: 208_310 });
    const summed = anthropicError(
      400,
      'invalid_request_error',
      'input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again',
    );
    expect(contextOverflowOf(summed)).toEqual({ limitTokens: 204_648, requestedTokens: 209_136 });
    // The `ai` package: status in `statusCode`, the provider's message as the message.
    const gemini = Object.assign(
      new Error('The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).'),
      { statusCode: 400 },
    );
    expect(contextOverflowOf(gemini)).toEqual({ limitTokens: 1_048_576, requestedTokens: 1_054_016 });
  });

  it('recognizes an overflow without figures: Responses, a 413, a failed response', () => {
    const responses = openaiError(400, {
      message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    });
    expect(contextOverflowOf(responses)).toEqual({});
    expect(contextOverflowOf(anthropicError(413, 'request_too_large', 'Request exceeds the maximum size'))).toEqual({});
    expect(
      contextOverflowOf({ code: 'context_length_exceeded', message: 'Your input exceeds the context window.' }),
    ).toEqual({});
  });

  it('reads figures with thousands separators, and omits figures it cannot read rather than guess', () => {
    const commas = (message: string) => contextOverflowOf(anthropicError(400, 'invalid_request_error', message));
    expect(commas('prompt is too long: 1,208,310 tokens > 1,000,000 maximum')).toEqual({
      limitTokens: 1_000_000,
      requestedTokens: 1_208_310,
    });
    // A misplaced comma, a decimal, a figure past Number.MAX_SAFE_INTEGER, a zero: left out, the rest kept.
    expect(commas('prompt is too long: 12,34 tokens > 200000 maximum')).toEqual({ limitTokens: 200_000 });
    expect(commas('prompt is too long: 208310.5 tokens > 200000 maximum')).toEqual({ limitTokens: 200_000 });
    expect(commas('prompt is too long: 99999999999999999999 tokens > 200000 maximum')).toEqual({
      limitTokens: 200_000,
    });
    expect(commas('prompt is too long: 208310 tokens > 0 maximum')).toEqual({ requestedTokens: 208_310 });
    expect(commas('prompt is too long')).toEqual({});
    const summed = 'input length and `max_tokens` exceed context limit: 9007199254740991 + 1 > 204648';
    expect(commas(summed)).toEqual({ limitTokens: 204_648 });
  });

  it('is not fooled: other 400s, 429s (even "Request too large"), 5xx, and hostile values', () => {
    expect(
      contextOverflowOf(
        anthropicError(
          400,
          'invalid_request_error',
          'max_tokens: 21333 > 4096, which is the maximum allowed number of output tokens for claude-3-opus-20240229',
        ),
      ),
    ).toBeUndefined();
    const tpm = openaiError(429, {
      message:
        'Request too large for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully.',
      type: 'tokens',
      code: 'rate_limit_exceeded',
    });
    expect(contextOverflowOf(tpm)).toBeUndefined();
    expect(toModelError(tpm, 'openaiChat').code).toBe('RATE_LIMITED');
    // A 429 or 5xx saying the words is still a rate limit or a server failure.
    const words = "This model's maximum context length is 8192 tokens.";
    expect(contextOverflowOf(Object.assign(new Error(words), { status: 429 }))).toBeUndefined();
    expect(contextOverflowOf(Object.assign(new Error(words), { status: 500 }))).toBeUndefined();
    for (const value of [undefined, null, 'prompt is too long', 42, {}, []])
      expect(contextOverflowOf(value)).toBeUndefined();
    const hostile = Object.defineProperty(Object.assign(new Error('x'), { status: 400 }), 'error', {
      get(): never {
        throw new Error('no body for you');
      },
    });
    expect(contextOverflowOf(hostile)).toBeUndefined();
    // A huge message is read only so far: no stall, and the words at its start still count.
    const long = `prompt is too long: 208310 tokens > 200000 maximum ${'9'.repeat(5_000_000)}`;
    expect(contextOverflowOf(Object.assign(new Error(long), { status: 400 }))).toEqual({
      limitTokens: 200_000,
      requestedTokens: 208_310,
    });
  });
});

describe('toModelError: CONTEXT_OVERFLOW', () => {
  it('is a ModelError that is never retryable, with the figures in its details', () => {
    const error = toModelError(
      anthropicError(400, 'invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
      'anthropic',
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      code: 'CONTEXT_OVERFLOW',
      retryable: false,
      status: 400,
      details: { provider: 'anthropic', status: 400, retryable: false, limitTokens: 200_000, requestedTokens: 208_310 },
    });
    expect(error.message).toContain('(208310 tokens > 200000)');
    // `ai` marks some errors retryable itself; an overflow is not, whatever it says.
    const aiError = Object.assign(new Error('prompt is too long: 5 tokens > 4 maximum'), {
      statusCode: 400,
      isRetryable: true,
    });
    expect(toModelError(aiError, 'aiSdk')).toMatchObject({ code: 'CONTEXT_OVERFLOW', retryable: false });
  });
});
