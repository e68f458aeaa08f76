/**
 * Compaction safety and incrementality: orphaned tool messages left by `tokenLimit` and by
 * LangChain's `trimMessages` over many budgets, and the counter calls of a re-compaction after
 * one appended message on a 100k-message history.
 * @module
 */
import { trimMessages, type BaseMessage } from '@langchain/core/messages';
import { compaction } from '../src/compaction/index.js';
import { Message } from '../src/message/message.js';
import { createCounter } from '../src/tokens/counter.js';
import { estimateText } from '../src/tokens/estimate.js';
import { REPORT_SEED } from './corpus.js';
import { formatCount, formatMs, median, timeOnce, verdict, type SuiteReport, type Table } from './harness.js';
import { SIZES, benchHistory, type BenchHistory } from './histories.js';
import { countLangChainOrphans, countOrphans, langChainCounter, toLangChain } from './langchain.js';
import { Random } from './random.js';

/** Budgets per history size. */
const BUDGETS = 50;
/** Appends timed in the re-compaction bench. */
const APPENDS = 5;

interface OrphanCount {
  /** Budgets whose output has at least one orphan. */
  readonly budgetsWithOrphans: number;
  /** Orphaned calls plus orphaned results, over all budgets. */
  readonly orphans: number;
  readonly budgets: number;
}

/** `count` budgets drawn uniformly from [low, high] × the history's tokens. */
function budgets(history: BenchHistory, count: number, low: number, high: number): number[] {
  const random = new Random(REPORT_SEED + history.size);
  return Array.from({ length: count }, () => Math.floor(history.totalTokens * (low + (high - low) * random.next())));
}

function tally(orphanCounts: readonly number[]): OrphanCount {
  return {
    budgetsWithOrphans: orphanCounts.filter((count) => count > 0).length,
    orphans: orphanCounts.reduce((sum, count) => sum + count, 0),
    budgets: orphanCounts.length,
  };
}

function oursOrphans(history: BenchHistory, list: readonly number[]): OrphanCount {
  return tally(
    list.map((budget) => {
      const result = compaction
        .tokenLimit({ maxTokens: budget, targetTokens: budget })
        .compact({ messages: history.messages, counter: history.warmCounter });
      return countOrphans(result.messages);
    }),
  );
}

async function langChainOrphans(
  history: BenchHistory,
  list: readonly number[],
  recommended: boolean,
): Promise<OrphanCount> {
  const messages = toLangChain(history.messages);
  const counter = langChainCounter(history.messages, (message) => history.warmCounter.countMessage(message));
  const counts: number[] = [];
  for (const budget of list) {
    const options = recommended
      ? {
          maxTokens: budget,
          tokenCounter: counter,
          strategy: 'last' as const,
          includeSystem: true,
          startOn: 'human' as const,
        }
      : { maxTokens: budget, tokenCounter: counter, strategy: 'last' as const };
    const trimmed: BaseMessage[] = await trimMessages(messages, options);
    counts.push(countLangChainOrphans(trimmed));
  }
  return tally(counts);
}

function orphanRow(tool: string, size: number, range: string, count: OrphanCount): string[] {
  const share = `${formatCount(count.budgetsWithOrphans)} of ${formatCount(count.budgets)} (${((100 * count.budgetsWithOrphans) / count.budgets).toFixed(0)}%)`;
  return [tool, formatCount(size), range, share, formatCount(count.orphans)];
}

async function orphanTable(): Promise<{ table: Table; notes: string[] }> {
  const rows: string[][] = [];
  let oursTotal = 0;
  for (const size of SIZES) {
    const history = benchHistory(size);
    const count = oursOrphans(history, budgets(history, BUDGETS, 0.05, 0.95));
    oursTotal += count.orphans;
    rows.push(orphanRow('chatstate `tokenLimit`', size, '5–95%', count));
  }
  const small = benchHistory(1_000);
  const smallBudgets = budgets(small, BUDGETS, 0.05, 0.95);
  const defaults = await langChainOrphans(small, smallBudgets, false);
  rows.push(orphanRow('`trimMessages`, default options', 1_000, '5–95%', defaults));
  // At 10k a cut deep into the history costs trimMessages seconds, so its budgets stay in the top
  // tenth: whether a cut orphans a tool message depends on where it lands, not on how deep it is.
  const large = benchHistory(10_000);
  const largeDefaults = await langChainOrphans(large, budgets(large, 20, 0.9, 0.999), false);
  rows.push(orphanRow('`trimMessages`, default options', 10_000, '90–99.9%', largeDefaults));
  const recommended = await langChainOrphans(small, smallBudgets, true);
  rows.push(orphanRow('`trimMessages`, `includeSystem` + `startOn: "human"`', 1_000, '5–95%', recommended));
  const share =
    (defaults.budgetsWithOrphans + largeDefaults.budgetsWithOrphans) / (defaults.budgets + largeDefaults.budgets);
  return {
    table: {
      title: 'Orphaned tool messages (results whose call is gone, calls whose results are gone) over many budgets',
      headers: [
        'Tool',
        'Messages',
        'Budgets (share of the history’s tokens)',
        'Budgets leaving orphans',
        'Orphans in total',
      ],
      rows,
    },
    notes: [
      `chatstate left ${formatCount(oursTotal)} orphans over ${formatCount(BUDGETS * SIZES.length)} budgets (must be 0: ${verdict(oursTotal === 0)}); trimMessages with default options left orphans in ${(100 * share).toFixed(0)}% of its budgets.`,
    ],
  };
}

function recompactionTable(): { table: Table; notes: string[] } {
  const history = benchHistory(100_000);
  let calls = 0;
  // A counter of its own, counting its countText calls; its cache starts empty.
  const counter = createCounter({
    name: 'estimate',
    countText: (text) => {
      calls += 1;
      return estimateText(text);
    },
  });
  const limit = compaction.tokenLimit({
    maxTokens: Math.floor(history.totalTokens / 2),
    targetTokens: Math.floor(history.totalTokens / 2),
  });
  const firstTime = timeOnce(() => limit.compact({ messages: history.messages, counter }));
  const firstCalls = calls;
  // Several appends (each a new message on the same history), for a median time.
  const appendTimes: number[] = [];
  let secondCalls = 0;
  for (let i = 0; i < APPENDS; i++) {
    const appended = [
      ...history.messages,
      Message.user(`Thanks. Can you run the tests once more (attempt ${i + 1}) and summarize the failures?`),
    ];
    calls = 0;
    appendTimes.push(timeOnce(() => limit.compact({ messages: appended, counter })));
    secondCalls = Math.max(secondCalls, calls);
  }
  const secondTime = median(appendTimes);
  return {
    table: {
      title: `Re-compaction after one appended message (${formatCount(history.size)}-message history, tokenLimit at half its tokens)`,
      headers: ['Compaction', 'countText calls', 'Time'],
      rows: [
        ['first (empty cache: every text of every message)', formatCount(firstCalls), formatMs(firstTime)],
        [
          `after appending one user message (most calls and median time of ${APPENDS} appends)`,
          formatCount(secondCalls),
          formatMs(secondTime),
        ],
      ],
    },
    notes: [
      `Re-compacting after one append counted ${formatCount(secondCalls)} text(s), the new message's, instead of ${formatCount(firstCalls)} (no recount of the old messages: ${verdict(secondCalls <= 2)}).`,
    ],
  };
}

/** Runs the orphan and re-compaction benches. */
export async function runCompactionSafetyBench(): Promise<SuiteReport> {
  const orphans = await orphanTable();
  const recompaction = recompactionTable();
  return {
    name: 'orphans',
    title: 'Tool-safety and incremental re-compaction',
    tables: [orphans.table, recompaction.table],
    notes: [...orphans.notes, ...recompaction.notes],
  };
}
