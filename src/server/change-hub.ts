/**
 * Wakes the event streams of a session when this server changes it, so they need not wait for
 * their next poll. Streams still poll the store by version: a change made by another server or
 * process reaches them within one poll interval.
 * @module
 */

/** Waiters by session key (the tenant and the session id). */
export class ChangeHub {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** The key of session `id` of `tenant` (`''` for a server without keys). */
  static key(tenant: string | undefined, id: string): string {
    return `${tenant ?? ''}\n${id}`;
  }

  /** Wakes every stream of `key`. */
  notify(key: string): void {
    const waiting = this.waiters.get(key);
    if (waiting === undefined) return;
    this.waiters.delete(key);
    for (const wake of waiting) wake();
  }

  /** Resolves at the next `notify(key)`, after `ms`, or when `signal` aborts, whichever comes first. */
  wait(key: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let waiting = this.waiters.get(key);
      if (waiting === undefined) this.waiters.set(key, (waiting = new Set()));
      const set = waiting;
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      set.add(done);
    });
  }
}
