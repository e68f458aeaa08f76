/**
 * What users of a store call: the ✱ `SessionStore` contract every store fulfils, and the types of
 * its calls — `list`'s query and rows (`ListQuery`, `SessionSummary`), the options and results of
 * `save` and `append`, message ranges, active memory's `ValueStore`, full-text search, and the
 * recovery notices a repaired session carries.
 *
 * `createSessionStore` (`session-store.ts`) builds a `SessionStore` over a driver; what a driver
 * implements is in `driver-types.ts`, and the change feed's types in `change-types.ts`.
 * @module
 */
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { Message, MessageInput } from '../message/message.js';
import type { Session } from '../session/session.js';
import type { RecordedUsage } from '../tokens/usage.js';
import type { ChangeFeed } from './change-types.js';
import type { ListKinds } from './session-kind.js';

/** One row of `list`: Penguin's session index. */
export interface SessionSummary {
  readonly id: string;
  readonly agentId?: string;
  readonly userId?: string;
  /**
   * Set only on a session chatstate keeps for itself (its `metadata.chatstate`, e.g. `'knowledge'`,
   * `'langgraph-checkpoints'`): `list` leaves such sessions out unless `kinds` asks for them. An
   * ordinary conversation has none.
   */
  readonly kind?: string;
  /**
   * The session's title, shortened to 120 characters: a string `metadata.title` when the caller
   * sets one (saving a session whose `metadata.title` changed changes it; an `append` whose
   * `state` carries one gives it to a session without a title yet); otherwise the text of the first
   * user message the session ever had. Once set it stays, even when compaction removes that
   * message, until the caller changes `metadata.title`. `undefined` before there is either.
   */
  readonly title?: string;
  readonly messageCount: number;
  readonly tokenCount: number;
  readonly version: number;
  readonly createdAt: string;
  /** Last activity; `list` is sorted by it, newest first. */
  readonly updatedAt: string;
  /** When the session expires (ISO-8601), if it has a retention limit. */
  readonly expiresAt?: string;
  /** Damage the store repaired in this session, with what it lost: a loss of acknowledged data is never silent. */
  readonly recovery?: readonly RecoveryNotice[];
  /**
   * Set when the stored session could not be read (a row damaged by hand or by another program):
   * why. It is listed so it can be seen and deleted; its counts are 0 and reading it fails `CORRUPT`.
   */
  readonly damaged?: string;
  /** The session this one continues (`metadata.continuedFrom`): its predecessor in a continuation chain. */
  readonly continuedFrom?: string;
  /** The session that continues this one (`metadata.continuedTo`). */
  readonly continuedTo?: string;
  /** Where this session was forked from (`metadata.forkedFrom`): the source session and the last message copied (its sequence number). */
  readonly forkedFrom?: { readonly sessionId: string; readonly messageId?: string; readonly seq?: number };
  /** Ids of this session's forks (`metadata.forks`, the newest `MAX_FORK_ENTRIES`), oldest first. */
  readonly forks?: readonly string[];
}

/**
 * A recovery notice (Penguin's): the store found a session damaged, repaired it, and says what it
 * could not give back. It is kept with the session's head (so `list` shows it), in the session's
 * `metadata.recovery`, and as a `context` message with the notice's `id` at the point where the
 * session resumed, so the model reads it too.
 */
export interface RecoveryNotice {
  /** Stable id of the notice; also the id of the message that tells it in the session. */
  readonly id: string;
  /** When the store repaired the session (ISO-8601). */
  readonly at: string;
  /**
   * `restored-from-backup`: the snapshot was damaged or missing, the backup was used;
   * `journal-damaged`: the journal was damaged, cut or missing;
   * `unreadable`: nothing of the session could be read, a recovery session took its place.
   */
  readonly kind: 'restored-from-backup' | 'journal-damaged' | 'unreadable';
  /** What was wrong, for people. */
  readonly reason: string;
  /**
   * What acknowledged data is gone, when the store knows (its high-water mark): sequence numbers
   * and versions, inclusive. They are never given again.
   */
  readonly lost?: {
    readonly fromSeq: number;
    readonly toSeq: number;
    readonly fromVersion: number;
    readonly toVersion: number;
  };
  /** Where the damaged files were kept (relative to the store), never deleted. */
  readonly keptAside: readonly string[];
}

/**
 * A position in `list` order: a row's `updatedAt` and `id`. Any `SessionSummary` is one, so the
 * last row of a page is the cursor of the next.
 */
export interface ListCursor {
  /** The row's `updatedAt` (ISO-8601), as `list` gave it. */
  readonly updatedAt: string;
  /** The row's session id. */
  readonly id: string;
}

/** Options of `purgeExpired`. */
export interface PurgeOptions {
  /**
   * Only sessions whose id starts with this (letters, digits, `.`, `_` and `-`, as
   * `ListQuery.idPrefix`): one namespace of a shared store, such as a tenant's (see `tenantStore`).
   */
  readonly idPrefix?: string;
}

/**
 * Query of `list`. Rows come in one total order, the same in every store: `updatedAt` descending
 * (newest activity first), then `id` ascending (code-unit order) among equal `updatedAt`.
 */
export interface ListQuery {
  /** Most rows returned. @default 100 */
  readonly limit?: number;
  /** Rows skipped (in list order, after `after` when both are given). @default 0 */
  readonly offset?: number;
  /**
   * Only rows strictly after this one in list order (keyset paging): pass the last row of the
   * previous page. Unlike `offset`, a session deleted between pages makes no other one skipped,
   * and each page costs the same however deep the walk is.
   */
  readonly after?: ListCursor;
  readonly userId?: string;
  readonly agentId?: string;
  /**
   * Only sessions whose retention has ended (`expiresAt` at or before now) that `purgeExpired` has
   * not removed yet: what a purge would remove. Redis removes expired keys itself, so it lists
   * only those its own clock has not expired yet. @default false (expired sessions are not listed)
   */
  readonly expired?: boolean;
  /**
   * Only sessions whose id starts with this (letters, digits, `.`, `_` and `-`): one namespace of
   * a shared store, such as a tenant's (see `tenantStore`).
   */
  readonly idPrefix?: string;
  /**
   * Which sessions by kind (see `SessionSummary.kind`): `'conversations'`, those without a kind;
   * `'all'`, chatstate's internal sessions too; or an array of kinds, only those. Anything else is
   * `INVALID_ARGUMENT`. @default 'conversations'
   */
  readonly kinds?: ListKinds;
}

/** Options of `save`. */
export interface SaveOptions {
  /** Fail with `CONFLICT` unless the stored version is this (0 or `undefined` for "must not exist" when `create` is true). */
  readonly expectedVersion?: number;
  /** Retention: the session expires this many milliseconds after this save. */
  readonly ttlMs?: number;
  /**
   * Store the session's own `updatedAt` instead of the time of this save: for imports and
   * migrations, so a copy keeps when its conversation last changed (and lists in that order). @default false
   */
  readonly keepUpdatedAt?: boolean;
  /**
   * The messages this save drops are being erased on request (a fact forgotten): the store also
   * removes what its files keep of them beyond the rows (SQLite: zeroed pages, a merged full-text
   * index and an emptied write-ahead log, at a cost in proportion to the index; the file store
   * removes the backup snapshot and older journals that hold them; Postgres keeps dead rows until
   * `VACUUM`). `replaceTail` never erases: what it drops stays until later folds or saves. @default false
   */
  readonly erase?: boolean;
}

/** Options of `append`. */
export interface AppendOptions {
  /** Fail with `CONFLICT` unless the stored version is this. */
  readonly expectedVersion?: number;
  /**
   * Replaces the session's metadata, variables and last usage in the same atomic commit (a turn
   * stores its messages and its state changes together). Written only when a message is added.
   */
  readonly state?: {
    readonly metadata: JsonObject;
    readonly variables: Readonly<Record<string, JsonValue>>;
    readonly lastUsage?: RecordedUsage;
  };
}

/** What `append` did. */
export interface AppendResult {
  /** The session's version after the append (unchanged when every message was already there). */
  readonly version: number;
  /** The messages that were added, with their sequence numbers. */
  readonly appended: readonly Message[];
  /** Ids of messages that were already stored (an idempotent retry adds nothing). */
  readonly duplicates: readonly string[];
}

/** What `replaceTail` takes: where the tail starts, what replaces it, and the version it is based on. */
export interface ReplaceTailInput {
  /** The messages with a greater `seq` are removed; those up to it are kept as they are. At most the session's `lastSeq`. */
  readonly afterSeq: number;
  /** The new tail, in order; they get new sequence numbers above every one the session ever gave (ids unique in the session). */
  readonly messages: ReadonlyArray<Message | MessageInput>;
  /** Fail with `CONFLICT` (changing nothing) unless the stored version is this. */
  readonly expectedVersion: number;
  /** Replaces the session's metadata, variables and last usage in the same commit (see `AppendOptions.state`). */
  readonly state?: AppendOptions['state'];
}

/** What `replaceTail` did. */
export interface ReplaceTailResult {
  /** The session's version after the commit (the expected one + 1). */
  readonly version: number;
  /** How many stored messages were removed (those after `afterSeq`). */
  readonly removed: number;
  /** The new tail as stored, with its sequence numbers. */
  readonly messages: readonly Message[];
}

/** Range of `readMessages`, by sequence number. */
export interface MessageRange {
  /** Only messages with `seq` greater than this. */
  readonly afterSeq?: number;
  /** Only messages with `seq` less than this. */
  readonly beforeSeq?: number;
  /** Most messages returned: the newest ones of the range, in order. */
  readonly limit?: number;
}

/** A message's place in a store: its session and sequence number (`SessionStore.readMessagesAt`). */
export interface MessageRef {
  readonly sessionId: string;
  readonly seq: number;
}

/**
 * Whose a stored value is (active memory). The core turns a scope into a namespace, so one user's
 * values can never be reached through another user's scope.
 * - `user`: one user, across all their sessions;
 * - `agent`: one agent's memory about one user (`userId` required: agents never share a user's data);
 * - `app`: shared by every user of the application (written by the application, never by a model);
 * - `session`: side data of one session (e.g. embeddings), deleted with it.
 */
export type ValueOwner =
  | { readonly scope: 'user'; readonly userId: string }
  | { readonly scope: 'agent'; readonly agentId: string; readonly userId: string }
  | { readonly scope: 'app' }
  | { readonly scope: 'session'; readonly sessionId: string };

/** Durable key/value data of active memory, by owner. Values are JSON; `undefined` deletes. */
export interface ValueStore {
  get(owner: ValueOwner, key: string): Promise<JsonValue | undefined>;
  /** Every value of an owner (keys ascending). */
  getAll(owner: ValueOwner): Promise<Record<string, JsonValue>>;
  /** Writes several keys atomically and durably; a key set to `undefined` is deleted. */
  set(owner: ValueOwner, entries: Readonly<Record<string, JsonValue | undefined>>): Promise<void>;
}

/** Query of the store's own full-text search. */
export interface TextSearchQuery {
  /** Words to look for (plain text; the store quotes it for its query language). */
  readonly text: string;
  /** Only sessions of this user; `undefined` searches the sessions that have no user. */
  readonly userId?: string;
  /** Only these sessions (e.g. the current one, for a user-less handle). */
  readonly sessionIds?: readonly string[];
  /** Most hits. */
  readonly limit: number;
}

/** One hit of a full-text search: where it is and how well it matches (higher is better). */
export interface TextSearchHit {
  readonly sessionId: string;
  readonly seq: number;
  readonly messageId: string;
  /** The backend's relevance (BM25 for SQLite, ts_rank for Postgres), normalized to (0, 1]. */
  readonly score: number;
}

/**
 * What `forgetUser` removed, by kind. Counts are of what the store found: a second call finds
 * nothing and counts zeros.
 */
export interface ForgetCounts {
  /** Sessions owned by the user (their knowledge session included). */
  readonly sessions: number;
  /** Messages of those sessions. */
  readonly messages: number;
  /** The user's values: user scope and agent scope (`ValueOwner`). */
  readonly values: number;
  /** Values of the removed sessions (session scope: side data, stored vectors among them). */
  readonly sessionValues: number;
  /** Stored embedding chunks among `sessionValues` (active memory's vectors, keys under `embed/`). */
  readonly vectors: number;
  /** Rows of the backend's full-text index (SQLite FTS5, Postgres full-text; 0 elsewhere). */
  readonly textRows: number;
  /** Files removed from disk beyond the sessions' own: backups, journals, lost+found, leftovers (file store). */
  readonly files: number;
  /** Copies held in process memory that were dropped (session caches, recall partitions). */
  readonly cached: number;
  /** The user's own encryption keys destroyed (`userKeys`; 0 without it): every copy of their records elsewhere is unreadable. */
  readonly keys: number;
}

/** The receipt of `forgetUser`: whose data was removed, what, and when the removal finished. */
export interface ForgetReceipt {
  readonly userId: string;
  /** When the removal finished (ISO-8601). */
  readonly at: string;
  readonly removed: ForgetCounts;
}

/** One live session of a user in `SessionStore.marks`: its version and counts, which change with every write. */
export type SessionMark = Pick<
  SessionSummary,
  'id' | 'version' | 'createdAt' | 'messageCount' | 'tokenCount' | 'damaged'
>;

/** ✱ A durable home for sessions. */
export interface SessionStore {
  /** Name of the store, used in error messages. */
  readonly name: string;
  /** The session with every message; throws `NOT_FOUND`. */
  load(id: string): Promise<Session>;
  /** The session, or `undefined` when there is none. */
  get(id: string): Promise<Session | undefined>;
  /**
   * The session `get` returns, as JSON text that `Session.fromJSON` reads back equal, built from
   * the stored records without serializing each message again (for export and HTTP responses);
   * `undefined` when there is none.
   */
  getJson(id: string): Promise<string | undefined>;
  /** `getJson`'s text as UTF-8 bytes, built piece by piece: for large sessions, much faster than encoding the text. */
  getJsonBytes(id: string): Promise<Uint8Array | undefined>;
  /** Writes the whole session (compare-and-replace on `expectedVersion`); returns it as stored, with sequence numbers. */
  save(session: Session, options?: SaveOptions): Promise<Session>;
  /** Adds messages atomically and durably; idempotent by message id; cost independent of the session's size. */
  append(id: string, messages: ReadonlyArray<Message | MessageInput>, options?: AppendOptions): Promise<AppendResult>;
  /**
   * Replaces the messages after `afterSeq` with `input.messages` in one atomic commit on
   * `expectedVersion` (version + 1): the messages before are kept as they are, the new ones get new
   * sequence numbers, and the cost is that of the tail, not of the session (pop, regenerate, edit
   * of the last message). `CONFLICT` on another version, `NOT_FOUND`, `INVALID_ARGUMENT` for a bad
   * `afterSeq` or message; nothing changes then. Absent on a store that has no such call (callers
   * then `save` the whole session).
   */
  replaceTail?(id: string, input: ReplaceTailInput): Promise<ReplaceTailResult>;
  /** Messages of a session by sequence range (the last `limit` of the range), oldest first. */
  readMessages(id: string, range?: MessageRange): Promise<Message[]>;
  /**
   * The message at each ref, in order, read in one call where the backend can (recall reads its
   * best hits so): `undefined` for a missing or expired session or no message at that seq; a
   * session that cannot be read fails as `readMessages` does. Absent on a store that has no such
   * call (callers then `readMessages` each).
   */
  readMessagesAt?(refs: readonly MessageRef[]): Promise<Array<Message | undefined>>;
  /** Sessions, newest activity first (`updatedAt` descending, then `id` ascending: see `ListQuery`). */
  list(query?: ListQuery): Promise<SessionSummary[]>;
  /**
   * The marks of every live session of user `userId`, in no order: what `list({ userId })` tells of
   * each (id, version, counts, creation, damage) in one call, without titles, where the backend
   * can give it cheaper (for callers that only look for changes, such as recall's index). Absent
   * on a store that has no such call (callers then page through `list`).
   */
  marks?(userId: string): Promise<SessionMark[]>;
  /** One session's row of `list` (owner, counts, version) without reading its messages; `undefined` when there is none. */
  summary(id: string): Promise<SessionSummary | undefined>;
  /** Deletes a session; false when there was none. */
  delete(id: string): Promise<boolean>;
  /**
   * Deletes expired sessions (with `idPrefix`, only those whose id starts with it); returns how
   * many. Each session is checked and removed in one step where the backend can: one saved again
   * meanwhile stays. `INVALID_ARGUMENT` for options of another shape.
   */
  purgeExpired(options?: PurgeOptions): Promise<number>;
  /** Resolves when the backend answers a read, reading no stored session (for readiness probes). */
  ping(): Promise<void>;
  /**
   * Removes everything of user `userId`: their sessions (with messages, session values, stored
   * vectors and full-text rows), their user- and agent-scope values, the store's files that held
   * them, and copies cached in this process. Idempotent: a second call removes nothing and returns
   * zeros; a call cut short (a crash, a lost connection) is completed by calling again.
   * `INVALID_ID` for an id that is not a user id.
   */
  forgetUser(userId: string): Promise<ForgetReceipt>;
  /**
   * Active memory's durable values (user, agent, app and session scopes). Over a driver without the
   * values capability every call is refused with `UNSUPPORTED` (`UnsupportedError`).
   */
  readonly values: ValueStore;
  /**
   * The backend's own full-text search over message text (SQLite FTS5, Postgres full-text), or
   * `undefined` when it has none or records are encrypted at rest (an index would leak them):
   * active memory then keeps an in-process index.
   */
  readonly searchText: ((query: TextSearchQuery) => Promise<TextSearchHit[]>) | undefined;
  /**
   * Committed changes of the store's sessions, as they happen (see `ChangeFeed`): every store made
   * by `createSessionStore` tells its own writes, and a driver with a shared feed (Postgres, Redis)
   * adds every other process's. `undefined` for a store that keeps no feed (callers then read the
   * version, e.g. with `summary`).
   */
  readonly changes?: ChangeFeed;
  /** Releases connections and file handles; pending writes finish first. */
  close(): Promise<void>;
}
