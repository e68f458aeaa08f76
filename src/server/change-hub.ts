/**
 * Wakes the event streams of a session when it changes. The store's change feed drives it: this
 * server's own writes, and — for a store whose feed hears every writer (Postgres, Redis) — the
 * writes of every other server and process, as they commit. A `reset` or an interruption of the
 * feed wakes every stream, which then reads its session's version again. Streams over a store
 * without such a feed also poll (see `routes/events.ts`).
 * @module
 */
import type { ChangeFeed } from '../store/change-types.js';
import { TenantNames } from '../tenancy/names.js';
import type { LogLine } from './request-log.js';

/** One stream's watch of its session: a change since the last `wait` is never lost. */
export interface ChangeWatch {
  /** Resolves at once when the session changed since the last call, else at the next change, after `ms`, or when `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /** Stops watching. */
  close(): void;
}

class Watcher implements ChangeWatch {
  private changed = false;
  private wake: (() => void) | undefined;

  constructor(private readonly forget: (watcher: Watcher) => void) {}

  poke(): void {
    this.changed = true;
    this.wake?.();
  }

  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (!this.changed && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done);
        this.wake = done;
      });
    }
    this.changed = false;
  }

  close(): void {
    this.wake?.();
    this.forget(this);
  }
}

/** Watchers by the session's id in the store. */
export class ChangeHub {
  private readonly watchers = new Map<string, Set<Watcher>>();

  /** The store's id of session `id` of `tenant` (`undefined` for a server without keys): what the store's feed names. */
  static key(tenant: string | undefined, id: string): string {
    return tenant === undefined ? id : new TenantNames(tenant).sessionId(id);
  }

  /** Wakes every stream of the session stored as `key`. */
  notify(key: string): void {
    for (const watcher of this.watchers.get(key) ?? []) watcher.poke();
  }

  /** Wakes every stream (the feed may have missed changes). */
  notifyAll(): void {
    for (const set of this.watchers.values()) for (const watcher of set) watcher.poke();
  }

  /** Starts watching the session stored as `key`; `close` the watch when the stream ends. */
  watch(key: string): ChangeWatch {
    let set = this.watchers.get(key);
    if (set === undefined) this.watchers.set(key, (set = new Set()));
    const watchers = set;
    const watcher = new Watcher((gone) => {
      watchers.delete(gone);
      if (watchers.size === 0 && this.watchers.get(key) === watchers) this.watchers.delete(key);
    });
    watchers.add(watcher);
    return watcher;
  }
}

/**
 * Wakes `hub` on `feed` until `closing` aborts: a change wakes its session's streams; a reset or an
 * interruption (changes may have been missed) wakes them all to read their versions again, and is
 * logged. Returns the feed it follows, or `undefined` when there is none to follow (no feed, or a
 * closed store, whose every route answers `CLOSED` anyway): streams then poll.
 */
export function followChanges(
  hub: ChangeHub,
  feed: ChangeFeed | undefined,
  closing: AbortSignal,
  log: (line: LogLine) => void,
): ChangeFeed | undefined {
  if (feed === undefined || closing.aborted) return undefined;
  let stop: () => void;
  try {
    stop = feed.subscribe((event) => {
      if (event.type === 'change') {
        hub.notify(event.id);
        return;
      }
      hub.notifyAll();
      // Visible to the operator: while interrupted, streams fall back to polling the store.
      if (event.type === 'interrupted')
        log({ level: 'warn', message: `change feed interrupted: ${event.error.message}`, code: event.error.code });
      else log({ level: 'info', message: 'change feed listening again: every event stream reads its session again' });
    });
  } catch {
    return undefined;
  }
  closing.addEventListener('abort', stop, { once: true });
  return feed;
}
