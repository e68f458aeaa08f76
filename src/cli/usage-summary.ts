/**
 * The measured-usage part of `chatstate stats`: model calls, input, cached input and its share,
 * cache writes, output — for a session, by model, and summed over a store.
 * @module
 */
import { cachedShare, type UsageCounts, type UsageTotals } from '../session/usage-totals.js';

/** Counts that add up over sessions. */
export type UsageSum = { -readonly [K in keyof UsageCounts]: UsageCounts[K] };

/** Zero counts, to add sessions' usage to. */
export function emptyUsage(): UsageSum {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 };
}

/** Adds `counts` to `sum`. */
export function addUsageCounts(sum: UsageSum, counts: UsageCounts): void {
  sum.calls += counts.calls;
  sum.inputTokens += counts.inputTokens;
  sum.outputTokens += counts.outputTokens;
  sum.cachedInputTokens += counts.cachedInputTokens;
  sum.cacheWriteInputTokens += counts.cacheWriteInputTokens;
}

/** `counts` with its cached share (cached input / input, 0 to 1; absent without input), for `--json`. */
export function usageJson<T extends UsageCounts>(counts: T): T & { cachedShare?: number } {
  const share = cachedShare(counts);
  return share === undefined ? counts : { ...counts, cachedShare: share };
}

/** `12.3%`, or `–` without input. */
export function formatShare(counts: UsageCounts): string {
  const share = cachedShare(counts);
  return share === undefined ? '–' : `${(share * 100).toFixed(1)}%`;
}

function countLine(label: string, counts: UsageCounts): string {
  return (
    `${label} ${counts.calls} call${counts.calls === 1 ? '' : 's'}, input ${counts.inputTokens} (cached ${counts.cachedInputTokens}, ` +
    `${formatShare(counts)}; cache writes ${counts.cacheWriteInputTokens}), output ${counts.outputTokens}`
  );
}

/** The text lines: one for all calls, one per model when there are several. */
export function usageLines(totals: UsageCounts & { readonly byModel?: UsageTotals['byModel'] }): string[] {
  const lines = [countLine('usage     ', totals)];
  const models = Object.entries(totals.byModel ?? {});
  if (models.length > 1) for (const [model, counts] of models) lines.push(countLine(`  ${model.padEnd(24)}`, counts));
  return lines;
}
