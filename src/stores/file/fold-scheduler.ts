/**
 * When and how a session's journal is folded into a new snapshot: in the background, once the
 * journal holds `foldBytes` (or `FOLD_SNAPSHOT_SHARE` of the snapshot's size, if larger), by one
 * process at a time (a fold lock per session), with the session's lock held only at the start and
 * the end (see `session-fold.ts`).
 * @module
 */
import { unlinkIfPresent } from './fs-util.js';
import type { Leases } from './leases.js';
import { tryLock, unlock } from './lock.js';
import type { SessionCache } from './session-cache.js';
import { beginFold, finishFold, writeFold, type FoldPlan } from './session-fold.js';
import type { SessionReader } from './session-reader.js';
import type { SessionState } from './session-state.js';
import type { Slot } from './slot.js';
import { SnapshotDamage } from './snapshot-file.js';
import { FOLD_SNAPSHOT_SHARE, FOREIGN_STALE_MS } from './tuning.js';

/** The parts of the store folds work with. */
export interface FoldParts {
  readonly foldBytes: number;
  readonly cache: SessionCache;
  readonly leases: Leases;
  readonly reader: SessionReader;
  readonly isGone: (pid: number) => boolean;
  /** True once the store is closing: no new fold starts. */
  readonly isClosed: () => boolean;
}

/** The folds of one store. */
export class FoldScheduler {
  private readonly background = new Set<Promise<void>>();

  constructor(private readonly parts: FoldParts) {}

  /** Starts a background fold when the journal has grown past the threshold. */
  maybeFold(slot: Slot): void {
    const state = slot.state;
    if (state === undefined || slot.folding || this.parts.isClosed()) return;
    if (!this.due(state)) return;
    slot.folding = true;
    const task: Promise<void> = this.fold(slot)
      // A failed fold loses nothing (the journal still holds everything); the next append retries it.
      .catch(() => undefined)
      .finally(() => {
        slot.folding = false;
        this.background.delete(task);
      });
    this.background.add(task);
  }

  /** Resolves once the folds under way have finished. */
  async drained(): Promise<void> {
    await Promise.all([...this.background]);
  }

  /** True when the state's journal is large enough to fold. */
  private due(state: SessionState): boolean {
    return state.journalBytes >= Math.max(this.parts.foldBytes, state.snapshotBytes * FOLD_SNAPSHOT_SHARE);
  }

  private async fold(slot: Slot): Promise<void> {
    const { cache, leases, reader, isGone } = this.parts;
    // Let the acknowledgments of the batch that triggered the fold go out first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // One folder per session across processes; a held fold lock means someone else is on it.
    const foldLock = tryLock(slot.paths.foldLock, { foreignStaleMs: FOREIGN_STALE_MS });
    if (foldLock === undefined) return;
    let plan: FoldPlan | undefined;
    try {
      plan = await cache.run(slot, () =>
        leases.locked(slot, async () => {
          const result = await reader.readLocked(slot);
          if (result.kind !== 'ok' || !this.due(result.state)) return undefined;
          return beginFold(slot.paths, result.state);
        }),
      );
      if (plan === undefined) return;
      const started = plan;
      try {
        await writeFold(slot.paths, started);
      } catch (error) {
        if (!(error instanceof SnapshotDamage)) throw error;
        // The snapshot being folded is damaged (in a part no read had touched): repair it now,
        // from the backup under the lock, rather than let every later fold fail on it.
        await cache.run(slot, () => leases.locked(slot, () => reader.readLocked(slot, true)));
        return;
      }
      await cache.run(slot, () =>
        leases.locked(slot, async () => {
          const result = await reader.readLocked(slot);
          return finishFold(slot.paths, result.kind === 'ok' ? result.state : undefined, started, isGone);
        }),
      );
    } finally {
      // Installed snapshots were renamed away; anything left is a fold that did not finish.
      if (plan?.temporary !== undefined) unlinkIfPresent(slot.paths.fs, plan.temporary.file);
      unlock(foldLock);
    }
  }
}
