import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import { PUBLISHED_PRICES } from './published-prices.js';
import { UNKNOWN_MODEL, cachedShare, checkPrices, costOf, messageUsage, usageTotals } from './usage-totals.js';

const history = [
  Message.user('hi'),
  Message.assistant('a', {
    metadata: { usage: { model: 'small', inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 } },
  }),
  Message.assistant('b', {
    metadata: { usage: { model: 'large', inputTokens: 2000, outputTokens: 50, cacheWriteInputTokens: 1500 } },
  }),
  Message.assistant('c', { metadata: { usage: { inputTokens: 10 } } }),
  Message.assistant('d', { metadata: { usage: 'garbage' } }),
  Message.user('e', { metadata: { usage: { model: 'small', inputTokens: 99 } } }),
];

describe('usage totals and cost', () => {
  it('adds up the usage kept on assistant replies, by model', () => {
    const totals = usageTotals(history);
    expect(totals).toMatchObject({
      calls: 3,
      inputTokens: 3010,
      outputTokens: 150,
      cachedInputTokens: 400,
      cacheWriteInputTokens: 1500,
    });
    expect(totals.byModel).toEqual({
      small: { calls: 1, inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400, cacheWriteInputTokens: 0 },
      large: { calls: 1, inputTokens: 2000, outputTokens: 50, cachedInputTokens: 0, cacheWriteInputTokens: 1500 },
      unknown: { calls: 1, inputTokens: 10, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 },
    });
  });

  it('reads one reply’s usage: counts that are no non-negative numbers as 0, nothing from other messages', () => {
    expect(
      messageUsage(
        Message.assistant('x', {
          metadata: { usage: { inputTokens: 7, outputTokens: -1, cachedInputTokens: 'many' } },
        }),
      ),
    ).toEqual({
      model: UNKNOWN_MODEL,
      inputTokens: 7,
      outputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
    });
    expect(messageUsage(history[4] as Message)).toBeUndefined();
    expect(messageUsage(history[5] as Message)).toBeUndefined();
  });

  it('prices cached input apart, falls back to "*", and lists models without a price', () => {
    const cost = costOf(
      usageTotals(history),
      checkPrices({
        currency: 'EUR',
        models: { small: { input: 1, output: 10, cachedInput: 0.5 }, '*': { input: 2, output: 4 } },
      }),
    );
    expect(cost.currency).toBe('EUR');
    expect(cost.byModel.small).toBeCloseTo((600 * 1 + 400 * 0.5 + 100 * 10) / 1e6);
    // No cacheWriteInput price: cache writes cost the input price.
    expect(cost.byModel.large).toBeCloseTo((2000 * 2 + 50 * 4) / 1e6);
    expect(cost.total).toBeCloseTo(Object.values(cost.byModel).reduce((sum, value) => sum + value, 0));
    expect(costOf(usageTotals(history), { models: { small: { input: 1, output: 1 } } }).unpriced).toEqual([
      'large',
      'unknown',
    ]);
  });

  it('prices cache writes at cacheWriteInput, within the input they are part of', () => {
    const cost = costOf(
      usageTotals(history),
      checkPrices({ models: { large: { input: 3, output: 15, cacheWriteInput: 3.75 } } }),
    );
    expect(cost.byModel.large).toBeCloseTo((500 * 3 + 1500 * 3.75 + 50 * 15) / 1e6);
    const inflated = {
      ...usageTotals([]),
      byModel: { m: { calls: 1, inputTokens: 100, outputTokens: 0, cachedInputTokens: 80, cacheWriteInputTokens: 80 } },
    };
    // 80 read, so at most 20 written.
    expect(
      costOf(inflated, { models: { m: { input: 1, output: 0, cachedInput: 0, cacheWriteInput: 2 } } }).byModel.m,
    ).toBeCloseTo(40 / 1e6);
  });

  it('has published prices that pass checkPrices and price a dated snapshot like its alias', () => {
    expect(checkPrices(PUBLISHED_PRICES)).toEqual(PUBLISHED_PRICES);
    const usage = { inputTokens: 10_000, outputTokens: 1000, cachedInputTokens: 8000, cacheWriteInputTokens: 1000 };
    const replies = ['claude-sonnet-4', 'claude-sonnet-4-20250514'].map((model) =>
      Message.assistant('x', { metadata: { usage: { model, ...usage } } }),
    );
    const cost = costOf(usageTotals(replies), PUBLISHED_PRICES);
    expect(cost.byModel['claude-sonnet-4-20250514']).toBeCloseTo(
      (1000 * 3 + 8000 * 0.3 + 1000 * 3.75 + 1000 * 15) / 1e6,
    );
    expect(cost.byModel['claude-sonnet-4']).toBe(cost.byModel['claude-sonnet-4-20250514']);
    expect(Object.isFrozen(PUBLISHED_PRICES.models)).toBe(true);
  });

  it('gives the cached share of input tokens, none without input', () => {
    expect(cachedShare(usageTotals(history))).toBeCloseTo(400 / 3010);
    expect(cachedShare({ inputTokens: 0, cachedInputTokens: 0 })).toBeUndefined();
    expect(cachedShare({ inputTokens: 10, cachedInputTokens: 20 })).toBe(1);
  });

  it.each([
    ['not an object', 'nope'],
    ['unknown field "model"', { model: {} }],
    ['currency', { currency: 'dollars', models: {} }],
    ['models must be an object', { models: [] }],
    ['is not an object', { models: { a: 1 } }],
    ['a.input must be a non-negative number', { models: { a: { input: -1, output: 1 } } }],
    ['unknown field "extra"', { models: { a: { input: 1, output: 1, extra: 1 } } }],
    [
      'a.cacheWriteInput must be a non-negative number',
      { models: { a: { input: 1, output: 1, cacheWriteInput: 'x' } } },
    ],
  ])('refuses prices whose %s with INVALID_ARGUMENT', (message, value) => {
    let caught: unknown;
    try {
      checkPrices(value);
    } catch (error) {
      caught = error;
    }
    expect(ChatstateError.hasCode(caught, 'INVALID_ARGUMENT')).toBe(true);
    expect((caught as Error).message).toContain(message);
  });
});
