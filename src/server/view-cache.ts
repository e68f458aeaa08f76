/**
 * Computed views of a session (statistics, token timeline), kept by store view, session and
 * version: a page that opens a 100k-message session asks for both at once and again on every
 * visit, and each needs the whole history. Concurrent requests share one load of the session; a
 * computed view is kept (a few kilobytes) until the session's version changes or it ages out, or
 * its owner is forgotten (`forgetUser` on the same store view drops their views at once).
 * @module
 */
import { NotFoundError } from '../errors.js';
import { BoundedMap } from '../internal/bounded-map.js';
import type { Session } from '../session/session.js';
import { onUserForgotten } from '../store/forget.js';
import type { SessionStore } from '../store/session-store-types.js';

/** Computed views kept at most. */
const MAX_VIEWS = 64;

/** Caches the views computed from sessions. */
export class ViewCache {
  private readonly viewIds = new WeakMap<SessionStore, number>();
  private nextViewId = 1;
  private readonly loads = new Map<string, Promise<Session | undefined>>();
  // Least recently used out: a view read again stays. Each keeps its session's owner, so that a
  // forgotten user's views go with them (a session made again under the same id and version must
  // not be answered with the forgotten one's view).
  private readonly views = new BoundedMap<string, { readonly userId: string | undefined; readonly view: unknown }>({
    max: MAX_VIEWS,
    renew: 'use',
  });
  // Forgets seen, by store view: a view computed while one ran is not kept.
  private readonly forgets = new Map<number, number>();

  /**
   * View `kind` of session `id` as `store` (a tenant's view) sees it: from the cache when the
   * session's version is the one it was computed for, else `compute(session)`; `NOT_FOUND` when
   * there is no such session.
   */
  async view<T>(store: SessionStore, id: string, kind: string, compute: (session: Session) => T): Promise<T> {
    const owner = this.viewIdOf(store);
    const forgets = this.forgets.get(owner) ?? 0;
    const summary = await store.summary(id);
    if (summary === undefined) throw new NotFoundError(`No session ${id}`);
    const known = this.views.get(`${owner}\n${id}\n${summary.version}\n${kind}`);
    if (known !== undefined) return known.view as T;
    const session = await this.load(store, owner, id);
    if (session === undefined) throw new NotFoundError(`No session ${id}`);
    const computed = compute(session);
    if ((this.forgets.get(owner) ?? 0) === forgets)
      this.views.set(`${owner}\n${id}\n${session.version}\n${kind}`, { userId: session.userId, view: computed });
    return computed;
  }

  private viewIdOf(store: SessionStore): number {
    let id = this.viewIds.get(store);
    if (id === undefined) {
      const viewId = (id = this.nextViewId++);
      this.viewIds.set(store, viewId);
      // Called with the user id as this store view names it, as the views' owners are kept.
      onUserForgotten(store, (userId) => {
        this.forgets.set(viewId, (this.forgets.get(viewId) ?? 0) + 1);
        return this.views.deleteWhere((key, entry) => key.startsWith(`${viewId}\n`) && entry.userId === userId);
      });
    }
    return id;
  }

  /** One load of the session for every request that asks while it runs. */
  private load(store: SessionStore, owner: number, id: string): Promise<Session | undefined> {
    const key = `${owner}\n${id}`;
    let pending = this.loads.get(key);
    if (pending === undefined) {
      pending = store.get(id).finally(() => this.loads.delete(key));
      this.loads.set(key, pending);
    }
    return pending;
  }
}
