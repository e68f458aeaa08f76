import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors.js';
import { ModelLimits, answerRoom } from './model-limits.js';

function overflow(details: { limitTokens?: number; requestedTokens?: number }): ModelError {
  return new ModelError('CONTEXT_OVERFLOW', 'too long', { provider: 'openaiChat', retryable: false, ...details });
}

describe('ModelLimits', () => {
  it("knows nothing of an unlisted model until its provider states a limit, which then wins over the table's", () => {
    const limits = new ModelLimits();
    expect(limits.limit('my-model', 'auto')).toBeUndefined();
    expect(limits.limit('gpt-4o', 'auto')).toMatchObject({ contextTokens: 128_000, source: 'table' });
    // A configured number budgets the messages itself; the table is for 'auto'.
    expect(limits.limit('gpt-4o', 5000)).toBeUndefined();
    limits.observeOverflow('gpt-4o', overflow({ limitTokens: 100_000, requestedTokens: 120_000 }), 100_000);
    expect(limits.limit('gpt-4o', 5000)).toMatchObject({ contextTokens: 100_000, source: 'provider' });
    expect(limits.ratio('gpt-4o')).toBeCloseTo(1.2);
  });

  it('overrides add models to the table', () => {
    const limits = new ModelLimits();
    expect(
      limits.limit('house-model', 'auto', { 'house-model': { contextTokens: 10_000, maxOutputTokens: 500 } }),
    ).toEqual({ contextTokens: 10_000, answerTokens: 500, source: 'table' });
  });

  it('without figures, each refusal aims lower than what was refused', () => {
    const limits = new ModelLimits();
    limits.observeOverflow('m', overflow({}), 10_000);
    const first = limits.limit('m', undefined)?.contextTokens as number;
    expect(first).toBeLessThan(10_000 * 1.1);
    limits.observeOverflow('m', overflow({}), 6_000);
    expect(limits.limit('m', undefined)?.contextTokens).toBeLessThan(first);
  });

  it('learns the ratio from usage, leaning high, and ignores nonsense', () => {
    const limits = new ModelLimits();
    limits.observeUsage('m', 1000, 1300);
    expect(limits.ratio('m')).toBeCloseTo(1.3);
    limits.observeUsage('m', 1000, 1000);
    expect(limits.ratio('m')).toBeGreaterThan(1.2);
    limits.observeUsage('m', 0, 1000);
    limits.observeUsage('m', 1000, Number.NaN);
    limits.observeUsage('m', 1, 1_000_000);
    // One absurd report moves it at most to the bound.
    expect(limits.ratio('m')).toBeLessThanOrEqual(4);
  });

  it('keeps room for the answer: 15% of the window, or the largest answer when smaller', () => {
    expect(answerRoom(100_000, 4096)).toBe(4096);
    expect(answerRoom(8192, 32_000)).toBe(1228);
    expect(answerRoom(1000, undefined)).toBe(150);
  });
});
