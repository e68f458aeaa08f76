/**
 * Compaction speed: `compaction.tokenLimit` on 1k/10k/100k-message histories against LangChain's
 * `trimMessages` (strategy `last`, the same counts), and against the limit, one bare pass over
 * the history's cached counts.
 * @module
 */
import { trimMessages, type BaseMessage } from '@langchain/core/messages';
import { compaction } from '../src/compaction/index.js';
import type { CompactionResult, SyncCompactor } from '../src/compaction/types.js';
import type { Message } from '../src/message/message.js';
import { countMessageUncached } from '../src/tokens/counter.js';
import { estimateText } from '../src/tokens/estimate.js';
import {
  formatCount,
  formatMs,
  formatRatio,
  median,
  pairedRatio,
  timeAsync,
  timeRounds,
  verdict,
  type SuiteReport,
  type Table,
} from './harness.js';
import { SIZES, benchHistory, freshCounter, sumCounts, type BenchHistory } from './histories.js';
import { langChainCounter, toLangChain } from './langchain.js';

/** Warm-up and repetitions per size: small histories are timed in batches. */
const TIMING: Record<number, { warmup: number; repetitions: number; batch: number }> = {
  1000: { warmup: 20, repetitions: 31, batch: 20 },
  10000: { warmup: 5, repetitions: 21, batch: 3 },
  100000: { warmup: 2, repetitions: 9, batch: 1 },
};
const COLD_REPETITIONS: Record<number, number> = { 1000: 11, 10000: 7, 100000: 3 };

interface Row {
  readonly size: number;
  readonly budget: number;
  readonly bare: number;
  readonly oursWarm: number;
  /** tokenLimit ÷ bare pass, both warm (median of per-round ratios). */
  readonly limitRatio: number;
  readonly oursCold: number;
  readonly bareCold: number;
  readonly coldRatio: number;
  readonly langChain?: number;
  readonly langChainRuns?: number;
  readonly langChainUncached?: number;
  readonly kept: string;
}

function compactOnce(limit: SyncCompactor, history: BenchHistory, counter = history.warmCounter): CompactionResult {
  return limit.compact({ messages: history.messages, counter });
}

async function trim(
  list: BaseMessage[],
  budget: number,
  counter: (list: BaseMessage[]) => number,
): Promise<BaseMessage[]> {
  // includeSystem and startOn 'human': LangChain's documented settings for a valid chat history,
  // the closest to what tokenLimit does (the timing is the same with the default options).
  return trimMessages(list, {
    maxTokens: budget,
    strategy: 'last',
    includeSystem: true,
    startOn: 'human',
    tokenCounter: counter,
  });
}

async function measure(size: number): Promise<Row> {
  const history = benchHistory(size);
  const budget = Math.floor(history.totalTokens / 2);
  const timing = TIMING[size] ?? { warmup: 2, repetitions: 5, batch: 1 };
  // Built once: an agent configures its compactor once and calls it on every turn.
  const limit = compaction.tokenLimit({ maxTokens: budget, targetTokens: budget });
  const warm = timeRounds(
    { bare: () => sumCounts(history.messages, history.warmCounter), ours: () => compactOnce(limit, history) },
    timing,
  );
  // Cold: a new counter each run, so the compaction counts every message once.
  const cold = timeRounds(
    {
      ours: () => compactOnce(limit, history, freshCounter()),
      bare: () => sumCounts(history.messages, freshCounter()),
    },
    { warmup: 1, repetitions: COLD_REPETITIONS[size] ?? 3 },
  );
  const result = compactOnce(limit, history);
  let kept = `${formatCount(result.messages.length)} msgs / ${formatCount(result.tokensAfter)} tokens`;
  let langChain: number | undefined;
  let langChainRuns: number | undefined;
  let langChainUncached: number | undefined;
  if (size <= 10_000) {
    const list = toLangChain(history.messages);
    // The same counter object: per-message counts come from its (warm) cache; LangChain re-sums the list on every call.
    const sameCounter = langChainCounter(history.messages, (message) => history.warmCounter.countMessage(message));
    langChainRuns = size === 1_000 ? 5 : 1;
    let trimmed: BaseMessage[] = [];
    langChain = await timeAsync(
      async () => {
        trimmed = await trim(list, budget, sameCounter);
      },
      { warmup: size === 1_000 ? 1 : 0, repetitions: langChainRuns },
    );
    kept += ` · LangChain ${formatCount(trimmed.length)} msgs / ${formatCount(sameCounter(trimmed))} tokens`;
    if (size === 1_000) {
      // A plain per-message function, as a LangChain user would write it: every call recounts every text.
      const uncached = langChainCounter(history.messages, (message: Message) =>
        countMessageUncached(message, estimateText),
      );
      langChainUncached = await timeAsync(() => trim(list, budget, uncached), { warmup: 0, repetitions: 1 });
    }
  }
  return {
    size,
    budget,
    bare: median(warm.bare ?? []),
    oursWarm: median(warm.ours ?? []),
    limitRatio: pairedRatio(warm.ours ?? [], warm.bare ?? []),
    oursCold: median(cold.ours ?? []),
    bareCold: median(cold.bare ?? []),
    coldRatio: pairedRatio(cold.ours ?? [], cold.bare ?? []),
    langChain,
    langChainRuns,
    langChainUncached,
    kept,
  };
}

function tables(rows: readonly Row[]): Table[] {
  const optional = (value: number | undefined, format: (value: number) => string): string =>
    value === undefined ? 'not run' : format(value);
  return [
    {
      title:
        'Token-limit compaction against LangChain `trimMessages` (strategy `last`, budget = half the history, same per-message counts)',
      headers: [
        'Messages',
        'Budget (tokens)',
        'trimMessages',
        'chatstate, warm cache',
        'chatstate, cold cache',
        'Faster (warm)',
        'Faster (cold)',
        'Kept',
      ],
      rows: rows.map((row) => [
        formatCount(row.size),
        formatCount(row.budget),
        optional(row.langChain, (ms) => `${formatMs(ms)}${row.langChainRuns === 1 ? ' (1 run)' : ''}`),
        formatMs(row.oursWarm),
        formatMs(row.oursCold),
        optional(row.langChain, (ms) => formatRatio(ms / row.oursWarm)),
        optional(row.langChain, (ms) => formatRatio(ms / row.oursCold)),
        row.kept,
      ]),
    },
    {
      title:
        'Against the limit: one bare pass summing the n cached counts (`counter.countMessage` with a warm cache); ratios are medians of per-round ratios',
      headers: [
        'Messages',
        'Bare pass, warm',
        'tokenLimit, warm',
        'Ratio (target ≤ 3×)',
        'Bare counting pass, cold',
        'tokenLimit, cold',
        'Ratio, cold',
      ],
      rows: rows.map((row) => [
        formatCount(row.size),
        formatMs(row.bare),
        formatMs(row.oursWarm),
        formatRatio(row.limitRatio),
        formatMs(row.bareCold),
        formatMs(row.oursCold),
        formatRatio(row.coldRatio),
      ]),
    },
  ];
}

function notes(rows: readonly Row[]): string[] {
  const at10k = rows.find((row) => row.size === 10_000);
  const at1k = rows.find((row) => row.size === 1_000);
  const result: string[] = [];
  if (at10k?.langChain !== undefined) {
    const ratio = at10k.langChain / at10k.oursWarm;
    result.push(
      `At 10k messages chatstate is ${formatRatio(ratio)} faster than trimMessages with warm caches (target ≥ 1000×: ${verdict(ratio >= 1000)}), ${formatRatio(at10k.langChain / at10k.oursCold)} faster when it must count every message first.`,
    );
  }
  const worst = Math.max(...rows.map((row) => row.limitRatio));
  result.push(
    `Against the bare pass over cached counts, tokenLimit costs at most ${formatRatio(worst)} (target ≤ 3×: ${verdict(worst <= 3)}).`,
  );
  result.push(
    'trimMessages drops one message at a time and calls the token counter on the whole remaining list each time (quadratic), so it runs at 1k (5 runs) and 10k (1 run) only, and not at 100k. Its counter returns the per-message counts of the same cached counter chatstate uses, by message id, so both tools see identical numbers and LangChain pays only for its own algorithm.',
  );
  if (at1k?.langChainUncached !== undefined) {
    result.push(
      `With a plain uncached per-message count function (every call recounts every text), trimMessages takes ${formatMs(at1k.langChainUncached)} at 1k messages (1 run) — ${formatRatio(at1k.langChainUncached / at1k.oursCold)} chatstate's cold compaction; at 10k that would take minutes, so it is not run.`,
    );
  }
  return result;
}

/** Runs the compaction speed benches. */
export async function runCompactionBench(): Promise<SuiteReport> {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size));
  return { name: 'compaction', title: 'Compaction speed', tables: tables(rows), notes: notes(rows) };
}
