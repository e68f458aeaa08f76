/**
 * The histories the compaction benches share, generated once per run, with a warm counter each.
 * @module
 */
import type { Message } from '../src/message/message.js';
import { createCounter, type TokenCounter } from '../src/tokens/counter.js';
import { estimateText } from '../src/tokens/estimate.js';
import { REPORT_SEED, generateHistory } from './corpus.js';
import { countOrphans } from './langchain.js';

/** History sizes of the compaction benches. */
export const SIZES = [1_000, 10_000, 100_000] as const;

/** A history, its token total, and a counter whose cache already holds every message's count. */
export interface BenchHistory {
  readonly size: number;
  readonly messages: readonly Message[];
  readonly warmCounter: TokenCounter;
  readonly totalTokens: number;
}

/**
 * A fresh estimate counter with an empty cache: `tokens.estimate` is a shared singleton whose
 * cache would make every run after the first a warm one.
 */
export function freshCounter(): TokenCounter {
  return createCounter({ name: 'estimate', countText: (text) => estimateText(text) });
}

/** One bare pass over the history's counts: the floor any token-budget compaction must pay. */
export function sumCounts(messages: readonly Message[], counter: TokenCounter): number {
  let total = 0;
  for (let i = 0; i < messages.length; i++) total += counter.countMessage(messages[i] as Message);
  return total;
}

const cache = new Map<number, BenchHistory>();

/** The `size`-message history of the report seed (generated on first use). */
export function benchHistory(size: number): BenchHistory {
  let history = cache.get(size);
  if (history === undefined) {
    const messages = Object.freeze(generateHistory(size, REPORT_SEED));
    // The orphan figures mean something only if the generated history has none to begin with.
    if (messages.length !== size || messages[0]?.role !== 'system' || countOrphans(messages) !== 0) {
      throw new Error(`The corpus generator made an invalid ${size}-message history`);
    }
    const warmCounter = freshCounter();
    history = { size, messages, warmCounter, totalTokens: sumCounts(messages, warmCounter) };
    cache.set(size, history);
  }
  return history;
}
