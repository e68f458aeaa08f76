/**
 * Reading a session through its slot: without the lock when it can (the common case), under it
 * when the files need a repair, and not at all when the state in memory was checked under the
 * lease still held. The slot keeps what was read.
 * @module
 */
import type { RecoveryNote } from '../../store/driver-types.js';
import type { Leases } from './leases.js';
import type { FilesContext } from './session-dir.js';
import { refresh, type ReadResult } from './session-read.js';
import type { RepairOptions } from './session-repair.js';
import type { SessionState } from './session-state.js';
import { checkedUnderLease, forgetState, type Slot } from './slot.js';
import { SnapshotDamage, SnapshotGone } from './snapshot-file.js';
import { REPAIR_ATTEMPTS } from './tuning.js';

/** A read that found the session (with what `use` made of it), found nothing, or found it lost. */
export type StateResult<T> = { kind: 'ok'; value: T } | { kind: 'none' } | { kind: 'recovered'; note: RecoveryNote };

/** Reads sessions of one store into their slots. */
export class SessionReader {
  constructor(
    private readonly context: FilesContext,
    private readonly leases: Leases,
    private readonly repair: RepairOptions,
  ) {}

  /**
   * Reads under the lock, repairing what needs it; the slot keeps the result. `full` reads and
   * verifies every record of the snapshot (a repair of damage found in a part read later).
   */
  async readLocked(slot: Slot, full = false): Promise<ReadResult> {
    // Checked under this very lease: no other process can have written since.
    if (!full && checkedUnderLease(slot)) return { kind: 'ok', state: slot.state };
    if (full) forgetState(slot);
    const result = await refresh(this.context, slot.paths, slot.state, {
      locked: true,
      full,
      isGone: this.repair.isGone,
      report: this.repair.report,
    });
    slot.state = result.kind === 'ok' ? result.state : undefined;
    slot.verified = slot.leases;
    return result;
  }

  /** Reads without the lock when it can (the common case), with it when the files need a repair. */
  async read(slot: Slot, full = false): Promise<Exclude<ReadResult, { kind: 'escalate' }>> {
    const result = await refresh(this.context, slot.paths, slot.state, {
      locked: false,
      full,
      isGone: this.repair.isGone,
      report: this.repair.report,
    });
    slot.state = result.kind === 'ok' ? result.state : undefined;
    if (result.kind !== 'escalate') return result;
    const repaired = await this.leases.locked(slot, () => this.readLocked(slot));
    if (repaired.kind === 'escalate') throw new Error(`${this.context.store}: a locked read cannot escalate`);
    return repaired;
  }

  /**
   * Reads the session (`full`: with every record) and runs `use` on its state, which may read
   * more of the snapshot. Damage found in a part read later is repaired under the lock (from the
   * backup, like damage found when opening) and `use` runs again; a snapshot replaced while its
   * descriptor was closed is simply read again. `locked`: the caller holds the lock already.
   */
  async withState<T>(
    slot: Slot,
    use: (state: SessionState) => T,
    options: { full?: boolean; locked?: boolean } = {},
  ): Promise<StateResult<T>> {
    let repair = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result =
          options.locked === true
            ? await this.readLocked(slot, repair)
            : repair
              ? await this.leases.locked(slot, () => this.readLocked(slot, true))
              : await this.read(slot, options.full);
        if (result.kind === 'escalate') throw new Error(`${this.context.store}: a locked read cannot escalate`);
        if (result.kind !== 'ok') return result;
        return { kind: 'ok', value: use(result.state) };
      } catch (error) {
        if (attempt >= REPAIR_ATTEMPTS || !(error instanceof SnapshotDamage || error instanceof SnapshotGone))
          throw error;
        forgetState(slot);
        if (error instanceof SnapshotDamage) repair = true;
      }
    }
  }
}
