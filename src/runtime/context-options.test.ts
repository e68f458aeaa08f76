import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { estimate } from '../tokens/estimate.js';
import { recommendedContext, resolveContextPolicy } from './context-options.js';
import { ModelLimits } from './model-limits.js';

const invalid = (message: string): InvalidInputError => new InvalidInputError('INVALID_ARGUMENT', message);
const resolve = (option: unknown) => resolveContextPolicy(option, estimate, undefined, invalid);

describe('the contextWindow option', () => {
  it('takes a number, auto, or the options in full', () => {
    expect(resolve(undefined)).toMatchObject({ lowMark: 0.5, models: {} });
    expect(resolve(undefined).budget).toBeUndefined();
    expect(resolve(12_000)).toMatchObject({ budget: 12_000, tokens: 12_000 });
    expect(resolve('auto')).toMatchObject({ tokens: 'auto' });
    const limits = new ModelLimits();
    const full = resolve({
      tokens: 'auto',
      lowMark: 1,
      models: { m: { contextTokens: 9000, maxOutputTokens: 500 } },
      limits,
    });
    expect(full).toMatchObject({
      tokens: 'auto',
      lowMark: 1,
      models: { m: { contextTokens: 9000, maxOutputTokens: 500 } },
    });
    expect(full.limits).toBe(limits);
    expect(resolve(recommendedContext().contextWindow)).toMatchObject({ tokens: 'auto', lowMark: 0.5 });
  });

  const bad: ReadonlyArray<[string, unknown, RegExp]> = [
    ['zero tokens', 0, /positive integer, 'auto' or \{ tokens \}/],
    ['a fraction', 1.5, /positive integer/],
    ['an unknown word', 'max', /positive integer, 'auto'/],
    ['an object without tokens', {}, /positive integer, 'auto'/],
    ['a lowMark above 1', { tokens: 'auto', lowMark: 2 }, /lowMark must be a number above 0 and at most 1/],
    ['a lowMark of 0', { tokens: 100, lowMark: 0 }, /lowMark/],
    ['models that is not an object', { tokens: 'auto', models: [] }, /contextWindow.models must be an object/],
    [
      'a model without a window',
      { tokens: 'auto', models: { m: {} } },
      /models\["m"\].contextTokens must be a positive integer/,
    ],
    [
      'a negative output limit',
      { tokens: 'auto', models: { m: { contextTokens: 10, maxOutputTokens: -1 } } },
      /maxOutputTokens/,
    ],
    ['limits that are not ModelLimits', { tokens: 'auto', limits: {} }, /limits must be a ModelLimits/],
  ];
  for (const [name, option, message] of bad) {
    it(`refuses ${name} with INVALID_ARGUMENT`, () => {
      let caught: unknown;
      try {
        resolve(option);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidInputError);
      expect((caught as InvalidInputError).code).toBe('INVALID_ARGUMENT');
      expect((caught as Error).message).toMatch(message);
    });
  }
});
