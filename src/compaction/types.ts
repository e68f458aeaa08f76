/**
 * The compaction contracts (goaitools): a `Trigger` decides when, a `Strategy` decides how, and a
 * `Compactor` is both. Strategies work on plain message arrays and never mutate them.
 * @module
 */
import type { ChatstateError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { RecordedUsage } from '../tokens/usage.js';

/** What every trigger and strategy receives. */
export interface CompactionInput {
  /** The whole history, system messages included, oldest first. */
  readonly messages: readonly Message[];
  /** Counter for token budgets (cached per message). */
  readonly counter: TokenCounter;
  /** Usage measured by the last model call, which beats the estimate when present. */
  readonly lastUsage?: RecordedUsage;
  /** Stops a compaction that calls out (`summarize` hands it to its summarizer, e.g. a model call); the others finish at once anyway. */
  readonly signal?: AbortSignal;
}

/** What a compaction removed, so a caller can log or persist it. */
export interface CompactionRemoved {
  /** Messages removed. */
  readonly count: number;
  /** Tokens they cost (by the input's counter). */
  readonly tokens: number;
  /** Id of the oldest removed message. */
  readonly firstId?: string;
  /** Id of the newest removed message. */
  readonly lastId?: string;
}

/** The outcome of one compaction. */
export interface CompactionResult {
  /** The new history (the input array itself when nothing changed). */
  readonly messages: readonly Message[];
  /** True when `messages` differs from the input. */
  readonly compacted: boolean;
  /** Name of the strategy (or chain of strategies) that ran. */
  readonly strategy: string;
  readonly removed: CompactionRemoved;
  /** Messages rewritten in place (e.g. truncated tool outputs), with the tokens that saved. */
  readonly modified: { readonly count: number; readonly tokensSaved: number };
  /** Messages the strategy added (e.g. a summary). */
  readonly added: readonly Message[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** False when the budget could not be met without breaking an invariant (the latest turn is kept whole). */
  readonly reachedTarget: boolean;
  /** A collaborator failure (e.g. the summarizer); the history is then returned unchanged. */
  readonly error?: ChatstateError;
}

/** Decides whether to compact. */
export interface Trigger {
  shouldCompact(input: CompactionInput): boolean;
}

/** Compacts a history. */
export interface Strategy {
  /** Short name, reported in results. */
  readonly name: string;
  compact(input: CompactionInput): CompactionResult | Promise<CompactionResult>;
}

/** A strategy that completes synchronously (every built-in except `summarize`). */
export interface SyncStrategy extends Strategy {
  compact(input: CompactionInput): CompactionResult;
}

/** A strategy that always completes asynchronously (`summarize`, `offload`). */
export interface AsyncStrategy extends Strategy {
  compact(input: CompactionInput): Promise<CompactionResult>;
}

/** A trigger and a strategy in one. */
export type Compactor = Trigger & Strategy;

/** A compactor that completes synchronously. */
export type SyncCompactor = Trigger & SyncStrategy;

/** A compactor that always completes asynchronously. */
export type AsyncCompactor = Trigger & AsyncStrategy;

/** Summarizes messages that are about to be dropped; usually an LLM call. */
export type Summarizer = (
  messages: readonly Message[],
  context: { readonly previousSummary?: string; readonly signal?: AbortSignal },
) => Promise<string> | string;

/** Receives messages that are about to be dropped, for a vector store (Coreason's VECTOR_STORE). */
export interface Archive {
  archive(messages: readonly Message[]): Promise<void> | void;
}
