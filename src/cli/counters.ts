/**
 * Token counters by name for `--counter` (commander `choices` lists them on a bad name).
 * @module
 */
import { Option } from 'commander';
import type { TokenCounter } from '../tokens/counter.js';
import { tokens } from '../tokens/index.js';

/** The counters a command can name. */
export const COUNTERS: Readonly<Record<string, TokenCounter>> = Object.freeze({
  estimate: tokens.estimate,
  o200k_base: tokens.o200kBase,
  cl100k_base: tokens.cl100kBase,
});

/** The counter `name` (one of `COUNTERS`, checked by the option's choices). */
export function counterNamed(name: string): TokenCounter {
  // An own-property check: "constructor" must not resolve to Object's members.
  return Object.hasOwn(COUNTERS, name) ? (COUNTERS[name] as TokenCounter) : tokens.estimate;
}

/** The `--counter NAME` option, `estimate` by default. */
export function counterOption(): Option {
  return new Option('--counter <name>', 'token counter').choices(Object.keys(COUNTERS)).default('estimate');
}
