/**
 * Token budgets with measured usage (goaitools' TokenLimitCompactor): when the last model call
 * reported its prompt tokens, they replace the estimate for the prefix it measured, and the ratio
 * measured/estimated corrects the estimate of everything else.
 * @module
 */
import type { RecordedUsage } from '../tokens/usage.js';

/** How a history's size is judged against a budget. */
export interface Measure {
  /** Total tokens for triggers: measured prompt tokens plus counted tokens of later messages. */
  readonly total: number;
  /** Measured ÷ counted tokens of the measured prefix (1 without usable usage). */
  readonly factor: number;
}

function usable(usage: RecordedUsage | undefined, length: number): usage is RecordedUsage {
  return (
    usage !== undefined &&
    Number.isInteger(usage.messageCount) &&
    usage.messageCount > 0 &&
    // A prefix longer than the history means the history changed since it was measured.
    usage.messageCount <= length &&
    Number.isFinite(usage.inputTokens) &&
    usage.inputTokens > 0
  );
}

/** Measures `counts` (whose sum is `total`) with `usage` when it applies to this history. */
export function measure(counts: Float64Array, total: number, usage: RecordedUsage | undefined): Measure {
  if (!usable(usage, counts.length)) return { total, factor: 1 };
  let prefix = 0;
  for (let i = 0; i < usage.messageCount; i++) prefix += counts[i] as number;
  if (prefix <= 0) return { total, factor: 1 };
  return { total: usage.inputTokens + (total - prefix), factor: usage.inputTokens / prefix };
}

/** Total tokens of a history by the measured usage (for triggers); `total` when usage does not apply. */
export function measuredTotal(counts: Float64Array, total: number, usage: RecordedUsage | undefined): number {
  return measure(counts, total, usage).total;
}
