/**
 * Group commit, pipelined: appends to a session that arrive while an earlier batch holds it share
 * the next write and fsync, and the next batch is written while the callers of the last one are
 * answered. The high-water mark is written once per run of batches, after the answers.
 * @module
 */
import { noSessionError } from '../../store/driver-helpers.js';
import type { AppendCommit, AppendOutcome, TailCommit } from '../../store/driver-types.js';
import type { FlushPolicy } from './flush-policy.js';
import type { FoldScheduler } from './fold-scheduler.js';
import type { Leases } from './leases.js';
import type { SessionCache } from './session-cache.js';
import type { SessionReader } from './session-reader.js';
import { ensureIds, markDurable, positionOf } from './session-state.js';
import { applyAppends, applyTail, writeAppends } from './session-write.js';
import { forgetState, type PendingAppend, type Slot } from './slot.js';
import { BATCH_RUN_MS } from './tuning.js';

/** A batch of appends written to the journal, its fsync under way. */
interface Flight {
  readonly batch: PendingAppend[];
  outcomes: Array<AppendOutcome | Error>;
  /** Set when the write or the fsync failed: every append of the batch fails with it. */
  failure: unknown;
  synced: Promise<void>;
  /** Records the batch in the session's high-water mark, once its callers were answered (see `settle`). */
  marked?: () => void;
}

/**
 * Answers the callers of a batch (once: a settled batch is emptied), then moves the high-water
 * mark: a mark written after the answer can only lag behind what is durable, which is safe, and
 * its write stays off the appends' latency.
 */
function settle(flight: Flight): void {
  const batch = flight.batch.splice(0);
  batch.forEach((pending, index) => {
    const outcome = flight.failure === undefined ? flight.outcomes[index] : undefined;
    if (outcome === undefined) pending.reject(flight.failure);
    else if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  });
  const marked = flight.failure === undefined ? flight.marked : undefined;
  flight.marked = undefined;
  // After the callers' own continuations (queued first): the answer does not wait for the mark.
  if (marked !== undefined) queueMicrotask(marked);
}

/** The parts of the store a group commit works with. */
export interface GroupCommitParts {
  readonly store: string;
  readonly cache: SessionCache;
  readonly leases: Leases;
  readonly reader: SessionReader;
  readonly flushes: FlushPolicy;
  readonly folds: FoldScheduler;
}

/** The appends of one store. */
export class GroupCommit {
  constructor(private readonly parts: GroupCommitParts) {}

  /** Queues an append to the session of `slot`; it is answered once its batch is durable. */
  append(slot: Slot, commit: AppendCommit): Promise<AppendOutcome> {
    const { flushes } = this.parts;
    return new Promise<AppendOutcome>((resolve, reject) => {
      flushes.accept();
      slot.pending.push({
        commit,
        resolve: (outcome) => {
          flushes.answered();
          resolve(outcome);
        },
        reject: (error) => {
          flushes.answered();
          reject(error);
        },
      });
      // Appends that arrive while an earlier batch holds the session share the next write and fsync.
      if (!slot.batchQueued) {
        slot.batchQueued = true;
        void this.parts.cache.run(slot, () => this.commitBatch(slot));
      }
    });
  }

  /**
   * A tail replace (see `TailCommit`): after the appends queued before it, one journal record
   * under the session's lock, flushed as a batch of appends is: its cost is an append's, not a
   * rewrite's. The next fold takes the cut into the snapshot.
   */
  async replaceTail(slot: Slot, commit: TailCommit): Promise<void> {
    const { store, cache, leases, reader, flushes } = this.parts;
    flushes.accept();
    try {
      await cache.run(slot, () =>
        leases.locked(slot, async () => {
          const result = await reader.withState(
            slot,
            (state) => ({ state, bytes: applyTail(store, slot.paths.id, state, commit) }),
            { locked: true },
          );
          if (result.kind !== 'ok') throw noSessionError(store, slot.paths.id);
          const { state, bytes } = result.value;
          try {
            writeAppends(state, bytes);
            await flushes.flush(state, 1);
          } catch (error) {
            // Memory is ahead of the disk now: forget it, the next operation reads the files again.
            forgetState(slot);
            throw error;
          }
          markDurable(slot.paths, state, positionOf(state));
        }),
      );
    } finally {
      flushes.answered();
    }
    this.parts.folds.maybeFold(slot);
  }

  /**
   * The appends waiting for a session are written together and flushed with one fsync; when that
   * fsync returns, the appends that arrived meanwhile are written and their fsync started before
   * the first batch is acknowledged, so the disk works while callers prepare their next appends.
   * Runs until nothing waits, or for at most `BATCH_RUN_MS`.
   */
  private async commitBatch(slot: Slot): Promise<void> {
    const flights: Flight[] = [];
    try {
      await this.parts.leases.locked(slot, async () => {
        const started = Date.now();
        let current = await this.startFlight(slot, slot.pending.splice(0));
        flights.push(current);
        for (;;) {
          await current.synced;
          const more = current.failure === undefined && slot.pending.length > 0 && Date.now() - started < BATCH_RUN_MS;
          const next = more ? await this.startFlight(slot, slot.pending.splice(0)) : undefined;
          if (next !== undefined) flights.push(next);
          const done = flights.shift() as Flight;
          // A batch already follows: its mark will cover this one (one small write per run of batches).
          if (next !== undefined) done.marked = undefined;
          settle(done);
          if (next === undefined) return;
          current = next;
        }
      });
    } catch (error) {
      // The lock could not be taken (or a read failed): nothing of these batches was written.
      for (const flight of flights) flight.failure ??= error;
      if (flights.length === 0)
        flights.push({ batch: slot.pending.splice(0), outcomes: [], failure: error, synced: Promise.resolve() });
    } finally {
      for (const flight of flights) settle(flight);
      // Appends that came after the last batch of this run start the next run.
      if (slot.pending.length > 0) void this.parts.cache.run(slot, () => this.commitBatch(slot));
      else slot.batchQueued = false;
    }
    this.parts.folds.maybeFold(slot);
  }

  /** Writes one batch to the journal and starts its fsync (under the lock). */
  private async startFlight(slot: Slot, batch: PendingAppend[]): Promise<Flight> {
    const { store } = this.parts;
    const flight: Flight = { batch, outcomes: [], failure: undefined, synced: Promise.resolve() };
    const forget = (error: unknown): void => {
      flight.failure = error;
      // Memory is ahead of the disk now: forget it, the next operation reads the files again.
      forgetState(slot);
    };
    // Appends skip messages already stored: every id must be at hand (read once, then kept).
    const result = await this.parts.reader.withState(slot, (state) => (ensureIds(state), state), { locked: true });
    if (result.kind !== 'ok') {
      flight.outcomes = batch.map(() => noSessionError(store, slot.paths.id));
      return flight;
    }
    const state = result.value;
    const applied = applyAppends(
      store,
      slot.paths.id,
      state,
      batch.map((pending) => pending.commit),
    );
    flight.outcomes = applied.outcomes;
    // What this batch reaches, for the high-water mark once it is flushed (a later batch may be applied by then).
    const reached = { version: state.head.version, lastSeq: state.head.lastSeq };
    try {
      writeAppends(state, applied.bytes);
      flight.synced = this.parts.flushes.flush(state, batch.length).catch(forget);
      if (applied.bytes !== undefined) {
        flight.marked = () => {
          if (slot.state === state) markDurable(slot.paths, state, reached);
        };
      }
    } catch (error) {
      forget(error);
    }
    return flight;
  }
}
