import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors.js';
import { errorAnswer } from './errors.js';

describe('errorAnswer: a model call that failed', () => {
  it('answers a context overflow 422 with its figures, and no Retry-After (the same request fails again)', () => {
    const overflow = new ModelError('CONTEXT_OVERFLOW', 'anthropic: the request does not fit', {
      provider: 'anthropic',
      status: 400,
      retryable: false,
      limitTokens: 200_000,
      requestedTokens: 208_310,
    });
    expect(errorAnswer(overflow)).toEqual({
      status: 422,
      body: {
        code: 'CONTEXT_OVERFLOW',
        message: 'anthropic: the request does not fit',
        details: {
          provider: 'anthropic',
          status: 400,
          retryable: false,
          limitTokens: 200_000,
          requestedTokens: 208_310,
        },
      },
      headers: {},
    });
  });

  it('keeps a rate limit 429 and any other model failure 502', () => {
    const limited = new ModelError('RATE_LIMITED', 'slow down', {
      provider: 'openaiChat',
      status: 429,
      retryable: true,
      retryAfterMs: 2_500,
    });
    expect(errorAnswer(limited)).toMatchObject({ status: 429, headers: { 'Retry-After': '3' } });
    const failed = new ModelError('MODEL_FAILED', 'bad request', {
      provider: 'openaiChat',
      status: 400,
      retryable: false,
    });
    expect(errorAnswer(failed).status).toBe(502);
  });
});
