/**
 * `split` (goaitools' SplitCompactor): a compactor made of a trigger (when) and a strategy (how),
 * e.g. trim to 5 messages but only every 10.
 * @module
 */
import { invalidOption, optionsObject } from './options.js';
import { checkTrigger } from './triggers.js';
import type {
  CompactionInput,
  CompactionResult,
  Compactor,
  Strategy,
  SyncCompactor,
  SyncStrategy,
  Trigger,
} from './types.js';

/** Options of `split`. */
export interface SplitOptions<S extends Strategy = Strategy> {
  /** Decides when to compact. */
  trigger: Trigger;
  /** Decides how. */
  strategy: S;
}

/** Checks a strategy option. */
export function checkStrategy(factory: string, option: string, strategy: unknown): Strategy {
  if (typeof strategy !== 'object' || strategy === null || typeof (strategy as Strategy).compact !== 'function') {
    throw invalidOption(factory, option, 'an object with compact(input)', strategy);
  }
  return strategy as Strategy;
}

/** A compactor that runs `strategy` when `trigger` fires (named after the strategy). */
export function split(options: SplitOptions<SyncStrategy>): SyncCompactor;
export function split(options: SplitOptions): Compactor;
export function split(options: SplitOptions): Compactor {
  const factory = 'split';
  optionsObject(factory, options);
  const trigger = checkTrigger(factory, 'trigger', options.trigger);
  const strategy = checkStrategy(factory, 'strategy', options.strategy);
  const name = typeof strategy.name === 'string' && strategy.name.length > 0 ? strategy.name : 'split';
  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => trigger.shouldCompact(input),
    compact: (input: CompactionInput): CompactionResult | Promise<CompactionResult> => strategy.compact(input),
  });
}
