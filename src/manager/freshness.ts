/**
 * How the `SessionManager`'s cache stays fresh when other processes (or other store objects)
 * write the same sessions: a clean cached session is served only once the manager knows the
 * store still holds that version.
 *
 * - `revalidate` (the default): every access to a clean cached session reads the store's head
 *   (`summary(id)`: one small read, no messages) and reloads the session when its version or
 *   creation time differ. Always correct, whoever wrote, at the cost of that head read.
 * - `feed`: the store's change feed (`store.changes`, which must hear every writer: Postgres,
 *   Redis, memory) marks the sessions other writers changed, and an unmarked session is served
 *   with no read at all. A change is known once its notification arrives (milliseconds after the
 *   other writer's commit): a read racing it may still see the version before. While the feed is
 *   not live, and after a `reset`, the cache falls back to reading heads.
 *
 * Dirty sessions (local changes not saved) are never revalidated: their save compares versions
 * and replays the changes on the newer copy, as before.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import type { ChangeEvent, ChangeFeed } from '../store/change-types.js';
import type { SessionStore } from '../store/session-store-types.js';

/** How the manager's cache learns that another writer changed a session (see the module). */
export type CacheFreshness = 'revalidate' | 'feed';

/** What the feed told about one session. */
interface Mark {
  /** Highest version a change was told with since the last delete. */
  version: number;
  /** Tick of the last delete told (0: none). */
  deletedAt: number;
  /** Version of the last delete told, while no change came after it (0: unknown or none). */
  deletedVersion: number;
}

/** Sessions whose marks are kept; past it the oldest go, and every entry is revalidated once. */
const MAX_MARKS = 10_000;

/** The cache's view of freshness: whether a clean entry may be served without a head read. */
export class Freshness {
  /** Counts the feed's events: an entry records the tick at which its version was last confirmed. */
  private tick = 0;
  /** Entries confirmed before this tick are revalidated (a reset, or marks forgotten). */
  private floor = 0;
  // Past MAX_MARKS the oldest mark goes, and with it what it told: every entry is confirmed again.
  private readonly marks = new BoundedMap<string, Mark>({
    max: MAX_MARKS,
    onEvict: () => {
      this.floor = this.tick;
    },
  });
  private readonly feed: ChangeFeed | undefined;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(
    store: SessionStore,
    readonly mode: CacheFreshness,
  ) {
    if (mode !== 'feed') return;
    const feed = store.changes;
    if (feed === undefined || feed.coverage !== 'all') {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `SessionManager: freshness 'feed' needs a store whose change feed hears every writer (store.changes.coverage 'all'); ${store.name}'s ${feed === undefined ? 'has no feed' : 'tells only its own writes'}: use 'revalidate'`,
      );
    }
    this.feed = feed;
    this.unsubscribe = feed.subscribe((event) => this.heard(event));
  }

  /** The tick to record on an entry whose version is being confirmed now. */
  now(): number {
    return this.tick;
  }

  /** True when a clean entry of `id` holding `version`, confirmed at tick `checkedAt`, may be served without reading the store. */
  trusted(id: string, version: number, checkedAt: number): boolean {
    if (this.feed === undefined || this.feed.state !== 'live' || checkedAt < this.floor) return false;
    const mark = this.marks.get(id);
    if (mark === undefined) return true;
    return mark.version <= version && mark.deletedAt <= checkedAt && !(mark.deletedVersion >= version);
  }

  /** Stops listening (the manager closes). */
  close(): void {
    this.unsubscribe?.();
  }

  private heard(event: ChangeEvent): void {
    this.tick += 1;
    if (event.type !== 'change') {
      // A gap (or an outage): anything may have changed, so every entry is confirmed again.
      this.floor = this.tick;
      return;
    }
    let mark = this.marks.get(event.id);
    if (mark === undefined) {
      mark = { version: 0, deletedAt: 0, deletedVersion: 0 };
      this.marks.set(event.id, mark);
    }
    if (event.kind === 'delete') {
      mark.version = 0;
      mark.deletedAt = this.tick;
      mark.deletedVersion = event.version > 0 ? event.version : 0;
    } else {
      mark.version = Math.max(mark.version, event.version);
      mark.deletedVersion = 0;
    }
  }
}
