/**
 * The sessions a file store keeps in memory between calls, least recently used first, and the
 * queue that runs each session's operations in order. The cache keeps memory within `cacheBytes`
 * (and `MAX_SLOTS` sessions) and open files within `maxOpenFiles`, counted after each operation.
 * @module
 */
import type { StorePaths } from './paths.js';
import { memoryOf, openFiles, release, unload } from './session-state.js';
import { isIdle, newSlot, type Slot } from './slot.js';
import { MAX_SLOTS } from './tuning.js';

/** How much the cache may hold. */
export interface CacheLimits {
  readonly cacheBytes: number;
  readonly maxOpenFiles: number;
}

/** The sessions of one store in this process. */
export class SessionCache {
  private readonly slots = new Map<string, Slot>();
  /** Memory and open files of the sessions in memory (see `account`). */
  private cachedBytes = 0;
  private openCount = 0;

  constructor(
    private readonly paths: StorePaths,
    private readonly limits: CacheLimits,
  ) {}

  /** The slot of `id`, now the most recently used (the id is validated again here: the driver may be used without the core). */
  slot(id: string): Slot {
    let slot = this.slots.get(id);
    if (slot === undefined) slot = newSlot(this.paths.session(id));
    else this.slots.delete(id);
    // Map order is the least-recently-used order of the cache.
    this.slots.set(id, slot);
    return slot;
  }

  /** Runs `operation` after the session's earlier operations (in this process). */
  run<T>(slot: Slot, operation: () => Promise<T>): Promise<T> {
    slot.busy += 1;
    const result = slot.tail.then(operation);
    slot.tail = result.then(
      () => this.done(slot),
      () => this.done(slot),
    );
    return result;
  }

  /** Resolves once every operation queued so far has finished. */
  async drained(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => slot.tail));
  }

  /** Forgets every session, after `each` let go of what it holds. */
  clear(each: (slot: Slot) => void): void {
    for (const slot of this.slots.values()) each(slot);
    this.slots.clear();
    this.cachedBytes = 0;
    this.openCount = 0;
  }

  /** Forgets the slot of `id` (a removed session's) when nothing uses it any more; true when it was dropped. */
  drop(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined || !isIdle(slot)) return false;
    release(slot.state);
    slot.state = undefined;
    this.account(slot);
    this.slots.delete(id);
    return true;
  }

  private done(slot: Slot): void {
    slot.busy -= 1;
    this.account(slot);
    this.trim();
  }

  /** Brings the store's totals up to date with a slot's state (states change only in operations and `trim`). */
  private account(slot: Slot): void {
    const bytes = slot.state === undefined ? 0 : memoryOf(slot.state);
    const files = slot.state === undefined ? 0 : openFiles(slot.state);
    this.cachedBytes += bytes - slot.countedBytes;
    this.openCount += files - slot.countedFiles;
    slot.countedBytes = bytes;
    slot.countedFiles = files;
  }

  /**
   * Keeps memory within `cacheBytes` (and `MAX_SLOTS`) and open files within `maxOpenFiles`,
   * least recently used sessions first: their snapshot's records are dropped first (the session
   * stays open: its head, block index and journal records, enough for appends and tail reads),
   * then whole sessions; beyond the file limit, files are closed (opened again by name when used).
   */
  private trim(): void {
    const { cacheBytes, maxOpenFiles } = this.limits;
    if (this.cachedBytes <= cacheBytes && this.openCount <= maxOpenFiles && this.slots.size <= MAX_SLOTS) return;
    for (const slot of this.slots.values()) {
      if (this.cachedBytes <= cacheBytes) break;
      if (slot.state === undefined || !isIdle(slot)) continue;
      unload(slot.state);
      this.account(slot);
    }
    for (const [id, slot] of this.slots) {
      const evict = this.cachedBytes > cacheBytes || this.slots.size > MAX_SLOTS;
      if (!evict && this.openCount <= maxOpenFiles) break;
      if (!isIdle(slot)) continue;
      // Kept or not, its files are opened again by name when the session is used again.
      release(slot.state);
      if (evict) {
        slot.state = undefined;
        this.slots.delete(id);
      }
      this.account(slot);
    }
  }
}
