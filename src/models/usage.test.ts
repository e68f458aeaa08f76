import { describe, expect, it } from 'vitest';
import { tokenCount, usageOf } from './usage.js';

describe('tokenCount', () => {
  const answer = { usage: { prompt_tokens: 12, details: { cached: 4 }, bad: -1, fraction: 1.5, text: '3' } };

  it('reads a nested count', () => {
    expect(tokenCount(answer, 'usage', 'prompt_tokens')).toBe(12);
    expect(tokenCount(answer, 'usage', 'details', 'cached')).toBe(4);
  });

  it.each([
    ['a missing path', ['usage', 'nope']],
    ['a negative count', ['usage', 'bad']],
    ['a fraction', ['usage', 'fraction']],
    ['a string', ['usage', 'text']],
    ['a path through a number', ['usage', 'prompt_tokens', 'x']],
    ['an inherited key', ['usage', 'constructor']],
  ])('gives undefined for %s', (_what, path) => {
    expect(tokenCount(answer, ...path)).toBeUndefined();
  });

  it('gives undefined for a value that is no object', () => {
    expect(tokenCount(null, 'usage')).toBeUndefined();
    expect(tokenCount([1], '0')).toBeUndefined();
  });
});

describe('usageOf', () => {
  it('keeps the counts that are known', () => {
    expect(usageOf(10, 2, 3)).toEqual({ inputTokens: 10, outputTokens: 2, cachedInputTokens: 3 });
    expect(usageOf(10, undefined, undefined)).toEqual({ inputTokens: 10 });
    expect(usageOf(10, 2, 3, 4)).toEqual({
      inputTokens: 10,
      outputTokens: 2,
      cachedInputTokens: 3,
      cacheWriteInputTokens: 4,
    });
  });

  it('gives no usage without the input count', () => {
    expect(usageOf(undefined, 2, 3)).toBeUndefined();
  });
});
