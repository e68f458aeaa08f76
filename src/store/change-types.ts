/**
 * The change feed's public types: what a store tells its subscribers about committed changes to
 * its sessions (`SessionStore.changes`), and the driver capability that adds other processes'
 * changes (`ChangeFeedDriver`).
 * @module
 */
import type { ChatstateError } from '../errors.js';

/** What a committed write did to a session: messages added, the whole session rewritten, or removed. */
export type ChangeKind = 'append' | 'replace' | 'delete';

/** One committed change to one session, made through this store or (with a shared feed) by any other writer. */
export interface SessionChangedEvent {
  readonly type: 'change';
  readonly kind: ChangeKind;
  /** The session's id (in a tenant view: the tenant's own id). */
  readonly id: string;
  /**
   * The session's version after the change. For a `delete`: the version it had, or 0 when the
   * writer did not know it.
   */
  readonly version: number;
  /** The session's owner, when the writer knew it (in a tenant view: the tenant's own user id). */
  readonly userId?: string;
}

/**
 * Changes may have been missed: the feed's connection was down and is back (`reconnected`), or a
 * tenant view could not tell whose a change was (`unknown-owner`), or a write removed sessions it
 * could not name (`unnamed-changes`: a remote store's purge or forget). Treat every session as possibly
 * changed (drop caches, read again).
 */
export interface ChangesResetEvent {
  readonly type: 'reset';
  readonly reason: 'reconnected' | 'unknown-owner' | 'unnamed-changes';
}

/**
 * The feed cannot hear other writers now (its connection failed, or cannot be made): until a
 * `reset` follows, changes by other processes are not told. Told once per outage.
 */
export interface ChangesInterruptedEvent {
  readonly type: 'interrupted';
  /** Why: `UNAVAILABLE` (retried until it is back), or `UNSUPPORTED` (this store cannot listen at all). */
  readonly error: ChatstateError;
}

/** What a change feed tells its listeners. */
export type ChangeEvent = SessionChangedEvent | ChangesResetEvent | ChangesInterruptedEvent;

/** A subscriber of a change feed. It is called synchronously and must not throw (a throw is reported as a warning). */
export type ChangeListener = (event: ChangeEvent) => void;

/**
 * Which writers a feed tells about:
 * - `all`: every writer of the store's data, in any process (Postgres LISTEN/NOTIFY, Redis
 *   pub/sub; the memory store, which only this object can write);
 * - `this-store`: only writes made through this store object (file and SQLite stores: another
 *   process writing the same files is not heard).
 */
export type ChangeCoverage = 'all' | 'this-store';

/**
 * Whether the feed hears other writers now: `live`, `connecting` (the first connection, or again
 * after an interruption: a `reset` follows when it is up) or `interrupted`. A `this-store` feed
 * is always `live`.
 */
export type ChangeFeedState = 'live' | 'connecting' | 'interrupted';

/**
 * A store's change feed: committed changes of its sessions, as they happen. Delivery is
 * at-least-once and per session in commit order; a change may be told twice (by this process and
 * by the shared feed), so a listener compares versions. Nothing is replayed for a listener that
 * subscribes later; a gap (lost connection) is always followed by a `reset`.
 */
export interface ChangeFeed {
  /** Which writers the feed tells about. */
  readonly coverage: ChangeCoverage;
  /** Whether it hears other writers right now. */
  readonly state: ChangeFeedState;
  /**
   * Calls `listener` for every event from now on; returns the function that stops it. A shared
   * feed starts listening at its first subscriber and stops after its last. `CLOSED` once the
   * store is closed.
   */
  subscribe(listener: ChangeListener): () => void;
}

/** A change as a driver reports it (the core adds `type`). */
export interface DriverChange {
  readonly kind: ChangeKind;
  readonly id: string;
  readonly version: number;
  readonly userId?: string;
}

/** Where a driver's feed reports to (the core's feed). */
export interface DriverChangeSink {
  /** A committed change, by any process (this one's included). */
  change(change: DriverChange): void;
  /** The feed listens (again): `gap` is true when changes may have been missed since it last did. */
  live(gap: boolean): void;
  /** The feed stopped hearing changes (`UNAVAILABLE`), or cannot at all (`UNSUPPORTED`). */
  interrupted(error: ChatstateError): void;
}

/**
 * Capability: the backend tells of committed changes from every process (Postgres LISTEN/NOTIFY,
 * Redis pub/sub). The core starts it on its feed's first subscriber and stops it after the last.
 */
export interface ChangeFeedDriver {
  /**
   * Starts listening and reporting to `sink`; resolves once started (not connected: the sink's
   * `live` says that), with the function that stops it. Connection failures never reject or throw:
   * they are reported as `interrupted`, and the driver tries again until stopped.
   */
  watchChanges(sink: DriverChangeSink): Promise<() => Promise<void>>;
}
