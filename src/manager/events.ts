/**
 * The events a `SessionManager` emits, with their payloads.
 * @module
 */
import type { CompactionResult } from '../compaction/types.js';
import type { JsonValue } from '../message/schema.js';
import type { Session } from '../session/session.js';
import type { RecoveryNotice } from '../store/session-store-types.js';

/** Why a session was written whole (`fork-deleted`: a fork of it was deleted and left its `metadata.forks`). */
export type SaveReason =
  'create' | 'save' | 'flush' | 'auto-save' | 'evict' | 'continue' | 'fork' | 'fork-deleted' | 'close';

/**
 * Work whose failures are reported as `error` events, not thrown, because what the caller asked
 * for is done: the interval's auto-save, saving a session evicted from the cache, compaction after
 * an append, replaying local changes on a newer stored copy after an append met a `CONFLICT`, an
 * event listener that threw, and removing a deleted fork from its source's `metadata.forks`
 * (`unlink-fork`: the fork is deleted; its source still lists it).
 */
export type BackgroundOperation = 'auto-save' | 'evict' | 'compact' | 'rebase' | 'listener' | 'unlink-fork';

/** A session was written whole (its local changes are now stored). */
export interface SavedEvent {
  readonly session: Session;
  readonly reason: SaveReason;
}

/**
 * A session loaded into the cache was repaired by its store: it is a recovery session (the store
 * could not read the original and stored this one in its place), or it lost acknowledged data and
 * says so in its recovery notices. Reported each time such a session is loaded from the store.
 */
export interface RecoveredEvent {
  readonly session: Session;
  /** What the store put in `metadata.recoveredFrom` (the file store: the lost id); `undefined` for a session repaired in place. */
  readonly recoveredFrom: JsonValue | undefined;
  /** The session's recovery notices (`metadata.recovery`): what was lost, why, and where the damaged files were kept. */
  readonly notices: readonly RecoveryNotice[];
}

/** A session reached its boundary and was continued. */
export interface ContinuedEvent {
  /** Id of the session that was continued. */
  readonly from: string;
  /** The successor, as stored. */
  readonly session: Session;
  /** Depth of the successor in its chain (1 for the first successor). */
  readonly continuationIndex: number;
}

/** A session was compacted after a final answer. */
export interface CompactedEvent {
  readonly sessionId: string;
  readonly result: CompactionResult;
}

/** Where a background failure happened. */
export interface ManagerErrorContext {
  readonly operation: BackgroundOperation;
  readonly sessionId?: string;
}

/** The event map of `SessionManager` (for the typed `on`, `once`, `off` and `emit`). */
export interface SessionManagerEvents {
  saved: [event: SavedEvent];
  recovered: [event: RecoveredEvent];
  continued: [event: ContinuedEvent];
  compacted: [event: CompactedEvent];
  /** A failure of work nobody awaits (auto-save, eviction, compaction after an append). */
  error: [error: Error, context: ManagerErrorContext];
}
