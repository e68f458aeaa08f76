/**
 * `tokenTimeline`: how a session's context grew over its life — tokens by category at the end of
 * each turn it holds, and before and after each compaction (from the compaction log, also for
 * compactions whose messages are long gone), summaries, cuts the log does not explain (gaps in the
 * sequence numbers), tool-heavy turns, and the measured usage of each turn's model calls (how much of
 * their input the provider's cache served). Points stand at sequence numbers (`x`), which only grow
 * over a session's life, so the chart shows every rise and every drop in order. Downsampled to a
 * bounded number of points, so a 100k-message session gives an answer as small as a short one.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';
import { CATEGORIES, type Category, type JsonObject } from '../message/schema.js';
import type { TokenCounter } from '../tokens/counter.js';
import { compactionLog, type CategoryTokens } from './compaction-log.js';
import { messageUsage, type UsageCounts } from './usage-totals.js';

/** Points a timeline gives at most unless asked otherwise. */
export const DEFAULT_TIMELINE_POINTS = 600;

/** The most points a timeline gives. */
export const MAX_TIMELINE_POINTS = 5000;

/** Tool-heavy turns listed at most (the heaviest). */
export const MAX_TOOL_HEAVY = 200;

/** Marks listed at most (the newest). */
export const MAX_MARKS = 500;

/** A turn with this many tool calls or more is tool-heavy. */
const HEAVY_CALLS = 3;

/** …and so is one whose tool output is at least this share of what it added, and at least `HEAVY_TOKENS`. */
const HEAVY_SHARE = 0.6;
const HEAVY_TOKENS = 200;

/** Tokens by category. */
export type TokensByCategory = Readonly<Record<Category, number>>;

/** Measured usage of the model calls of a turn (or of a downsampled point's bucket of turns). */
export type TurnUsage = Pick<UsageCounts, 'calls' | 'inputTokens' | 'cachedInputTokens'>;

/**
 * One point of the timeline: the end of a turn (a user message and what followed it; the first
 * also holds what came before it), or the context right before or after a compaction.
 */
export interface TimelinePoint {
  /** Where it stands in the session's life: a sequence number (a position for a session never stored). */
  readonly x: number;
  readonly kind: 'turn' | 'before-compaction' | 'after-compaction';
  /** The turn's number, from 0 (for a compaction's point: the turn it ended, or the first turn after it). */
  readonly turn: number;
  /** Index of the turn's first message in the history (for a compaction's point: the first message after it). */
  readonly index: number;
  /** Sequence number of its first message (absent for a session never stored). */
  readonly seq?: number;
  /** Messages in the turn. */
  readonly messages: number;
  /** Tokens of the context at the end of the turn, by category. */
  readonly tokens: TokensByCategory;
  /** Tokens the turn added. */
  readonly added: number;
  /** Tool calls the turn made. */
  readonly toolCalls: number;
  /** Tokens of the tool results the turn added. */
  readonly toolTokens: number;
  /**
   * Measured usage of the model calls whose replies the turn holds (`metadata.usage`), so a client
   * can show the cached share of their input. On a downsampled point it is the sum over every turn
   * of its bucket, not the kept turn's alone: the share it gives is the bucket's. Absent when no
   * reply it covers has usage, and on compaction points.
   */
  readonly usage?: TurnUsage;
}

/** Where the history was compacted. */
export interface TimelineMark {
  /** `compaction`: an entry of the compaction log; `summary`: a summary message; `cut`: a gap in the sequence numbers the log does not explain. */
  readonly kind: 'compaction' | 'summary' | 'cut';
  /** Where it stands, on the points' scale. */
  readonly x: number;
  /** The turn it happened in (at its end, for a compaction). */
  readonly turn: number;
  /** Index of the message it follows (`-1`: before every message still stored) or, for a summary, the summary's own. */
  readonly index: number;
  readonly strategy?: string;
  /** When (ISO-8601), for a logged compaction. */
  readonly at?: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  /** Messages it removed (for a summary: the messages it stands for). */
  readonly removedMessages?: number;
}

/** A tool-heavy turn. */
export interface ToolHeavyTurn {
  readonly x: number;
  readonly turn: number;
  readonly index: number;
  readonly toolCalls: number;
  readonly toolTokens: number;
}

/** A session's token timeline. */
export interface TokenTimeline {
  readonly counter: string;
  readonly messageCount: number;
  readonly turnCount: number;
  /**
   * One point per turn (or per bucket of turns, its largest with the bucket's summed usage, when
   * `downsampled`) and two per compaction, by `x`.
   */
  readonly points: readonly TimelinePoint[];
  readonly downsampled: boolean;
  readonly marks: readonly TimelineMark[];
  readonly toolHeavy: readonly ToolHeavyTurn[];
  /**
   * The sequence numbers of the history as runs `[firstSeq, count]`: message `i` has the seq of
   * its run (a client maps a position to a seq range with it, to fetch any part of the history).
   */
  readonly seqRuns: ReadonlyArray<readonly [number, number]>;
}

/** Options of `tokenTimeline`. */
export interface TimelineOptions {
  /** Counts the tokens. */
  readonly counter: TokenCounter;
  /** Most points. @default DEFAULT_TIMELINE_POINTS */
  readonly maxPoints?: number;
}

/** A history: `Session.history`, or an array. */
export interface HistoryLike {
  readonly length: number;
  at(index: number): Message | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function noUsage(): Mutable<TurnUsage> {
  return { calls: 0, inputTokens: 0, cachedInputTokens: 0 };
}

/** Adds `usage` of `calls` calls (one reply's, or a turn's) to `sum`. */
function addUsage(sum: Mutable<TurnUsage>, usage: Omit<TurnUsage, 'calls'>, calls: number): void {
  sum.calls += calls;
  sum.inputTokens += usage.inputTokens;
  sum.cachedInputTokens += usage.cachedInputTokens;
}

function zero(): Record<Category, number> {
  return { system: 0, context: 0, dialog: 0, tool_output: 0 };
}

/** The categories of a log entry's counts (without their total). */
function byCategory(tokens: CategoryTokens): TokensByCategory {
  return { system: tokens.system, context: tokens.context, dialog: tokens.dialog, tool_output: tokens.tool_output };
}

function total(tokens: TokensByCategory): number {
  return tokens.system + tokens.context + tokens.dialog + tokens.tool_output;
}

/** Cumulative tokens by category (flat: four numbers a message) and where each turn starts. */
function scan(history: HistoryLike, counter: TokenCounter) {
  const n = history.length;
  const prefix = new Float64Array(n * 4);
  const starts: number[] = [];
  const sums = zero();
  const ids = new Map<string, number>();
  const calls = new Uint32Array(n);
  // Where each message stands: its seq, or (never stored) its position from 1.
  const xs = new Float64Array(n);
  const seqRuns: Array<[number, number]> = [];
  const gaps: Array<{ index: number; removed: number }> = [];
  const summaries: Array<{ index: number; count: number }> = [];
  // By turn, as `starts`: undefined until a reply of the turn has usage.
  const usage: Array<Mutable<TurnUsage> | undefined> = [];
  let previousSeq: number | undefined;
  let seenUser = false;
  for (let i = 0; i < n; i++) {
    const message = history.at(i) as Message;
    // A turn starts at a user message; what comes before the first one belongs to the first turn.
    if (i === 0 || (message.role === 'user' && seenUser)) {
      starts.push(i);
      usage.push(undefined);
    }
    if (message.role === 'user') seenUser = true;
    sums[message.category] += counter.countMessage(message);
    CATEGORIES.forEach((category, c) => (prefix[i * 4 + c] = sums[category]));
    ids.set(message.id, i);
    calls[i] = message.toolCalls?.length ?? 0;
    const measured = messageUsage(message);
    if (measured !== undefined) addUsage((usage[starts.length - 1] ??= noUsage()), measured, 1);
    if (message.metadata.summary === true && message.category === 'context') {
      const count = message.metadata.summarizedCount;
      summaries.push({ index: i, count: typeof count === 'number' ? count : 0 });
    }
    const seq = message.seq;
    xs[i] = seq ?? i + 1;
    if (seq === undefined) continue;
    const run = seqRuns.at(-1);
    if (run !== undefined && previousSeq !== undefined && seq === previousSeq + 1) run[1] += 1;
    else seqRuns.push([seq, 1]);
    // A summary takes a new number (and those after it too): the gap before it is no cut of its own.
    if (previousSeq !== undefined && seq > previousSeq + 1 && message.metadata.summary !== true)
      gaps.push({ index: i - 1, removed: seq - previousSeq - 1 });
    previousSeq = seq;
  }
  return { prefix, starts, ids, calls, xs, seqRuns, gaps, summaries, usage };
}

function prefixAt(prefix: Float64Array, index: number): Record<Category, number> {
  const out = zero();
  if (index < 0) return out;
  CATEGORIES.forEach((category, c) => (out[category] = prefix[index * 4 + c] as number));
  return out;
}

/** The turn holding message `index` (binary search over the turn starts). */
function turnOf(starts: readonly number[], index: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if ((starts[mid] as number) <= index) low = mid;
    else high = mid - 1;
  }
  return Math.max(0, low);
}

/**
 * The timeline of `history` with the compaction log of `metadata`. The context at the end of a
 * turn is the history up to it — except before a logged compaction, where it is what the log says
 * the context held then, less what came after: so the chart shows the drop each compaction made
 * (exact for strategies that cut the oldest turns, approximate for those that remove from the middle).
 */
export function tokenTimeline(history: HistoryLike, metadata: JsonObject, options: TimelineOptions): TokenTimeline {
  const maxPoints = options.maxPoints ?? DEFAULT_TIMELINE_POINTS;
  if (!Number.isSafeInteger(maxPoints) || maxPoints < 1 || maxPoints > MAX_TIMELINE_POINTS)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `maxPoints must be an integer from 1 to ${MAX_TIMELINE_POINTS}, not ${String(maxPoints)}`,
    );
  const { counter } = options;
  const n = history.length;
  const { prefix, starts, ids, calls, xs, seqRuns, gaps, summaries, usage } = scan(history, counter);
  const log = compactionLog(metadata);
  // Where each logged compaction happened: after its newest message, when that one is still stored.
  const logged = log.map((entry) => ({
    entry,
    index: entry.afterMessageId === undefined ? -1 : (ids.get(entry.afterMessageId) ?? -1),
  }));

  const contextAt = (end: number): TokensByCategory => {
    const kept = prefixAt(prefix, end);
    const next = logged.find((mark) => mark.index >= end && mark.index >= 0);
    if (next === undefined) return kept;
    const atMark = prefixAt(prefix, next.index);
    const before: CategoryTokens = next.entry.tokensBefore;
    const out = zero();
    for (const category of CATEGORIES)
      out[category] = Math.max(kept[category], before[category] - (atMark[category] - kept[category]));
    return out;
  };

  const turns: TimelinePoint[] = [];
  for (let t = 0; t < starts.length; t++) {
    const index = starts[t] as number;
    const end = (t + 1 < starts.length ? (starts[t + 1] as number) : n) - 1;
    const first = history.at(index) as Message;
    const inTurn = prefixAt(prefix, end);
    const beforeTurn = prefixAt(prefix, index - 1);
    let toolCalls = 0;
    for (let i = index; i <= end; i++) toolCalls += calls[i] as number;
    const measured = usage[t];
    turns.push({
      x: xs[end] as number,
      kind: 'turn',
      turn: t,
      index,
      ...(first.seq === undefined ? {} : { seq: first.seq }),
      messages: end - index + 1,
      tokens: contextAt(end),
      added: total(inTurn) - total(beforeTurn),
      toolCalls,
      toolTokens: inTurn.tool_output - beforeTurn.tool_output,
      ...(measured === undefined ? {} : { usage: measured }),
    });
  }

  /** The first message standing after `x`, and its turn (the last message when none does). */
  const after = (x: number): { index: number; turn: number } => {
    let low = 0;
    let high = n;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((xs[mid] as number) > x) high = mid;
      else low = mid + 1;
    }
    const index = Math.min(low, Math.max(0, n - 1));
    return { index, turn: turnOf(starts, index) };
  };
  const quiet = { messages: 0, added: 0, toolCalls: 0, toolTokens: 0 };
  const compactionPoints: TimelinePoint[] = [];
  const marks: TimelineMark[] = [];
  const turnXs = new Set(turns.map((point) => point.x));
  for (const { entry, index } of logged) {
    // Where it happened: at its newest message's seq (kept in the log even once that message is gone).
    const x = entry.afterSeq ?? (index >= 0 ? (xs[index] as number) : (xs[0] ?? 1) - 1);
    const next = after(x);
    if (!turnXs.has(x))
      compactionPoints.push({
        x,
        kind: 'before-compaction',
        ...next,
        ...quiet,
        tokens: byCategory(entry.tokensBefore),
      });
    compactionPoints.push({
      x: x + 0.5,
      kind: 'after-compaction',
      ...next,
      ...quiet,
      tokens: byCategory(entry.tokensAfter),
    });
    marks.push({
      kind: 'compaction',
      x: x + 0.25,
      turn: index < 0 ? next.turn : turnOf(starts, index),
      index,
      strategy: entry.strategy,
      at: entry.at,
      tokensBefore: entry.tokensBefore.total,
      tokensAfter: entry.tokensAfter.total,
      removedMessages: Math.max(0, entry.messagesBefore - entry.messagesAfter),
    });
  }
  for (const { index, count } of summaries)
    marks.push({ kind: 'summary', x: xs[index] as number, turn: turnOf(starts, index), index, removedMessages: count });
  // Gaps tell of cuts only when no log explains them (sessions compacted before the log, or by hand).
  if (log.length === 0)
    for (const gap of gaps)
      marks.push({
        kind: 'cut',
        x: (xs[gap.index] as number) + 0.5,
        turn: turnOf(starts, gap.index),
        index: gap.index,
        removedMessages: gap.removed,
      });
  marks.sort((a, b) => a.x - b.x);

  const heavy = turns
    .filter(
      (point) =>
        point.toolCalls >= HEAVY_CALLS ||
        (point.toolTokens >= HEAVY_TOKENS && point.toolTokens >= HEAVY_SHARE * point.added),
    )
    .sort((a, b) => b.toolTokens - a.toolTokens)
    .slice(0, MAX_TOOL_HEAVY)
    .sort((a, b) => a.turn - b.turn)
    .map(({ x, turn, index, toolCalls, toolTokens }) => ({ x, turn, index, toolCalls, toolTokens }));

  const shown = downsample(turns, maxPoints);
  const points = [...shown, ...compactionPoints].sort((a, b) => a.x - b.x);
  // A chart needs each x once: two compactions at one message stand a hair apart.
  for (let i = 1; i < points.length; i++) {
    const previous = points[i - 1] as TimelinePoint;
    const point = points[i] as TimelinePoint;
    if (point.x <= previous.x) points[i] = { ...point, x: previous.x + 0.01 };
  }
  return {
    counter: counter.name,
    messageCount: n,
    turnCount: turns.length,
    points,
    downsampled: shown.length < turns.length,
    marks: marks.slice(-MAX_MARKS),
    toolHeavy: heavy,
    seqRuns,
  };
}

/**
 * At most `max` points: each bucket of consecutive turns keeps its largest, so peaks survive, with
 * the usage of the whole bucket (so the cached share it shows is the bucket's).
 */
function downsample(turns: readonly TimelinePoint[], max: number): TimelinePoint[] {
  if (turns.length <= max) return turns.slice();
  const size = Math.ceil(turns.length / max);
  const out: TimelinePoint[] = [];
  for (let start = 0; start < turns.length; start += size) {
    const end = Math.min(turns.length, start + size);
    // The newest turn is always shown: it is where the session stands now.
    let kept = turns[end === turns.length ? end - 1 : start] as TimelinePoint;
    let sum: Mutable<TurnUsage> | undefined;
    for (let i = start; i < end; i++) {
      const point = turns[i] as TimelinePoint;
      if (end < turns.length && total(point.tokens) > total(kept.tokens)) kept = point;
      if (point.usage !== undefined) addUsage((sum ??= noUsage()), point.usage, point.usage.calls);
    }
    out.push(sum === undefined ? kept : { ...kept, usage: sum });
  }
  return out;
}
