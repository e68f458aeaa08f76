/**
 * Builders of `CompactionResult` shared by every strategy, so that each report is complete and its
 * arithmetic holds: `tokensAfter = tokensBefore − removed.tokens − modified.tokensSaved + tokens of
 * added`, and `messages.length = input length − removed.count + added.length`.
 * @module
 */
import { InvalidInputError, type ChatstateError } from '../errors.js';
import type { Message } from '../message/message.js';
import { cachedCounter, type TokenCounter } from '../tokens/counter.js';
import type { CompactionInput, CompactionRemoved, CompactionResult } from './types.js';
import { countAndFindTurns, countMessages, findTurns, keepFrom, type HistoryCounts, type Turns } from './turns.js';

const NOTHING_REMOVED: CompactionRemoved = Object.freeze({ count: 0, tokens: 0 });
const NOTHING_MODIFIED = Object.freeze({ count: 0, tokensSaved: 0 });
const NOTHING_ADDED: readonly Message[] = Object.freeze([]);

/** A validated input with its counts. */
export interface Prepared extends HistoryCounts {
  readonly messages: readonly Message[];
  /** The input's counter, wrapped to cache per message when it does not already. */
  readonly counter: TokenCounter;
}

function check(input: CompactionInput): TokenCounter {
  if (typeof input !== 'object' || input === null || !Array.isArray(input.messages)) {
    throw new InvalidInputError('INVALID_ARGUMENT', 'Compaction input needs a messages array');
  }
  if (typeof input.counter !== 'object' || input.counter === null || typeof input.counter.countMessage !== 'function') {
    throw new InvalidInputError('INVALID_ARGUMENT', 'Compaction input needs a token counter');
  }
  return cachedCounter(input.counter);
}

/** Checks the input's shape and counts its messages (once; cached counts are reused). */
export function prepare(input: CompactionInput): Prepared {
  const counter = check(input);
  const { counts, total } = countMessages(input.messages, counter);
  return { messages: input.messages, counter, counts, total };
}

/** `prepare` and the turn structure, in one pass over the messages when their counts are not known yet. */
export function prepareTurns(input: CompactionInput): { prepared: Prepared; turns: Turns } {
  const counter = check(input);
  const { counts, turns } = countAndFindTurns(input.messages, counter);
  return { prepared: { messages: input.messages, counter, counts: counts.counts, total: counts.total }, turns };
}

/** The report of a compaction that changed nothing: the input array itself, `compacted: false`. */
export function unchanged(
  messages: readonly Message[],
  strategy: string,
  tokens: number,
  reachedTarget: boolean,
  error?: ChatstateError,
): CompactionResult {
  const result: CompactionResult = {
    messages,
    compacted: false,
    strategy,
    removed: NOTHING_REMOVED,
    modified: NOTHING_MODIFIED,
    added: NOTHING_ADDED,
    tokensBefore: tokens,
    tokensAfter: tokens,
    reachedTarget,
    ...(error === undefined ? {} : { error }),
  };
  return Object.freeze(result);
}

/** Everything a changed report carries. */
export interface ChangedReport {
  readonly messages: Message[];
  readonly strategy: string;
  readonly removed: CompactionRemoved;
  readonly modified?: { readonly count: number; readonly tokensSaved: number };
  readonly added?: readonly Message[];
  /** Tokens of `added`. */
  readonly addedTokens?: number;
  readonly tokensBefore: number;
  readonly reachedTarget: boolean;
  /** A collaborator failure in one part of a composite whose other parts still compacted. */
  readonly error?: ChatstateError;
}

/** The report of a compaction that changed the history (frozen, with a frozen history). */
export function changed(report: ChangedReport): CompactionResult {
  const modified = report.modified ?? NOTHING_MODIFIED;
  const added =
    report.added === undefined || report.added.length === 0 ? NOTHING_ADDED : Object.freeze(report.added.slice());
  const removed: CompactionRemoved = Object.freeze({
    count: report.removed.count,
    tokens: report.removed.tokens,
    ...(report.removed.firstId === undefined ? {} : { firstId: report.removed.firstId }),
    ...(report.removed.lastId === undefined ? {} : { lastId: report.removed.lastId }),
  });
  return Object.freeze({
    messages: Object.freeze(report.messages),
    compacted: true,
    strategy: report.strategy,
    removed,
    modified: Object.freeze({ count: modified.count, tokensSaved: modified.tokensSaved }),
    added,
    tokensBefore: report.tokensBefore,
    tokensAfter: report.tokensBefore - removed.tokens - modified.tokensSaved + (report.addedTokens ?? 0),
    reachedTarget: report.reachedTarget,
    ...(report.error === undefined ? {} : { error: report.error }),
  });
}

/** The report of keeping the pinned messages plus the suffix from cut point `k` of `turns`. */
export function cutAt(
  prepared: Prepared,
  turns: Turns,
  k: number,
  strategy: string,
  reachedTarget: boolean,
): CompactionResult {
  const count = turns.cutMessages[k] as number;
  if (count === 0) return unchanged(prepared.messages, strategy, prepared.total, reachedTarget);
  const cut = keepFrom(prepared.messages, turns.pinned, turns.cuts[k] as number, count);
  return changed({
    messages: cut.messages,
    strategy,
    removed: { count, tokens: turns.cutTokens[k] as number, firstId: cut.firstId, lastId: cut.lastId },
    tokensBefore: prepared.total,
    reachedTarget,
  });
}

/** The turn structure of a prepared input. */
export function turnsOf(prepared: Prepared): Turns {
  return findTurns(prepared.messages, prepared.counts);
}

/** Index of the first cut whose droppable prefix reaches `needed` (binary search), or -1. */
export function firstCutDropping(values: Float64Array | Int32Array, needed: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((values[mid] as number) >= needed) high = mid;
    else low = mid + 1;
  }
  return low < values.length ? low : -1;
}
