/**
 * ✱ The active-memory contract (Coreason's `SessionHandle`): what an agent can do with its memory
 * during a turn and between turns — page through history, keep scoped values, recall the past.
 * @module
 */
import type { Message } from '../message/message.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { UpdateWorkingMemoryOptions, WorkingMemoryVersion } from './working-memory.js';

/**
 * Where a value lives:
 * - `session`: this session's variables (`Session.variables`), stored with the session;
 * - `user`: this user, across all their sessions;
 * - `agent`: this agent's memory about this user;
 * - `app`: shared by all users of the application;
 * - `temp`: this turn only, never stored (Google ADK's `temp:`).
 */
export type Scope = 'session' | 'user' | 'agent' | 'app' | 'temp';

/** Options of `SessionHandle.history`. */
export interface HistoryOptions {
  /** Most messages returned (the newest of the range). @default 50 */
  readonly limit?: number;
  /** Cursor: only messages with `seq` below this (pass the previous page's `nextBefore`). */
  readonly before?: number;
}

/** One page of history, oldest first. */
export interface HistoryPage {
  readonly messages: readonly Message[];
  /** Cursor of the next older page; `undefined` when this page reaches the first message. */
  readonly nextBefore?: number;
}

/** Options of `SessionHandle.store`. */
export interface StoreValueOptions {
  /** @default 'session' */
  readonly scope?: Scope;
}

/** Options of `SessionHandle.get`. */
export interface GetValueOptions<T extends JsonValue> {
  /** @default 'session' */
  readonly scope?: Scope;
  /** Returned when the key has no value. */
  readonly default?: T;
}

/** Options of `SessionHandle.recall`. */
export interface RecallOptions {
  /** Most results. @default 5 */
  readonly k?: number;
  /** Results scoring below this (0–1) are left out. @default 0 */
  readonly threshold?: number;
  /**
   * Answer as of this time (ISO-8601 or a `Date`): only messages written by then, and only facts
   * valid then (`validFrom` at or before it, not superseded by a fact valid at or before it).
   * Without it, facts superseded by a fact already in effect are left out.
   */
  readonly asOf?: string | Date;
  /** Also return facts that a later fact superseded (marked with `supersededBy`). @default false */
  readonly includeSuperseded?: boolean;
}

/** Options of `SessionHandle.remember`. */
export interface RememberOptions {
  /** The id of the fact this one corrects or replaces (`messageId` of its hit): that fact is no longer recalled. */
  readonly supersedes?: string;
  /** From when the fact holds (ISO-8601 or a `Date`). @default now */
  readonly validFrom?: string | Date;
  /** Labels kept with the fact (at most 20, each 1–64 characters). */
  readonly tags?: readonly string[];
}

/** One recalled message or piece of knowledge, and where it came from. */
export interface RecallHit {
  readonly sessionId: string;
  readonly messageId: string;
  readonly seq: number;
  /** Relevance in (0, 1]: the text rank, raised by a similarity beyond chance when embeddings are on (`ranking/fusion.ts`). */
  readonly score: number;
  /** The message's text. */
  readonly text: string;
  /** `message` for conversation history, `knowledge` for something stored with `remember`. */
  readonly source: 'message' | 'knowledge';
  readonly timestamp: string;
  /** A fact's: from when it holds (its `validFrom`, else when it was stored). */
  readonly validFrom?: string;
  /** A fact's: the fact it superseded. */
  readonly supersedes?: string;
  /** A superseded fact's (with `includeSuperseded`): the fact that superseded it. */
  readonly supersededBy?: string;
  /** A fact's tags. */
  readonly tags?: readonly string[];
}

/** ✱ An agent's handle on its memory for one session (and its user and agent). */
export interface SessionHandle {
  readonly sessionId: string;
  readonly userId: string | undefined;
  readonly agentId: string | undefined;
  /** A page of this session's history by sequence number, newest page first. */
  history(options?: HistoryOptions): Promise<HistoryPage>;
  /** Keeps a JSON value under `key` in `scope` (`undefined` deletes it). */
  store(key: string, value: JsonValue | undefined, options?: StoreValueOptions): Promise<void>;
  /** The value under `key` in `scope`, or `options.default`. */
  get<T extends JsonValue = JsonValue>(key: string, options?: GetValueOptions<T>): Promise<T | undefined>;
  /** Past messages and knowledge of this user (only this session's, without a user) that match `query`, best first. */
  recall(query: string, options?: RecallOptions): Promise<RecallHit[]>;
  /** Stores a piece of knowledge (a fact) about this user, found later by `recall`; its id is the hit's `messageId`. */
  remember(text: string, options?: RememberOptions): Promise<RecallHit>;
  /**
   * Deletes fact `id` of this user's knowledge: its text is removed from the store (the knowledge
   * session is rewritten without it), not hidden. `NOT_FOUND` when the user has no such fact.
   */
  forget(id: string): Promise<void>;
  /** This user's working memory (this agent's, when the handle keeps one per agent): the newest version. */
  readWorkingMemory(): Promise<WorkingMemoryVersion>;
  /** Applies a JSON merge patch to the working memory (see `WorkingMemory.update`). */
  updateWorkingMemory(patch: JsonObject, options?: UpdateWorkingMemoryOptions): Promise<WorkingMemoryVersion>;
}

/** A caller-supplied embedding function: one vector per text, all of one length. */
export type Embed = (texts: readonly string[]) => Promise<ReadonlyArray<ArrayLike<number>>>;
