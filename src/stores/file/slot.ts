/**
 * One session's place in a file store's process: its cached state, the queue of its operations,
 * and what each part of the driver keeps for it — the appends waiting for a batch
 * (`group-commit.ts`), the lease on its lock (`leases.ts`), a fold under way (`fold-scheduler.ts`)
 * and its share of the cache's totals (`session-cache.ts`).
 * @module
 */
import type { AppendCommit, AppendOutcome } from '../../store/driver-types.js';
import type { HeldLock } from './lock.js';
import type { SessionPaths } from './paths.js';
import { release, type SessionState } from './session-state.js';

/** An append waiting for the write and fsync of its batch. */
export interface PendingAppend {
  readonly commit: AppendCommit;
  readonly resolve: (outcome: AppendOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/** One session's place in this process. */
export interface Slot {
  readonly paths: SessionPaths;
  state: SessionState | undefined;
  /** The session's operations run one after another: `tail` is the last queued, `busy` counts those not done. */
  tail: Promise<unknown>;
  busy: number;
  /** Appends waiting for the next batch, and whether a batch is queued to take them. */
  pending: PendingAppend[];
  batchQueued: boolean;
  folding: boolean;
  /** The inter-process lock while this process holds it, since when, and the idle release scheduled. */
  lease: HeldLock | undefined;
  leaseSince: number;
  idleRelease: NodeJS.Timeout | undefined;
  /** After a capped lease, when this process may take the lock again. */
  yieldUntil: number;
  /** Counts leases taken; `verified` is the lease under which `state` was last checked against the files. */
  leases: number;
  verified: number;
  /** The memory and open files of `state` as last counted in the store's totals. */
  countedBytes: number;
  countedFiles: number;
}

/** A slot for the session at `paths`, with nothing read yet. */
export function newSlot(paths: SessionPaths): Slot {
  return {
    paths,
    state: undefined,
    tail: Promise.resolve(),
    busy: 0,
    pending: [],
    batchQueued: false,
    folding: false,
    lease: undefined,
    leaseSince: 0,
    idleRelease: undefined,
    yieldUntil: 0,
    leases: 0,
    verified: -1,
    countedBytes: 0,
    countedFiles: 0,
  };
}

/** True when nothing of this process uses the slot: no operation, append, fold or lease. */
export function isIdle(slot: Slot): boolean {
  return slot.busy === 0 && slot.pending.length === 0 && !slot.batchQueued && !slot.folding && slot.lease === undefined;
}

/**
 * True when the state was checked against the files under the lease taken last (and is not a
 * backup's): while that lease is held, no other process can have written since.
 */
export function checkedUnderLease(slot: Slot): slot is Slot & { state: SessionState } {
  return slot.state !== undefined && slot.verified === slot.leases && !slot.state.fromBackup;
}

/** Drops a session's state, closing its files: the next operation reads them again. */
export function forgetState(slot: Slot): void {
  release(slot.state);
  slot.state = undefined;
}
