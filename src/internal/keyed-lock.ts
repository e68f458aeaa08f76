/**
 * A lock per key, in this process: work on one key (a session, a recall partition, a lock file)
 * runs one piece after another, work on different keys concurrently; a key holds memory only while
 * work on it is queued or running.
 * @module
 */

/** Serializes async work by key. Never nest two locks unless the inner key is brand new (no deadlock). */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** True while some work on `key` is queued or running. */
  isHeld(key: string): boolean {
    return this.tails.has(key);
  }

  /** Runs `work` once every earlier work on `key` has finished; its result or error is returned as is. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    // `previous` never rejects: it only waits for the `done` of the work before it.
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
