import { describe, expect, it } from 'vitest';
import { toModelError } from './model-error.js';

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
