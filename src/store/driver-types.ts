/**
 * What a driver author implements: the `StoreDriver` contract under every `SessionStore` — the
 * required `SessionDriver` primitives, the capabilities a driver may add (`PurgeDriver`,
 * `ValueDriver`, `TextSearchDriver`, `MarksDriver`, `ReadAtDriver`, and `ChangeFeedDriver` in `change-types.ts`), and the records
 * they persist and the commits they perform.
 *
 * Semantics live once in the core (`createSessionStore`): id checks, (de)serialization, encryption
 * at rest, schema migration, titles and token totals. A driver only persists records and performs
 * two atomic operations — an idempotent compare-and-append and a compare-and-replace — the way its
 * backend does them best (a transaction, a Lua script, a locked journal). What users call is in
 * `session-store-types.ts`.
 * @module
 */
import type { JsonObject } from '../message/schema.js';
import type { ChangeFeedDriver } from './change-types.js';
import type {
  ForgetCounts,
  ListQuery,
  MessageRange,
  RecoveryNotice,
  TextSearchHit,
  TextSearchQuery,
} from './session-store-types.js';

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
  /** The session's kind (`metadata.chatstate`, see `session-kind.ts`), in the clear for `list`; absent on a conversation. */
  readonly kind?: string;
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
  /**
   * Set only on a row of a listing that could not be read (`listedHead`): why. The row is listed
   * with what of it could be read, so one damaged session fails neither the listing nor the others.
   */
  readonly damage?: string;
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
   * The head's new kind when the append carries state (`data`): `''` removes it; `undefined`
   * leaves it as it is. Written only when the append adds a message, as `data` is.
   */
  readonly kind?: string;
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
  /** The messages it drops are erased on request (`SaveOptions.erase`): leave no copy of them a driver can remove. */
  readonly erase?: boolean;
}

/**
 * An atomic replace of a session's tail: the core has read the head and the tail and built the
 * new head; the driver, in one commit, checks the stored version, removes the messages with a
 * seq above `afterSeq`, adds `messages` and writes `head`.
 */
export interface TailCommit {
  /** The stored version must equal it (`CONFLICT` otherwise; `NOT_FOUND` when there is no session). */
  readonly expectedVersion: number;
  /** Messages with a greater seq are removed. */
  readonly afterSeq: number;
  /** The new tail, ascending by `seq`, every seq above the stored `lastSeq` (with plain `text` under the rule of `PendingMessage.text`). */
  readonly messages: ReadonlyArray<MessageRecord & { readonly text?: string }>;
  /** The new head (version, counts, `lastSeq`, title, data, expiry, key check) replacing the stored one. */
  readonly head: HeadRecord;
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
  /**
   * The lost session's owner as last known (when the driver knew it): the recovery session keeps
   * it, so the owner sees what happened to their session and forgetting them removes it too.
   */
  readonly owner?: { readonly userId?: string; readonly agentId?: string };
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
  /**
   * `purgeExpired` honours its `idPrefix`. Without the flag the core purges by prefix through
   * `list`: a driver written before the argument would ignore it and purge every namespace.
   */
  readonly purgeByIdPrefix?: boolean;
}

/** One stored value of active memory: its namespace (built by the core), key and encoded data. */
export interface ValueRecord {
  readonly key: string;
  /** Encoded JSON (or an encrypted envelope). */
  readonly data: string;
}

/**
 * The query a driver's `list` answers: the core has checked it and filled `limit` and `offset`;
 * `after` and `expired` are present only when given (`expired` only as `true`). `kinds` filters on
 * `HeadRecord.kind` (`'conversations'`: heads without one); the core always gives it, and a
 * driver treats it absent as `'all'` (every head: what its own callers, such as purges, need).
 */
export type DriverListQuery = Required<Pick<ListQuery, 'limit' | 'offset'>> &
  Pick<ListQuery, 'userId' | 'agentId' | 'after' | 'expired' | 'idPrefix' | 'kinds'> & { now: number };

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

/**
 * Capability: replaces a session's tail in one commit whose cost is that of the tail (see
 * `TailCommit`). A message id of `messages` still stored before `afterSeq` is `INVALID_ARGUMENT`,
 * and nothing changes. Without it the core reads the session and replaces it whole.
 */
export interface TailDriver {
  replaceTail(id: string, commit: TailCommit): Promise<void>;
}

/** Capability: the backend removes expired sessions itself (one statement or script instead of a listing). */
export interface PurgeDriver {
  /**
   * Removes sessions whose `expiresAt` is at or before `now`, with their value namespaces; returns
   * how many. With `idPrefix` (given only to a driver with `capabilities.purgeByIdPrefix`), only
   * sessions whose id starts with it. Expiry (and prefix) is judged in the step that removes.
   */
  purgeExpired(now: number, idPrefix?: string): Promise<number>;
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

/**
 * Capability: a readiness check that reads no session. Without it the core reads the head of an id
 * no session has; a backend that spreads its data (Redis Cluster) checks every part it needs.
 */
export interface PingDriver {
  /** Resolves when the backend answers; a typed error when it does not. */
  ping(probeId: string): Promise<void>;
}

/** One live session of a user, as `MarksDriver.listMarks` gives it: what tells a change, without title or data. */
export interface SessionMarkRecord {
  readonly id: string;
  readonly version: number;
  readonly createdAt: string;
  readonly messageCount: number;
  readonly tokenCount: number;
  /** Set when the session's head could not be read (see `HeadRecord.damage`): why. */
  readonly damage?: string;
}

/**
 * Capability: the marks of every live session of one user in one call, cheaper than `list` (no
 * titles, no head data, no order). Without it the core pages through `list({ userId })`.
 */
export interface MarksDriver {
  /** Sessions whose head names `userId` and that have not expired at `now` (epoch ms), in any order. */
  listMarks(userId: string, now: number): Promise<SessionMarkRecord[]>;
}

/** A message's place, as `ReadAtDriver.readRecordsAt` is asked for it. */
export interface RecordRef {
  readonly sessionId: string;
  readonly seq: number;
}

/**
 * Capability: the records at several (session, seq) places in one call (recall reads its best
 * hits this way), for drivers with `expiryInCommit`. Without it the core reads each with `readRange`.
 */
export interface ReadAtDriver {
  /** The record at each ref, in order; `undefined` for a missing session, one expired at `now` (epoch ms), or no message at that seq. */
  readRecordsAt(refs: readonly RecordRef[], now: number): Promise<Array<MessageRecord | undefined>>;
}

/** Capability: the backend's own full-text search over indexed message text (with `capabilities.fullTextSearch`). */
export interface TextSearchDriver {
  /** Hits for `query` (already checked by the core), best first. */
  searchText(query: TextSearchQuery): Promise<TextSearchHit[]>;
}

/** Whose data a driver's `forgetUser` removes: the user, and their value namespaces as the core names them. */
export interface ForgetTarget {
  readonly userId: string;
  /** The user's own namespace (`user:<u>`). */
  readonly userNamespace: string;
  /** A namespace `agent:<a>` followed by this (`/user:<u>`) is one of the user's agent namespaces. */
  readonly agentSuffix: string;
}

/** What a driver's `forgetUser` removed, by kind (the core adds what it dropped from memory). */
export type DriverForgetCounts = Omit<ForgetCounts, 'cached' | 'keys'>;

/** What a driver's `forgetUser` did: its counts and the ids of the sessions it removed (the change feed tells each). */
export interface DriverForgetResult extends DriverForgetCounts {
  readonly sessionIds: readonly string[];
}

/**
 * Capability: removes everything of one user — every session whose head names them (with its
 * messages, session namespaces and index rows), the user's value namespaces (see `isUserNamespace`),
 * and every copy the backend keeps of them (backups, journals, kept-aside files, caches). Safe to
 * run again after it was cut short; a run that finds nothing returns zeros.
 */
export interface ForgetDriver {
  forgetUser(target: ForgetTarget): Promise<DriverForgetResult>;
}

/**
 * What `createSessionStore` accepts: the required `SessionDriver` and any of the capability
 * interfaces (a driver declares one by implementing its methods).
 */
export type AnyStoreDriver = SessionDriver &
  Partial<PurgeDriver> &
  Partial<ValueDriver> &
  Partial<TextSearchDriver> &
  Partial<ForgetDriver> &
  Partial<ChangeFeedDriver> &
  Partial<PingDriver> &
  Partial<MarksDriver> &
  Partial<ReadAtDriver> &
  Partial<TailDriver>;

/**
 * The full driver: the session primitives with purge, values and forgetting a user, and full-text search when
 * `capabilities.fullTextSearch` is set. Every built-in driver is one.
 */
export interface StoreDriver extends SessionDriver, PurgeDriver, ValueDriver, ForgetDriver {
  /** Full-text search over indexed message text (only with `capabilities.fullTextSearch`). */
  searchText?(query: TextSearchQuery): Promise<TextSearchHit[]>;
  /** The shared change feed (Postgres, Redis); see `ChangeFeedDriver`. */
  watchChanges?: ChangeFeedDriver['watchChanges'];
  /** A readiness check of every part of the backend; see `PingDriver`. */
  ping?: PingDriver['ping'];
  /** The marks of one user's sessions in one call (Redis); see `MarksDriver`. */
  listMarks?: MarksDriver['listMarks'];
  /** A tail replaced in one commit; see `TailDriver`. */
  replaceTail?: TailDriver['replaceTail'];
  /** Records at several places in one call; see `ReadAtDriver`. */
  readRecordsAt?: ReadAtDriver['readRecordsAt'];
}

/** Extra stored fields of a record that this version does not know, kept so a rewrite does not lose them. */
export type UnknownFields = JsonObject;
