import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import { checkPrices, costOf, usageTotals } from './usage-totals.js';

const history = [
  Message.user('hi'),
  Message.assistant('a', {
    metadata: { usage: { model: 'small', inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 } },
  }),
  Message.assistant('b', { metadata: { usage: { model: 'large', inputTokens: 2000, outputTokens: 50 } } }),
  Message.assistant('c', { metadata: { usage: { inputTokens: 10 } } }),
  Message.assistant('d', { metadata: { usage: 'garbage' } }),
  Message.user('e', { metadata: { usage: { model: 'small', inputTokens: 99 } } }),
];

describe('usage totals and cost', () => {
  it('adds up the usage kept on assistant replies, by model', () => {
    const totals = usageTotals(history);
    expect(totals).toMatchObject({ calls: 3, inputTokens: 3010, outputTokens: 150, cachedInputTokens: 400 });
    expect(totals.byModel).toEqual({
      small: { calls: 1, inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 },
      large: { calls: 1, inputTokens: 2000, outputTokens: 50, cachedInputTokens: 0 },
      unknown: { calls: 1, inputTokens: 10, outputTokens: 0, cachedInputTokens: 0 },
    });
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
    expect(cost.byModel.large).toBeCloseTo((2000 * 2 + 50 * 4) / 1e6);
    expect(cost.total).toBeCloseTo(Object.values(cost.byModel).reduce((sum, value) => sum + value, 0));
    expect(costOf(usageTotals(history), { models: { small: { input: 1, output: 1 } } }).unpriced).toEqual([
      'large',
      'unknown',
    ]);
  });

  it.each([
    ['not an object', 'nope'],
    ['unknown field "model"', { model: {} }],
    ['currency', { currency: 'dollars', models: {} }],
    ['models must be an object', { models: [] }],
    ['is not an object', { models: { a: 1 } }],
    ['a.input must be a non-negative number', { models: { a: { input: -1, output: 1 } } }],
    ['unknown field "extra"', { models: { a: { input: 1, output: 1, extra: 1 } } }],
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
