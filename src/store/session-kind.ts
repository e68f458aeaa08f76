/**
 * A session's kind: what the sessions chatstate keeps for itself (active memory's knowledge and
 * working memory, the knowledge graph, the LangGraph saver's checkpoint logs, …) say they are, so
 * that `list` leaves them out of a listing of conversations unless asked.
 *
 * One source of truth: a string `metadata.chatstate` is the kind. The core copies it into the
 * head in the clear (like `userId`), where every driver filters on it as it pages, so `limit`,
 * `offset` and `after` stay exact. An ordinary conversation has no kind.
 * @module
 */
import type { JsonObject } from '../message/schema.js';

/** What a kind can be: lowercase words joined by `-` or `.` (64 characters at most). */
export const KIND_PATTERN = /^[a-z0-9]+(?:[-.][a-z0-9]+)*$/;

/** Longest kind. */
export const MAX_KIND_LENGTH = 64;

/**
 * Which sessions `list` gives: `'conversations'` (those without a kind: the default), `'all'`, or
 * only the sessions of the kinds named.
 */
export type ListKinds = 'conversations' | 'all' | readonly string[];

/** The kinds of chatstate's own internal sessions, by who keeps them. */
export const SESSION_KINDS = Object.freeze({
  knowledge: 'knowledge',
  workingMemory: 'working-memory',
  knowledgeGraph: 'knowledge-graph',
  langgraphCheckpoints: 'langgraph-checkpoints',
  langgraphSubgraph: 'langgraph-subgraph',
  claudeSummary: 'claude-summary',
} as const);

/** True when `value` is a string a kind can be. */
export function isSessionKind(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_KIND_LENGTH && KIND_PATTERN.test(value);
}

/**
 * The kind `metadata` gives a session: its `metadata.chatstate` when that is a kind's string,
 * `undefined` otherwise (an object there is interchange data, not a kind: see Penguin's).
 */
export function kindOfMetadata(metadata: JsonObject | undefined): string | undefined {
  const value = metadata?.['chatstate'];
  return isSessionKind(value) ? value : undefined;
}

/** True when a session of kind `kind` (`undefined`: a conversation) is one `kinds` lists. */
export function kindListed(kind: string | undefined, kinds: ListKinds | undefined): boolean {
  if (kinds === undefined || kinds === 'all') return true;
  if (kinds === 'conversations') return kind === undefined;
  return kind !== undefined && kinds.includes(kind);
}
