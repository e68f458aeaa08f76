/**
 * `tenantStore`: one tenant's view of a shared store, optionally narrowed to one of its users.
 * Isolation lives here, once, instead of in each route of a server. The view is the store under
 * other names: each call is forwarded to the store, which keeps every rule of its own (validation,
 * versions, expiry), with what goes in and what comes out mapped by `TenantMapping`. The view adds
 * only what a namespace needs: a bound user's checks, and a purge that stays inside the tenant.
 * @module
 */
import { ForbiddenError } from '../errors.js';
import { Session } from '../session/session.js';
import { sessionJsonBytes, sessionJsonParts, sessionText } from '../store/codec.js';
import { closedError, noSessionError } from '../store/driver-helpers.js';
import { receiptOf, runForgetHooks } from '../store/forget.js';
import { marksByListing } from '../store/marks.js';
import type { Message } from '../message/message.js';
import { checkMessageRefs, readEachAt } from '../store/message-refs.js';
import type { MessageRef, ReplaceTailInput, SessionStore, ValueOwner } from '../store/session-store-types.js';
import { TenantChangeFeed } from './tenant-changes.js';
import { TenantMapping, type TenantScope } from './tenant-mapping.js';
import { purgeTenant } from './tenant-purge.js';

export type { TenantScope } from './tenant-mapping.js';

/** The store's members whose first argument is a session id: the ones `forward` passes on. */
type ById = 'get' | 'summary' | 'append' | 'readMessages' | 'delete';
type RestOf<K extends ById> = SessionStore[K] extends (id: string, ...rest: infer R) => unknown ? R : never;
type ResultOf<K extends ById> = Awaited<ReturnType<SessionStore[K]>>;

/** One tenant's view of `store` (optionally one user's): ids, owners, lists, values and search stay inside it. */
export function tenantStore(store: SessionStore, scope: TenantScope): SessionStore {
  const map = new TenantMapping(scope, store.name);
  let closed = false;
  const checkOpen = (): void => {
    if (closed) throw closedError(store.name);
  };
  // A call begun before `close` finishes (as the store's own do): the view is checked open once, on entry.
  const open =
    <A extends unknown[], T>(call: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      checkOpen();
      return call(...args);
    };
  // Every call about one session: the id in the store's names, the store's errors told with the tenant's.
  const forward = async <K extends ById>(method: K, id: string, ...rest: RestOf<K>): Promise<ResultOf<K>> => {
    const stored = map.names.sessionId(id);
    const call = store[method] as unknown as (id: string, ...rest: RestOf<K>) => Promise<ResultOf<K>>;
    try {
      return await call.call(store, stored, ...rest);
    } catch (error) {
      throw map.errorOut(error, stored, id);
    }
  };
  const get = async (id: string) => map.sessionOut(await forward('get', id));
  const summary = async (id: string) => map.summaryOut(await forward('summary', id));
  // What a bound view does not see (another user's session) reads as absent.
  const mustSee = async (id: string): Promise<void> => {
    if (map.boundUser !== undefined && (await summary(id)) === undefined) throw noSessionError(store.name, id);
  };
  const owner = open(async (owner: ValueOwner, access: 'read' | 'write'): Promise<ValueOwner> => {
    if (owner?.scope === 'session') await mustSee(owner.sessionId);
    return map.ownerIn(owner, access);
  });
  const search = store.searchText;
  const replaceTail = store.replaceTail?.bind(store);
  const storeMarks = store.marks?.bind(store);
  const storeReadAt = store.readMessagesAt?.bind(store);

  const view: SessionStore = {
    // The store's own name: its errors, which the view passes on, name it.
    name: store.name,
    get: open(get),
    summary: open(summary),
    load: open(async (id) => {
      const session = await get(id);
      if (session === undefined) throw noSessionError(store.name, id);
      return session;
    }),
    // The text is rebuilt from the session: its names must be the tenant's, and only parsing knows where they are.
    getJson: open(async (id) => {
      const session = await get(id);
      return session === undefined ? undefined : sessionText(session);
    }),
    getJsonBytes: open(async (id) => {
      const session = await get(id);
      return session === undefined ? undefined : sessionJsonBytes(sessionJsonParts(session));
    }),
    append: open(async (id, messages, options) => {
      await mustSee(id);
      return forward('append', id, messages, options);
    }),
    readMessages: open(async (id, range) => {
      await mustSee(id);
      return forward('readMessages', id, range);
    }),
    ...(replaceTail === undefined
      ? {}
      : {
          replaceTail: open(async (id: string, input: ReplaceTailInput) => {
            await mustSee(id);
            const stored = map.names.sessionId(id);
            try {
              return await replaceTail(stored, input);
            } catch (error) {
              throw map.errorOut(error, stored, id);
            }
          }),
        }),
    delete: open(async (id) => (await summary(id)) !== undefined && forward('delete', id)),
    save: open(async (session, options = {}) => {
      // Not a session: the store refuses it with its own error, and nothing is written.
      if (!Session.is(session)) return store.save(session, options);
      const stored = map.sessionIn(session);
      let guarded = options;
      if (map.boundUser !== undefined) {
        // A bound view may not replace another user's session. Without a version of its own it
        // writes at the version it saw belong to its user (0: must not exist), so a change in
        // between is a CONFLICT, never a takeover.
        const current = await forward('summary', session.id);
        if (current !== undefined && current.userId !== map.boundUser)
          throw new ForbiddenError(`${store.name}: session ${session.id} belongs to another user`);
        if (options.expectedVersion === undefined) guarded = { ...options, expectedVersion: current?.version ?? 0 };
      }
      try {
        return map.sessionOut(await store.save(stored, guarded)) as Session;
      } catch (error) {
        throw map.errorOut(error, stored.id, session.id);
      }
    }),
    list: open(async (query = {}) => {
      const stored = map.listIn(query);
      const rows = stored === undefined ? [] : await store.list(stored);
      return rows.map((row) => map.summaryOut(row)).filter((row) => row !== undefined);
    }),
    marks: open(async (userId: string) => {
      const user = map.names.userId(userId);
      // A bound view sees its user's sessions only: another user's read as none, as in `list`.
      if (map.boundUser !== undefined && user !== map.boundUser) return [];
      // Without the store's call: the view's own listing, which keeps its names and limits.
      if (storeMarks === undefined) return marksByListing((query) => view.list(query), userId);
      return map.marksOut(user, await storeMarks(user));
    }),
    readMessagesAt: open(async (refs) => {
      const checked = checkMessageRefs(refs);
      // A bound view reads only its user's sessions; without both calls, through its own checked reads.
      if (storeReadAt === undefined || (map.boundUser !== undefined && storeMarks === undefined))
        return readEachAt(checked, (id, range) => view.readMessages(id, range));
      const stored = checked.map(({ sessionId, seq }) => ({ sessionId: map.names.sessionId(sessionId), seq }));
      // What `readMessages` of a bound view finds (`mustSee`): the user's live sessions, as `marks` lists them.
      const visible =
        map.boundUser === undefined ? undefined : new Set((await storeMarks?.(map.boundUser))?.map((mark) => mark.id));
      const asked = visible === undefined ? stored : stored.filter((ref) => visible.has(ref.sessionId));
      let read: Array<Message | undefined>;
      try {
        read = await storeReadAt(asked);
      } catch (error) {
        // The store's error names a stored session: told with the tenant's id, as `forward` does.
        throw checked.reduce(
          (told, ref, i) => map.errorOut(told, (stored[i] as MessageRef).sessionId, ref.sessionId),
          error,
        );
      }
      if (visible === undefined) return read;
      let next = 0;
      return stored.map((ref) => (visible.has(ref.sessionId) ? read[next++] : undefined));
    }),
    // Only the view's sessions (the store's own purge would reach every tenant). By listing, each
    // is read again first: the store's `summary` answers while a session is live, not once expired.
    purgeExpired: open(async (options) =>
      purgeTenant(
        {
          store,
          sessionPrefix: map.names.sessionPrefix,
          bound: map.boundUser !== undefined,
          view,
          removeExpired: async (id) => (await forward('summary', id)) === undefined && forward('delete', id),
        },
        options,
      ),
    ),
    // The tenant's user only (their stored id carries the tenant's prefix): no other tenant's user
    // can be named. A view bound to one user forgets nobody: that is an administrator's act.
    forgetUser: open(async (userId) => {
      if (map.boundUser !== undefined)
        throw new ForbiddenError(`${store.name}: a view bound to one user cannot forget users`);
      const receipt = await store.forgetUser(map.names.userId(userId));
      const cached = receipt.removed.cached + runForgetHooks(view, userId);
      return receiptOf(userId, { ...receipt.removed, cached }, Date.parse(receipt.at));
    }),
    values: {
      get: async (of, key) => store.values.get(await owner(of, 'read'), key),
      getAll: async (of) => store.values.getAll(await owner(of, 'read')),
      set: async (of, entries) => store.values.set(await owner(of, 'write'), entries),
    },
    searchText:
      search === undefined
        ? undefined
        : open(async (query) => {
            const stored = map.searchIn(query);
            return stored === undefined ? [] : map.hitsOut(await search(stored));
          }),
    ...(store.changes === undefined
      ? {}
      : {
          changes: new TenantChangeFeed(store.changes, {
            map,
            summary: (storedId) => store.summary(storedId),
            checkOpen,
          }),
        }),
    async ping() {
      checkOpen();
      await store.ping();
    },
    // A view owns nothing: it stops answering, and the store it looks through stays open for whoever opened it.
    async close() {
      closed = true;
    },
  };
  return view;
}
