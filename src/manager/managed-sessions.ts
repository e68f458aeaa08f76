/**
 * The cache under the `SessionManager`: an LRU of sessions with dirty tracking, and the two ways
 * a cached session reaches the store — appends (durable at once) and saves of local changes
 * (compare-and-replace on the stored version, replayed on a newer copy after a `CONFLICT`).
 * @module
 */
import { ChatstateError, ConflictError, InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';
import { Session } from '../session/session.js';
import { noticesOf } from '../store/recovery.js';
import type { AppendResult, RecoveryNotice, SessionStore } from '../store/session-store-types.js';
import type { ManagerErrorContext, SaveReason } from './events.js';
import type { Freshness } from './freshness.js';
import { KeyedLock } from '../internal/keyed-lock.js';

/**
 * A local change: a pure function from a session to its changed version. It may run again, on a
 * newer stored copy, when a save meets a `CONFLICT`.
 */
export type SessionUpdater = (session: Session) => Session | Promise<Session>;

/** A cached session. */
export interface Entry {
  /** The manager's view: the stored session plus local changes. */
  session: Session;
  /** The version the store holds: the `expectedVersion` of the next write. */
  storedVersion: number;
  /** Local changes not stored yet, in order; empty when the entry is clean. */
  pending: SessionUpdater[];
  /** When the store was last known to hold `storedVersion` (a tick of `Freshness`). */
  checkedAt: number;
}

/** What the cache tells its owner. */
export interface ManagedSessionsHooks {
  /** A session was written whole. */
  saved(session: Session, reason: SaveReason): void;
  /** A session loaded into the cache is a recovery session. */
  recovered(session: Session, recoveredFrom: JsonValue | undefined, notices: readonly RecoveryNotice[]): void;
  /** Work nobody awaits failed. */
  failed(error: unknown, context: ManagerErrorContext): void;
}

/** Rounds of reload-and-replay a save tries when other writers keep changing the session. */
const MAX_REBASES = 3;

function cleanEntry(session: Session, checkedAt: number): Entry {
  return { session, storedVersion: session.version, pending: [], checkedAt };
}

/** Checks what an updater returned: a `Session` of the same id. */
export function checkUpdated(value: unknown, id: string): Session {
  if (!Session.is(value) || value.id !== id) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `SessionManager: an update of ${JSON.stringify(id)} must return a Session with the same id`,
    );
  }
  return value;
}

/** An LRU of sessions over a store. Methods that take an `Entry` expect the caller to hold its id's lock. */
export class ManagedSessions {
  /** One lock per session id: operations on one session never interleave. */
  readonly locks = new KeyedLock();
  /** Insertion order is recency: the first entry is the least recently used. */
  private readonly cache = new Map<string, Entry>();
  private readonly evicting = new Set<string>();

  constructor(
    private readonly store: SessionStore,
    private readonly limit: number,
    private readonly hooks: ManagedSessionsHooks,
    private readonly freshness: Freshness,
  ) {}

  /** A clean entry of what the store holds now (confirmed at `checkedAt`, by default now). */
  private clean(session: Session, checkedAt = this.freshness.now()): Entry {
    return cleanEntry(session, checkedAt);
  }

  /**
   * True when cached `entry` may be served: dirty (its save compares versions), trusted by the
   * change feed, or confirmed now by the store's head (same version, same creation: a session
   * deleted and created again may reach the same version). A stale or deleted one leaves the cache.
   */
  private async fresh(entry: Entry): Promise<boolean> {
    const id = entry.session.id;
    if (entry.pending.length > 0 || this.freshness.trusted(id, entry.storedVersion, entry.checkedAt)) return true;
    const checkedAt = this.freshness.now();
    const head = typeof this.store.summary === 'function' ? await this.store.summary(id) : await this.store.get(id);
    if (head !== undefined && head.version === entry.storedVersion && head.createdAt === entry.session.createdAt) {
      entry.checkedAt = checkedAt;
      return true;
    }
    this.forget(entry);
    return false;
  }

  /** Cached ids, least recently used first. */
  get ids(): string[] {
    return [...this.cache.keys()];
  }

  /** Ids of cached sessions with local changes. */
  dirtyIds(): string[] {
    return [...this.cache].filter(([, entry]) => entry.pending.length > 0).map(([id]) => id);
  }

  /** True when `id` is cached with local changes. */
  isDirty(id: string): boolean {
    return (this.cache.get(id)?.pending.length ?? 0) > 0;
  }

  /** Caches a session just stored (clean, most recently used). */
  adopt(session: Session): void {
    this.cache.delete(session.id);
    this.cache.set(session.id, this.clean(session));
  }

  /** The owner of cached session `id` (`undefined` when it has none or is not cached), without touching the LRU order. */
  ownerOf(id: string): string | undefined {
    return this.cache.get(id)?.session.userId;
  }

  /** Drops a cached session, local changes included. */
  drop(id: string): void {
    this.cache.delete(id);
  }

  /** Forgets every cached session (after `close` has saved them). */
  clear(): void {
    this.cache.clear();
  }

  /** The cached entry (now most recently used), or the stored session loaded into the cache; `NOT_FOUND`. */
  async entryOf(id: string): Promise<Entry> {
    const cached = this.cache.get(id);
    if (cached !== undefined && (await this.fresh(cached))) {
      this.cache.delete(id);
      this.cache.set(id, cached);
      return cached;
    }
    const checkedAt = this.freshness.now();
    const session = await this.store.load(id);
    const entry = this.clean(session, checkedAt);
    this.cache.set(id, entry);
    const recoveredFrom = session.metadata.recoveredFrom;
    const notices = noticesOf(session.metadata);
    if (recoveredFrom !== undefined || notices.length > 0) this.hooks.recovered(session, recoveredFrom, notices);
    return entry;
  }

  /** The manager's view of `id` without caching it (a chain is walked without flooding the cache). */
  async view(id: string): Promise<Session | undefined> {
    const cached = this.cache.get(id);
    if (cached !== undefined && (await this.fresh(cached))) return cached.session;
    return this.store.get(id);
  }

  /** Records a local change made by `updater`, which turned the entry's session into `next`. */
  change(entry: Entry, next: Session, updater: SessionUpdater): void {
    if (next === entry.session) return;
    entry.session = next;
    entry.pending.push(updater);
  }

  /**
   * Writes `local` (by default the entry's view) against the stored version. On `CONFLICT` the
   * local changes are replayed on the newer stored copy and written again (a few rounds at most),
   * so whatever the other writer stored stays. The entry changes only when the write succeeds, or when the changes no
   * longer apply (then it takes the stored copy and the `CONFLICT` says they were dropped).
   */
  async persist(
    entry: Entry,
    reason: SaveReason,
    local: { readonly session: Session; readonly pending: readonly SessionUpdater[] } = entry,
  ): Promise<Session> {
    const id = entry.session.id;
    let attempt = { session: local.session, expectedVersion: entry.storedVersion };
    let stored: Session | undefined;
    for (let rebases = 0; stored === undefined; rebases++) {
      try {
        stored = await this.store.save(attempt.session, { expectedVersion: attempt.expectedVersion });
      } catch (error) {
        // Past a few rounds the session is too busy: the changes stay local, and the next save tries again.
        if (!ChatstateError.hasCode(error, 'CONFLICT') || rebases >= MAX_REBASES) throw error;
        const fresh = await this.reload(entry);
        try {
          attempt = { session: await replay(fresh, local.pending), expectedVersion: fresh.version };
        } catch (replayError) {
          Object.assign(entry, this.clean(fresh));
          throw new ConflictError(
            `SessionManager: local changes of ${JSON.stringify(id)} do not apply to its newer stored version and were dropped`,
            {
              cause: replayError,
              details: { id, version: fresh.version },
            },
          );
        }
      }
    }
    Object.assign(entry, this.clean(stored));
    this.hooks.saved(stored, reason);
    return stored;
  }

  /**
   * Writes a session value given by the caller. It must be newer than the managed copy: every
   * change bumps `version`, so a value that is not was derived from an older copy, and writing it
   * would drop what happened since (an append, an update). Call under the value's id's lock.
   */
  async saveValue(value: Session): Promise<Session> {
    const id = value.id;
    let entry = this.cache.get(id);
    if (entry === undefined) {
      const stored = await this.store.get(id);
      if (stored !== undefined) {
        entry = this.clean(stored);
        this.cache.set(id, entry);
      }
    }
    if (entry !== undefined && value === entry.session)
      return entry.pending.length > 0 ? this.persist(entry, 'save') : entry.session;
    if (entry !== undefined && value.version <= entry.session.version) {
      throw new ConflictError(
        `SessionManager: this value of ${JSON.stringify(id)} (version ${value.version}) is older than the managed copy (version ${entry.session.version}); use update()`,
        { details: { id, version: value.version, managedVersion: entry.session.version } },
      );
    }
    const saved = await this.store.save(value, { expectedVersion: entry?.storedVersion ?? 0 });
    this.adopt(saved);
    this.hooks.saved(saved, 'save');
    return saved;
  }

  /**
   * Appends through the store (atomic, durable, idempotent) and updates the entry. The first try
   * names the cached version, so that a success means the cache is exactly the store plus these
   * messages; after a `CONFLICT` it reloads, retries once, and replays the local changes on the
   * newer copy.
   */
  async append(entry: Entry, messages: readonly Message[]): Promise<AppendResult> {
    const id = entry.session.id;
    try {
      const outcome = await this.store.append(id, messages, { expectedVersion: entry.storedVersion });
      if (entry.pending.length === 0) {
        entry.session = await this.storedAfterAppend(entry.session, outcome);
      } else if (outcome.appended.length > 0) {
        entry.session = entry.session.append(...outcome.appended);
      }
      entry.storedVersion = outcome.version;
      return outcome;
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) this.forget(entry);
      if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
    }
    // Another writer got there first: reload and retry once. The retry names no version: an append
    // does not depend on what is stored (it is idempotent by message id), and two writers' appends
    // must both land, however often they race.
    const fresh = await this.reload(entry);
    const outcome = await this.store.append(id, messages);
    const base = await this.storedAfterAppend(fresh, outcome);
    try {
      entry.session = await replay(base, entry.pending);
      entry.storedVersion = base.version;
    } catch (error) {
      // The append landed; only the local changes were lost to the other writer's.
      Object.assign(entry, this.clean(base));
      this.hooks.failed(error, { operation: 'rebase', sessionId: id });
    }
    return outcome;
  }

  /** Saves every dirty session; throws the failure (an `AggregateError` for several) after trying them all. */
  async flush(reason: SaveReason): Promise<void> {
    const results = await Promise.allSettled(this.dirtyIds().map((id) => this.saveIfDirty(id, reason)));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1)
      throw new AggregateError(failures, `SessionManager: ${failures.length} sessions could not be saved`);
  }

  /** Takes `id`'s lock and saves its local changes, if it still has some. */
  async saveIfDirty(id: string, reason: SaveReason): Promise<void> {
    await this.locks.run(id, async () => {
      const entry = this.cache.get(id);
      if (entry !== undefined && entry.pending.length > 0) await this.persist(entry, reason);
    });
  }

  /**
   * Drops the least recently used sessions beyond the limit, saving dirty ones first. A session
   * whose save fails stays cached (over the limit) and the failure is reported: nothing is lost.
   * Call without holding any lock.
   */
  async evictOverflow(): Promise<void> {
    const failed = new Set<string>();
    while (this.cache.size > this.limit) {
      let victim: string | undefined;
      for (const id of this.cache.keys()) {
        // A session in use is not idle: it will be touched again, so the next idle one goes instead.
        if (!failed.has(id) && !this.evicting.has(id) && !this.locks.isHeld(id)) {
          victim = id;
          break;
        }
      }
      if (victim === undefined) return;
      const id = victim;
      this.evicting.add(id);
      try {
        await this.locks.run(id, async () => {
          const entry = this.cache.get(id);
          if (entry === undefined || this.cache.size <= this.limit) return;
          if (entry.pending.length > 0) await this.persist(entry, 'evict');
          this.forget(entry);
        });
      } catch (error) {
        failed.add(id);
        this.hooks.failed(error, { operation: 'evict', sessionId: id });
      } finally {
        this.evicting.delete(id);
      }
    }
  }

  private forget(entry: Entry): void {
    const id = entry.session.id;
    if (this.cache.get(id) === entry) this.cache.delete(id);
  }

  /** The stored copy; a session deleted meanwhile leaves the cache too. */
  private async reload(entry: Entry): Promise<Session> {
    try {
      return await this.store.load(entry.session.id);
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) this.forget(entry);
      throw error;
    }
  }

  /** `base` (a clean stored copy) after `outcome`, without reading the store when the versions line up. */
  private async storedAfterAppend(base: Session, outcome: AppendResult): Promise<Session> {
    if (outcome.appended.length === 0 && outcome.version === base.version) return base;
    const next = base.append(...outcome.appended);
    // A store that numbers versions its own way: take its word rather than guess.
    return next.version === outcome.version ? next : this.store.load(base.id);
  }
}

async function replay(base: Session, pending: readonly SessionUpdater[]): Promise<Session> {
  let session = base;
  for (const updater of pending) session = checkUpdated(await updater(session), base.id);
  return session;
}
