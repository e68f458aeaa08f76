/**
 * `tokenLimit` (goaitools' TokenLimitCompactor): above `maxTokens`, drop the oldest whole turns until
 * the history fits `targetTokens` (hysteresis, so it does not compact again on the next message).
 * Measured usage, when recorded, beats the counter.
 * @module
 */
import type { RecordedUsage } from '../tokens/usage.js';
import { measure } from './budget.js';
import { optionsObject, positiveInteger, targetTokens } from './options.js';
import { cutAt, firstCutDropping, prepare, prepareTurns, unchanged, type Prepared } from './report.js';
import type { Turns } from './turns.js';
import type { CompactionInput, CompactionResult, SyncCompactor } from './types.js';

/** Options of `tokenLimit`. */
export interface TokenLimitOptions {
  /** Compact when the history is above this many tokens. */
  maxTokens: number;
  /** Compact down to at most this many tokens. @default Math.floor(0.75 * maxTokens) */
  targetTokens?: number;
}

/** Where to cut so that the kept history fits `target` real tokens: cut index `k`, or -1 when nothing needs to go. */
export interface TokenCut {
  readonly k: number;
  readonly reachedTarget: boolean;
}

/**
 * The earliest cut that brings the history within `target` measured tokens; the latest turn when
 * even that is too big (it is kept whole, and `reachedTarget` is false).
 */
export function chooseTokenCut(
  prepared: Prepared,
  turns: Turns,
  target: number,
  usage: RecordedUsage | undefined,
): TokenCut {
  // In counter units: measured = counted × factor, so the counted budget is target ÷ factor.
  const budget = target / measure(prepared.counts, prepared.total, usage).factor;
  if (prepared.total <= budget) return { k: -1, reachedTarget: true };
  const k = firstCutDropping(turns.cutTokens, prepared.total - budget);
  if (k >= 0) return { k, reachedTarget: true };
  return { k: turns.cuts.length - 1, reachedTarget: false };
}

/** True when the history is above `max` measured tokens. */
export function aboveTokens(input: CompactionInput, max: number): boolean {
  const prepared = prepare(input);
  return measure(prepared.counts, prepared.total, input.lastUsage).total > max;
}

/** A token-budget compactor named `name` (shared by `tokenLimit` and `tokenBuffer`). */
export function tokenCompactor(name: string, max: number, target: number): SyncCompactor {
  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => aboveTokens(input, max),
    compact(input: CompactionInput): CompactionResult {
      const { prepared, turns } = prepareTurns(input);
      const cut = chooseTokenCut(prepared, turns, target, input.lastUsage);
      if (cut.k < 0) return unchanged(prepared.messages, name, prepared.total, cut.reachedTarget);
      return cutAt(prepared, turns, cut.k, name, cut.reachedTarget);
    },
  });
}

/** Drops the oldest whole turns when the history exceeds `maxTokens`, down to `targetTokens`. */
export function tokenLimit(options: TokenLimitOptions): SyncCompactor {
  const factory = 'tokenLimit';
  optionsObject(factory, options);
  const max = positiveInteger(factory, 'maxTokens', options.maxTokens);
  return tokenCompactor(factory, max, targetTokens(factory, options.targetTokens, max));
}
