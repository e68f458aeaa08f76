/**
 * The cached share of a session's input: how much of what the model calls sent the provider's
 * prompt cache served (cached input costs a tenth of uncached at OpenAI and Anthropic). The stats
 * panel shows it as a figure and a bar; the token chart, turn by turn, as a line.
 * @module
 */
import type { TurnUsage, UsageCounts } from './types.js';

/**
 * `usage`'s cached share (a session's or a turn's, 0 to 1): the server's figure, else cache reads
 * over input; undefined without input.
 */
export function cachedShareOf(
  usage: (UsageCounts | TurnUsage) & { readonly cachedShare?: number },
): number | undefined {
  if (usage.cachedShare !== undefined) return usage.cachedShare;
  if (!(usage.inputTokens > 0)) return undefined;
  return Math.min(1, Math.max(0, usage.cachedInputTokens / usage.inputTokens));
}

/** The width of the bar's cached part, as a CSS percentage (`0%` without input). */
export function shareWidth(share: number | undefined): string {
  return `${((share ?? 0) * 100).toFixed(1)}%`;
}
