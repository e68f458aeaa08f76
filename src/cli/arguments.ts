/**
 * Parsers of option values (commander `argParser`s): a bad value is a usage error naming the
 * option and what it takes.
 * @module
 */
import { InvalidArgumentError } from 'commander';
import { MAX_COUNT, MAX_SEQ } from '../bounds.js';

/** Most sessions a command works on at once (`--concurrency`): more only queues up on the store's connections. */
export const MAX_CONCURRENCY = 256;

/** A parser of integer option values, with the bounds it keeps (the tests read them). */
export interface IntegerParser {
  (value: string): number;
  readonly min: number;
  readonly max: number;
}

/** An integer from `min` to `max` (every number a caller gives is bounded where it enters). */
export function integerOption(min: number, max: number = MAX_COUNT): IntegerParser {
  const parse = (value: string): number => {
    const number = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
    return number;
  };
  return Object.assign(parse, { min, max });
}

/** An ISO-8601 date or date-time, as epoch milliseconds. */
export function dateOption(value: string): number {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw new InvalidArgumentError(
      `expected an ISO-8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z, got ${JSON.stringify(value)}`,
    );
  }
  return time;
}

/** A sequence range `A..B` (either end may be left out: `..B`, `A..`), inclusive. */
export function rangeOption(value: string): { readonly from?: number; readonly to?: number } {
  const match = /^(\d*)\.\.(\d*)$/.exec(value.trim());
  if (match === null || (match[1] === '' && match[2] === '')) {
    throw new InvalidArgumentError(
      `expected a sequence range A..B (A.. or ..B also work), got ${JSON.stringify(value)}`,
    );
  }
  const from = match[1] === '' ? undefined : Number(match[1]);
  const to = match[2] === '' ? undefined : Number(match[2]);
  if ((from ?? 0) > MAX_SEQ || (to ?? 0) > MAX_SEQ) {
    throw new InvalidArgumentError(`a sequence number is at most ${MAX_SEQ}, got ${JSON.stringify(value)}`);
  }
  if (from !== undefined && to !== undefined && from > to) {
    throw new InvalidArgumentError(`the range ${value} is empty: its start is after its end`);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** A `NAME=VALUE` setting, gathered into an object (a repeatable option's parser). */
export function settingOption(value: string, previous: Readonly<Record<string, string>> = {}): Record<string, string> {
  const at = value.indexOf('=');
  const name = at < 0 ? '' : value.slice(0, at).trim();
  if (at < 0 || name === '') throw new InvalidArgumentError(`expected NAME=VALUE, got ${JSON.stringify(value)}`);
  return { ...previous, [name]: value.slice(at + 1) };
}
