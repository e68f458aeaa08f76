/**
 * Leases on sessions' inter-process write locks. A lock is kept across operations that follow
 * each other closely: taking and releasing it are two directory changes, and under a lease the
 * files need no new check (no other process can have written). A lease is given up once its
 * session has been idle for `LEASE_IDLE_MS`, and after `LEASE_MS` of continuous use as soon as
 * another process waits for it (the waiter leaves a marker), followed by a short pause
 * (`YIELD_MS`) so that the waiter gets its turn. At most `MAX_IDLE_LEASES` are kept while idle.
 * @module
 */
import { nodeFileSystem } from './file-system.js';
import { ensureDirectory } from './fs-util.js';
import { hasWaiters, lock, retainLockOwner, unlock } from './lock.js';
import type { StorePaths } from './paths.js';
import type { Slot } from './slot.js';
import { FOREIGN_STALE_MS, LEASE_IDLE_MS, LEASE_MS, MAX_IDLE_LEASES, YIELD_MS } from './tuning.js';

/** What the leases of one store need to know. */
export interface LeaseOptions {
  /** Store name, for error messages. */
  readonly store: string;
  readonly lockTimeoutMs: number;
  /** True once the store is closing: no lock owner file is retained any more. */
  readonly isClosed: () => boolean;
}

/** The leases one store holds. */
export class Leases {
  /** Slots whose lease is kept while idle, least recently used first. */
  private readonly idle = new Set<Slot>();
  /** Gives up the lock owner file this store keeps (see `retainLockOwner`). */
  private releaseOwner: (() => void) | undefined;
  private ownerRetained = false;

  constructor(
    private readonly paths: StorePaths,
    private readonly options: LeaseOptions,
  ) {}

  /** Runs `operation` holding the session's inter-process write lock, taking a lease on it if none is held. */
  async locked<T>(slot: Slot, operation: () => Promise<T>): Promise<T> {
    if (slot.idleRelease !== undefined) {
      clearTimeout(slot.idleRelease);
      slot.idleRelease = undefined;
    }
    this.idle.delete(slot);
    if (slot.lease === undefined) {
      const wait = slot.yieldUntil - Date.now();
      if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait));
      // With links to a kept owner file, a missing locks directory is made again where the link fails.
      if (this.releaseOwner === undefined) ensureDirectory(nodeFileSystem, this.paths.locks);
      slot.lease = await lock(slot.paths.writeLock, {
        timeoutMs: this.options.lockTimeoutMs,
        foreignStaleMs: FOREIGN_STALE_MS,
        store: this.options.store,
      });
      slot.leaseSince = Date.now();
      slot.leases += 1;
      // From now on a lock is a link to an owner file kept for the store's life: no file is created per lock.
      if (!this.ownerRetained && !this.options.isClosed()) {
        this.ownerRetained = true;
        this.releaseOwner = retainLockOwner(this.paths.locks);
      }
    }
    try {
      return await operation();
    } finally {
      if (Date.now() - slot.leaseSince >= LEASE_MS) {
        if (hasWaiters(slot.paths.writeLock, { foreignStaleMs: FOREIGN_STALE_MS })) {
          // Another process waits: let go, and pause a moment so that it gets the lock.
          this.release(slot);
          slot.yieldUntil = Date.now() + YIELD_MS;
        } else {
          slot.leaseSince = Date.now();
        }
      }
      if (slot.lease !== undefined) {
        slot.idleRelease = setTimeout(() => {
          slot.idleRelease = undefined;
          this.release(slot);
        }, LEASE_IDLE_MS);
        this.idle.add(slot);
        for (const oldest of this.idle) {
          if (this.idle.size <= MAX_IDLE_LEASES) break;
          this.release(oldest);
        }
      }
    }
  }

  /** Gives up the slot's lease now, if it holds one. */
  release(slot: Slot): void {
    this.idle.delete(slot);
    if (slot.idleRelease !== undefined) {
      clearTimeout(slot.idleRelease);
      slot.idleRelease = undefined;
    }
    if (slot.lease === undefined) return;
    const lease = slot.lease;
    slot.lease = undefined;
    unlock(lease);
  }

  /** Gives up the lock owner file (once every lease was released). */
  close(): void {
    this.releaseOwner?.();
    this.releaseOwner = undefined;
  }
}
