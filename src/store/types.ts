/**
 * The `SessionStore` contract every store implements, and the `StoreDriver` contract under it.
 *
 * Semantics live once in the core (`createSessionStore`): id checks, (de)serialization, encryption
 * at rest, schema migration, titles and token totals. A driver only persists records and performs
 * two atomic operations — an idempotent compare-and-append and a compare-and-replace — the way its
 * backend does them best (a transaction, a Lua script, a locked journal).
 * @module
 */
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { Message, MessageInput } from '../message/message.js';
import type { Session } from '../session/session.js';
import type { RecordedUsage } from '../tokens/usage.js';
import type { ChangeFeed, ChangeFeedDriver } from './change-types.js';

/** One row of `list`: Penguin's session index. */
export interface SessionSummary {
  readonly id: string;
  readonly agentId?: string;
  readonly userId?: string;
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

/** Range of `readMessages`, by sequence number. */
export interface MessageRange {
  /** Only messages with `seq` greater than this. */
  readonly afterSeq?: number;
  /** Only messages with `seq` less than this. */
  readonly beforeSeq?: number;
  /** Most messages returned: the newest ones of the range, in order. */
  readonly limit?: number;
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
  /** Messages of a session by sequence range (the last `limit` of the range), oldest first. */
  readMessages(id: string, range?: MessageRange): Promise<Message[]>;
  /** Sessions, newest activity first (`updatedAt` descending, then `id` ascending: see `ListQuery`). */
  list(query?: ListQuery): Promise<SessionSummary[]>;
  /** One session's row of `list` (owner, counts, version) without reading its messages; `undefined` when there is none. */
  summary(id: string): Promise<SessionSummary | undefined>;
  /** Deletes a session; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Deletes expired sessions; returns how many. */
  purgeExpired(): Promise<number>;
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

/** A stored message: its sequence number, id and encoded body (JSON or an encrypted envelope). */
export interface MessageRecord {
  readonly seq: number;
  readonly id: string;
  readonly data: string;
}

/** The stored head of a session: what `list` needs in the clear, the rest encoded in `data`. */
export interface HeadRecord {
  readonly id: string;
  /** Record schema version (see `RECORD_SCHEMA`). */
  readonly schema: number;
  readonly version: number;
  readonly agentId?: string;
  readonly userId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Epoch milliseconds, when the session has a retention limit. */
  readonly expiresAt?: number;
  /** Sliding retention: each append moves `expiresAt` to `updatedAt + ttlMs`. */
  readonly ttlMs?: number;
  readonly messageCount: number;
  readonly tokenCount: number;
  /** Highest sequence number ever given in this session (never reused). */
  readonly lastSeq: number;
  /** Encoded title (JSON string or an encrypted envelope); absent until the first user message. */
  readonly title?: string;
  /** Encoded metadata, variables and usage. */
  readonly data: string;
  /**
   * Recovery notices of the drivers that detect damage (the file store), in the clear: they hold
   * no conversation content. Other drivers need not store the field; the core keeps it on a save.
   */
  readonly recovery?: readonly RecoveryNotice[];
  /**
   * The key check (see `key-check.ts`): the encryption keys the session's records may be sealed
   * with, by fingerprint; absent for plain records. Opaque to drivers, which store it and compare it.
   */
  readonly keys?: string;
}

/** A message about to be appended, encoded by the core. */
export interface PendingMessage {
  readonly id: string;
  readonly data: string;
  /** Token count by the store's counter. */
  readonly tokens: number;
  /** Encoded title, when this is a user dialog message (the first one becomes the session title). */
  readonly title?: string;
  /** Plain searchable text, given only to drivers with `fullTextSearch` and only when records are not encrypted. */
  readonly text?: string;
}

/** An atomic append, as the driver must perform it. */
export interface AppendCommit {
  readonly expectedVersion?: number;
  /** Messages in order; those whose id is already stored are skipped, the rest get `lastSeq + 1, …`. */
  readonly messages: readonly PendingMessage[];
  /** New `updatedAt` when anything is added. */
  readonly updatedAt: string;
  /** New encoded head data (`HeadRecord.data`), replacing the stored one when anything is added. */
  readonly data?: string;
  /**
   * The key check: the append is refused (`checkKeys`) unless the session's stored check equals
   * `expected` (`''` for none), judged inside the commit; a written append stores `next` (`''`
   * removes it). `undefined`: no check (a driver used without the core).
   */
  readonly keys?: { readonly expected: string; readonly next: string };
  /**
   * The core's clock (epoch milliseconds) when the append was made. A driver with
   * `capabilities.expiryInCommit` treats a session whose `expiresAt` is at or before it as absent
   * (`NOT_FOUND`), judged inside the commit; `undefined`: no expiry check.
   */
  readonly now?: number;
}

/** What the driver did for an `AppendCommit`. */
export interface AppendOutcome {
  readonly version: number;
  /** The records written, with their sequence numbers. */
  readonly appended: readonly MessageRecord[];
  /** Ids already stored. */
  readonly duplicates: readonly string[];
}

/** An atomic replace of a whole session. */
export interface ReplaceCommit {
  /** `undefined`: no check; `0`: the session must not exist; otherwise the stored version must equal it. */
  readonly expectedVersion?: number;
  /** When the session exists: refused (`checkKeys`) unless its stored key check equals this (`''` for none); `undefined`: no check. */
  readonly expectedKeys?: string;
  readonly head: HeadRecord;
  /** Every message, ascending by `seq` (with plain `text` under the same rule as `PendingMessage.text`). */
  readonly messages: ReadonlyArray<MessageRecord & { readonly text?: string }>;
}

/** Why a stored session could not be read, and where its damaged files were kept. */
export interface RecoveryNote {
  /** What was wrong, for people (e.g. "snapshot: checksum mismatch; backup: missing"). */
  readonly reason: string;
  /** The id of the session that was lost. */
  readonly lostId: string;
  /** Where the damaged files were moved (relative to the store), never deleted. */
  readonly keptAside: readonly string[];
  /**
   * The highest version and sequence number the lost session is known to have reached (its
   * high-water mark): the recovery session starts above them, so neither ever goes backwards.
   */
  readonly floor?: { readonly version: number; readonly lastSeq: number };
}

/** A `readRange` request: the range, and the core's clock for drivers with `expiryInCommit`. */
export interface DriverRange extends MessageRange {
  /** Epoch milliseconds: a session whose `expiresAt` is at or before it reads as absent (`undefined`); `undefined`: no expiry check. */
  readonly now?: number;
}

/** Optional powers a driver declares; the core falls back when one is missing. */
export interface DriverCapabilities {
  /** Expiry is enforced by the backend itself (Redis). */
  readonly nativeExpiry?: boolean;
  /**
   * `append` and `readRange` refuse an expired session themselves, at `AppendCommit.now` /
   * `DriverRange.now`, in the same transaction or script as the write or read: the core then
   * skips the head read it otherwise makes first (one round trip less per append and per read).
   */
  readonly expiryInCommit?: boolean;
  /** The driver indexes `PendingMessage.text` and implements `searchText`. */
  readonly fullTextSearch?: boolean;
  /**
   * Reads return the very `MessageRecord` objects the driver was given or returned from `append`
   * (frozen, held in memory: the memory driver). The core then keeps the message each one stands
   * for, and a load takes it instead of parsing the record again.
   */
  readonly stableRecords?: boolean;
}

/** One stored value of active memory: its namespace (built by the core), key and encoded data. */
export interface ValueRecord {
  readonly key: string;
  /** Encoded JSON (or an encrypted envelope). */
  readonly data: string;
}

/**
 * The query a driver's `list` answers: the core has checked it and filled `limit` and `offset`;
 * `after` and `expired` are present only when given (`expired` only as `true`).
 */
export type DriverListQuery = Required<Pick<ListQuery, 'limit' | 'offset'>> &
  Pick<ListQuery, 'userId' | 'agentId' | 'after' | 'expired' | 'idPrefix'> & { now: number };

/**
 * The required session primitives: all a new backend must implement to be a store. Ids reaching a
 * driver are already validated; records are opaque strings the core encodes and decodes.
 *
 * - `readHead`, `readAll`, `readRange`: reads (a missing session is `undefined`, never an error);
 * - `append`: the atomic, durable, idempotent compare-and-append;
 * - `replace`: the atomic, durable compare-and-replace of a whole session;
 * - `list`, `remove`: the index and deletion;
 * - `close`, `name`, and the optional `capabilities` flags.
 *
 * Everything else is an optional capability interface a driver declares by implementing it, and
 * the core falls back when it is missing: `PurgeDriver` (otherwise `list` + `remove`),
 * `TextSearchDriver` (otherwise active memory keeps an in-process index), `ValueDriver`
 * (otherwise `store.values` refuses with `UNSUPPORTED`) and `ChangeFeedDriver` (otherwise
 * `store.changes` tells only this store's own writes). `StoreDriver` is the first three together.
 */
export interface SessionDriver {
  /** Name of the store in error messages. */
  readonly name: string;
  readonly capabilities?: DriverCapabilities;
  readHead(id: string): Promise<HeadRecord | undefined>;
  /**
   * The head and every message in one consistent read. A driver that finds a session it cannot
   * read at all (every copy damaged) keeps the damaged files aside and answers `recovered`
   * instead; `head` and `messages` then hold nothing and the core returns a recovery session.
   */
  readAll(id: string): Promise<{ head: HeadRecord; messages: MessageRecord[]; recovered?: RecoveryNote } | undefined>;
  /**
   * Messages by seq range, the last `limit` of it, ascending; `undefined` when the session does not
   * exist (or, with `expiryInCommit` and `range.now`, has expired).
   */
  readRange(id: string, range: DriverRange): Promise<MessageRecord[] | undefined>;
  /** Atomic, durable, idempotent append; throws `NOT_FOUND` (also for an expired session, with `expiryInCommit` and `commit.now`) or `CONFLICT`. */
  append(id: string, commit: AppendCommit): Promise<AppendOutcome>;
  /** Atomic, durable replace; throws `CONFLICT`. */
  replace(id: string, commit: ReplaceCommit): Promise<void>;
  /**
   * Heads matching the filter in list order (`updatedAt` descending as the backend stores it, then
   * `id` ascending), strictly after `query.after` when given, then paged. Heads that expired at or
   * before `now` are excluded, or with `expired: true` are the only ones listed (the core's purge
   * fallback lists with `now: 0` to see every head).
   */
  list(query: DriverListQuery): Promise<HeadRecord[]>;
  /** Removes a session with its messages and its value namespaces (see `ValueDriver`); false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Releases the backend's connections and handles; the core calls it once, after pending operations settled. */
  close(): Promise<void>;
}

/** Capability: the backend removes expired sessions itself (one statement or script instead of a listing). */
export interface PurgeDriver {
  /** Removes sessions whose `expiresAt` is at or before `now`, with their value namespaces; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

/** Capability: active memory's durable values, by opaque namespace. Both methods or neither. */
export interface ValueDriver {
  /**
   * Values of namespace `ns` (all of them, keys ascending, when `keys` is omitted). Namespaces are
   * opaque strings built by the core; `session:<id>` and `session:<id>/…` belong to session `id`
   * and are removed with it by `remove` and `purgeExpired`.
   */
  readValues(ns: string, keys?: readonly string[]): Promise<ValueRecord[]>;
  /** Writes (data: string) and deletes (data: null) keys of one namespace, atomically and durably. */
  writeValues(
    ns: string,
    entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
  ): Promise<void>;
}

/** Capability: the backend's own full-text search over indexed message text (with `capabilities.fullTextSearch`). */
export interface TextSearchDriver {
  /** Hits for `query` (already checked by the core), best first. */
  searchText(query: TextSearchQuery): Promise<TextSearchHit[]>;
}

/**
 * What `createSessionStore` accepts: the required `SessionDriver` and any of the capability
 * interfaces (a driver declares one by implementing its methods).
 */
export type AnyStoreDriver = SessionDriver &
  Partial<PurgeDriver> &
  Partial<ValueDriver> &
  Partial<TextSearchDriver> &
  Partial<ChangeFeedDriver>;

/**
 * The full driver: the session primitives with purge and values, and full-text search when
 * `capabilities.fullTextSearch` is set. Every built-in driver is one.
 */
export interface StoreDriver extends SessionDriver, PurgeDriver, ValueDriver {
  /** Full-text search over indexed message text (only with `capabilities.fullTextSearch`). */
  searchText?(query: TextSearchQuery): Promise<TextSearchHit[]>;
  /** The shared change feed (Postgres, Redis); see `ChangeFeedDriver`. */
  watchChanges?: ChangeFeedDriver['watchChanges'];
}

/** Extra stored fields of a record that this version does not know, kept so a rewrite does not lose them. */
export type UnknownFields = JsonObject;
