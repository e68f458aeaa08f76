/**
 * Tool-safe compaction: triggers decide when, strategies decide how, compactors are both. Every
 * built-in keeps system-category messages, keeps tool calls with their results, starts the kept
 * dialog at a user message, keeps the latest turn whole and never mutates its input.
 * @module
 */
import { byCategory } from './by-category.js';
import { composite } from './composite.js';
import { messageLimit } from './message-limit.js';
import { offload } from './offload.js';
import { resolvePrunePolicy } from './policy.js';
import { slidingWindow } from './sliding-window.js';
import { split } from './split.js';
import { isSummary, summarize } from './summarize.js';
import { tokenBuffer } from './token-buffer.js';
import { tokenLimit } from './token-limit.js';
import { triggers } from './triggers.js';
import { truncateToolOutputs } from './truncate-tool-outputs.js';
import { advanceToFirstUserMessage, findTurns } from './turns.js';

export type {
  Archive,
  AsyncCompactor,
  AsyncStrategy,
  CompactionInput,
  CompactionRemoved,
  CompactionResult,
  Compactor,
  Strategy,
  Summarizer,
  SyncCompactor,
  SyncStrategy,
  Trigger,
} from './types.js';
export type { PrunePolicy, SyncPrunePolicy } from './policy.js';
export type { ByCategoryOptions, DroppableCategory } from './by-category.js';
export type { MessageLimitOptions } from './message-limit.js';
export type { OffloadOptions } from './offload.js';
export type { SlidingWindowOptions } from './sliding-window.js';
export type { SplitOptions } from './split.js';
export type { SummarizeOptions } from './summarize.js';
export type { TokenBufferOptions } from './token-buffer.js';
export type { TokenLimitOptions } from './token-limit.js';
export type { TruncateToolOutputsOptions } from './truncate-tool-outputs.js';
export type { Turns } from './turns.js';

/** The built-in compactors, triggers and helpers. */
export const compaction = Object.freeze({
  /** Keep at most N droppable messages, in whole turns (goaitools). */
  messageLimit,
  /** Above max tokens, drop the oldest turns down to a target (goaitools, with measured usage). */
  tokenLimit,
  /** Keep the last N turns (Coreason SLIDING_WINDOW). */
  slidingWindow,
  /** Keep the latest turns that fit in N tokens (Coreason TOKEN_BUFFER). */
  tokenBuffer,
  /** Drop tool exchanges, then dialog, then context (Penguin's priority). */
  byCategory,
  /** Shorten long tool results to head and tail. */
  truncateToolOutputs,
  /** Replace old turns by a caller-written summary. */
  summarize,
  /** Archive old turns, then drop them (Coreason VECTOR_STORE). */
  offload,
  /** Several compactors in order, one report. */
  composite,
  /** A trigger plus a strategy. */
  split,
  /** Built-in triggers and combinators. */
  triggers,
  /** Coreason's named policies as compactors. */
  resolvePrunePolicy,
  /** The history from its first user turn on (goaitools). */
  advanceToFirstUserMessage,
  /** True for a summary message written by `summarize`. */
  isSummary,
});

export {
  messageLimit,
  tokenLimit,
  slidingWindow,
  tokenBuffer,
  byCategory,
  truncateToolOutputs,
  summarize,
  offload,
  composite,
  split,
  triggers,
  resolvePrunePolicy,
  advanceToFirstUserMessage,
  isSummary,
  findTurns,
};
