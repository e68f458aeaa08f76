/**
 * Where a journal flush runs. A lone append on a fast disk flushes on the event loop's own thread:
 * the thread-pool round trip would cost as much as the flush (see `BLOCKING_FLUSH_MAX_MS`). Slower
 * disks, and any concurrency, flush on the thread pool, so that flushes of several sessions
 * overlap and other work goes on meanwhile.
 * @module
 */
import type { SessionState } from './session-state.js';
import { flushAppends } from './session-write.js';
import { BLOCKING_FLUSH_MAX_MS, CONCURRENT_HOLD_MS, FLUSH_TIME_WEIGHT } from './tuning.js';

/** The flushes of one store, and what decides where the next one runs. */
export class FlushPolicy {
  /** Appends accepted and not yet answered, flushes running, and how long flushes take lately (moving average). */
  private accepted = 0;
  private flushing = 0;
  private flushMs = 0;
  /** Until when flushes go to the thread pool (appends overlapped lately). */
  private concurrentUntil = 0;

  /** Counts an append accepted; `answered` once its caller has its answer. */
  accept(): void {
    this.accepted += 1;
  }

  /** Counts an append answered (see `accept`). */
  answered(): void {
    this.accepted -= 1;
  }

  /**
   * Flushes a journal after a batch of `size` appends was written: on this thread when nothing
   * else of the store waits and its sessions are not being written concurrently, on the thread
   * pool otherwise.
   */
  async flush(state: SessionState, size: number): Promise<void> {
    const started = performance.now();
    // Appends overlapping now: several writers are at work. Their flushes stay on the thread pool
    // for a while, so that writers resumed one by one by flushes do not fall into taking turns on
    // this thread, where their flushes would never overlap. One writer going from session to
    // session never overlaps with itself, and keeps flushing here.
    if (this.flushing > 0 || this.accepted > size) this.concurrentUntil = started + CONCURRENT_HOLD_MS;
    const blocking = started >= this.concurrentUntil && this.flushMs <= BLOCKING_FLUSH_MAX_MS;
    this.flushing += 1;
    try {
      await flushAppends(state, blocking);
    } finally {
      this.flushing -= 1;
      this.flushMs = this.flushMs * (1 - FLUSH_TIME_WEIGHT) + (performance.now() - started) * FLUSH_TIME_WEIGHT;
    }
  }
}
