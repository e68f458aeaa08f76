/**
 * Option checks shared by the compaction factories: a wrong option fails when the compactor is
 * built, with `INVALID_ARGUMENT` and the option's name, never later in the middle of a turn.
 * @module
 */
import { InvalidInputError } from '../errors.js';

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined || value === null)
    return String(value);
  return typeof value;
}

/** Throws `INVALID_ARGUMENT` naming the factory and the option. */
export function invalidOption(factory: string, option: string, expected: string, value: unknown): InvalidInputError {
  return new InvalidInputError(
    'INVALID_ARGUMENT',
    `${factory}: ${option} must be ${expected}, got ${describe(value)}`,
    {
      details: { factory, option },
    },
  );
}

/** The options object itself, or `INVALID_ARGUMENT`. */
export function optionsObject<T extends object>(factory: string, options: T | undefined): T {
  if (typeof options !== 'object' || options === null) throw invalidOption(factory, 'options', 'an object', options);
  return options;
}

/** A positive integer option. */
export function positiveInteger(factory: string, option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw invalidOption(factory, option, 'a positive integer', value);
  }
  return value;
}

/** A non-negative integer option. */
export function nonNegativeInteger(factory: string, option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidOption(factory, option, 'a non-negative integer', value);
  }
  return value;
}

/** A target budget: a positive integer not above `max`, defaulting to 75% of it (hysteresis). */
export function targetTokens(factory: string, value: unknown, max: number): number {
  if (value === undefined) return Math.max(1, Math.floor(0.75 * max));
  const target = positiveInteger(factory, 'targetTokens', value);
  if (target > max) throw invalidOption(factory, 'targetTokens', `at most maxTokens (${max})`, value);
  return target;
}

/** A function option. */
export function functionOption<T>(factory: string, option: string, value: T): T {
  if (typeof value !== 'function') throw invalidOption(factory, option, 'a function', value);
  return value;
}
