/**
 * `tenantStore`: one tenant's view of a shared store, optionally narrowed to one of its users.
 * Isolation lives here, once, instead of in each route of a server: every id going in is forced
 * into the tenant's namespace (see `TenantNames`), everything coming out is checked to be the
 * tenant's and given back under the tenant's own names, and a user-bound view sees only that
 * user's sessions and values. What another tenant (or user) holds reads as absent, never as
 * "forbidden", so a guess learns nothing.
 * @module
 */
import { ChatstateError, ConflictError, ForbiddenError, type NotFoundError } from '../errors.js';
import type { Message, MessageInput } from '../message/message.js';
import { Session } from '../session/session.js';
import { sessionJsonBytes, sessionJsonParts, sessionText } from '../store/codec.js';
import { checkListQuery } from '../store/list-query.js';
import { checkTextQuery } from '../store/values.js';
import { closedError, noSessionError } from '../store/driver-helpers.js';
import type {
  AppendOptions,
  AppendResult,
  ListQuery,
  MessageRange,
  SaveOptions,
  SessionStore,
  SessionSummary,
  TextSearchHit,
  TextSearchQuery,
  ValueOwner,
  ValueStore,
} from '../store/types.js';
import type { ChangeFeed } from '../store/change-types.js';
import { TenantNames } from './names.js';
import { TenantChangeFeed } from './tenant-changes.js';

/** Whose view of the store: a tenant, and optionally one of its users. */
export interface TenantScope {
  /** The tenant (lowercase letters, digits and dashes; at most 32). */
  readonly tenant: string;
  /** When set, the view holds only this user's sessions and values (a member key bound to a user). */
  readonly userId?: string;
}

/** Rows of `list` scanned at a time by a tenant's purge. */
const PURGE_PAGE = 500;

class TenantStore implements SessionStore {
  readonly name: string;
  readonly values: ValueStore;
  readonly searchText: ((query: TextSearchQuery) => Promise<TextSearchHit[]>) | undefined;
  /** The store's change feed, narrowed to the view's sessions and told in its names. */
  readonly changes: ChangeFeed | undefined;
  private readonly names: TenantNames;
  /** The stored id of the user the view is bound to. */
  private readonly boundUser: string | undefined;
  private closed = false;

  constructor(
    private readonly inner: SessionStore,
    scope: TenantScope,
  ) {
    this.names = new TenantNames(scope.tenant);
    this.boundUser = scope.userId === undefined ? undefined : this.names.userId(scope.userId);
    // The store's own name: its errors, which the view passes on, name it.
    this.name = inner.name;
    this.values = {
      get: async (owner, key) => this.inner.values.get(await this.owner(owner, 'read'), key),
      getAll: async (owner) => this.inner.values.getAll(await this.owner(owner, 'read')),
      set: async (owner, entries) => this.inner.values.set(await this.owner(owner, 'write'), entries),
    };
    const search = inner.searchText;
    this.searchText = search === undefined ? undefined : (query) => this.search(search, query);
    this.changes =
      inner.changes === undefined
        ? undefined
        : new TenantChangeFeed(inner.changes, {
            names: this.names,
            boundUser: this.boundUser,
            visibleOwner: (userId) => this.visibleOwner(userId),
            summary: (storedId) => this.inner.summary(storedId),
            checkOpen: () => this.checkOpen(),
          });
  }

  private notFound(id: string): NotFoundError {
    return noSessionError(this.name, id);
  }

  /** The session as the tenant names it (the store's copy is named in the store's terms). */
  private outward(session: Session): Session | undefined {
    const id = this.names.localSessionId(session.id);
    if (id === undefined || !this.visibleOwner(session.userId)) return undefined;
    const userId = session.userId === undefined ? undefined : this.names.localUserId(session.userId);
    return session.withStored({
      messages: session.history,
      version: session.version,
      updatedAt: session.updatedAt,
      names: { id, ...(userId === undefined ? {} : { userId }) },
    });
  }

  /** True when a stored session of `userId` is visible in this view. */
  private visibleOwner(userId: string | undefined): boolean {
    if (this.boundUser !== undefined) return userId === this.boundUser;
    return userId === undefined || this.names.localUserId(userId) !== undefined;
  }

  /** The row as the tenant names it, or `undefined` when the view does not see it. */
  private outwardSummary(summary: SessionSummary): SessionSummary | undefined {
    const id = this.names.localSessionId(summary.id);
    if (id === undefined || !this.visibleOwner(summary.userId)) return undefined;
    const { userId: storedUser, ...rest } = summary;
    const userId = storedUser === undefined ? undefined : this.names.localUserId(storedUser);
    return Object.freeze({ ...rest, id, ...(userId === undefined ? {} : { userId }) });
  }

  /** The stored row of the tenant's session `id`, when the view sees it. */
  private async visible(id: string): Promise<{ stored: string; summary?: SessionSummary }> {
    const stored = this.names.sessionId(id);
    const summary = await this.inner.summary(stored);
    if (summary === undefined || !this.visibleOwner(summary.userId)) return { stored };
    return { stored, summary };
  }

  /** The session's id and owner in the store's terms, the owner checked against the bound user. */
  private inward(session: Session): Session {
    let userId: string | undefined;
    if (session.userId !== undefined) userId = this.names.userId(session.userId);
    if (this.boundUser !== undefined) {
      if (userId !== undefined && userId !== this.boundUser)
        throw new ForbiddenError(`${this.name}: this key may only write its own user's sessions`);
      userId = this.boundUser;
    }
    return session.withStored({
      messages: session.history,
      version: session.version,
      updatedAt: session.updatedAt,
      names: { id: this.names.sessionId(session.id), ...(userId === undefined ? {} : { userId }) },
    });
  }

  async load(id: string): Promise<Session> {
    const session = await this.get(id);
    if (session === undefined) throw this.notFound(id);
    return session;
  }

  async get(id: string): Promise<Session | undefined> {
    this.checkOpen();
    const session = await this.inner.get(this.names.sessionId(id));
    return session === undefined ? undefined : this.outward(session);
  }

  // The text is rebuilt from the session: its names must be the tenant's, and only parsing knows where they are.
  async getJson(id: string): Promise<string | undefined> {
    const session = await this.get(id);
    return session === undefined ? undefined : sessionText(session);
  }

  async getJsonBytes(id: string): Promise<Uint8Array | undefined> {
    const session = await this.get(id);
    return session === undefined ? undefined : sessionJsonBytes(sessionJsonParts(session));
  }

  async save(session: Session, options: SaveOptions = {}): Promise<Session> {
    this.checkOpen();
    // Not a session: the store refuses it with its own error, and nothing is written.
    if (!Session.is(session)) return this.inner.save(session, options);
    const stored = this.inward(session);
    let guarded = options;
    if (this.boundUser !== undefined) {
      // A bound view may not replace another user's session. Without a version of its own it
      // writes at the version it saw belong to its user (0: must not exist), so a change in
      // between is a CONFLICT, never a takeover.
      const current = await this.inner.summary(stored.id);
      if (current !== undefined && current.userId !== this.boundUser)
        throw new ForbiddenError(`${this.name}: session ${session.id} belongs to another user`);
      if (options.expectedVersion === undefined) guarded = { ...options, expectedVersion: current?.version ?? 0 };
    }
    try {
      return this.outward(await this.inner.save(stored, guarded)) as Session;
    } catch (error) {
      throw this.renamed(error, stored.id, session.id);
    }
  }

  async append(
    id: string,
    messages: ReadonlyArray<Message | MessageInput>,
    options?: AppendOptions,
  ): Promise<AppendResult> {
    this.checkOpen();
    const stored = this.names.sessionId(id);
    if (this.boundUser !== undefined && (await this.visible(id)).summary === undefined) throw this.notFound(id);
    try {
      return await this.inner.append(stored, messages, options);
    } catch (error) {
      throw this.renamed(error, stored, id);
    }
  }

  async readMessages(id: string, range?: MessageRange): Promise<Message[]> {
    this.checkOpen();
    const stored = this.names.sessionId(id);
    if (this.boundUser !== undefined && (await this.visible(id)).summary === undefined) throw this.notFound(id);
    try {
      return await this.inner.readMessages(stored, range);
    } catch (error) {
      throw this.renamed(error, stored, id);
    }
  }

  async list(query: ListQuery = {}): Promise<SessionSummary[]> {
    this.checkOpen();
    // Checked as the store checks it, before the view adds its own prefix to what it was given.
    const { userId, after, ...rest } = checkListQuery(query, this.name);
    let user = userId === undefined ? undefined : this.names.userId(userId);
    if (this.boundUser !== undefined) {
      if (user !== undefined && user !== this.boundUser) return [];
      user = this.boundUser;
    }
    const rows = await this.inner.list({
      ...rest,
      idPrefix: this.names.sessionPrefix + (rest.idPrefix ?? ''),
      ...(user === undefined ? {} : { userId: user }),
      ...(after === undefined ? {} : { after: { updatedAt: after.updatedAt, id: this.names.sessionId(after.id) } }),
    });
    const out: SessionSummary[] = [];
    for (const row of rows) {
      const local = this.outwardSummary(row);
      if (local !== undefined) out.push(local);
    }
    return out;
  }

  async summary(id: string): Promise<SessionSummary | undefined> {
    this.checkOpen();
    const row = await this.inner.summary(this.names.sessionId(id));
    return row === undefined ? undefined : this.outwardSummary(row);
  }

  async delete(id: string): Promise<boolean> {
    this.checkOpen();
    const { stored, summary } = await this.visible(id);
    if (summary === undefined) return false;
    return this.inner.delete(stored);
  }

  async purgeExpired(): Promise<number> {
    this.checkOpen();
    // Only this tenant's (or user's) sessions: the store's own purge would reach every tenant.
    let purged = 0;
    for (;;) {
      const page = await this.list({ expired: true, limit: PURGE_PAGE });
      let removed = 0;
      for (const row of page) if (await this.inner.delete(this.names.sessionId(row.id))) removed += 1;
      purged += removed;
      if (page.length < PURGE_PAGE || removed === 0) return purged;
    }
  }

  async close(): Promise<void> {
    // A view owns nothing: it stops answering, and the store it looks through stays open for
    // whoever opened it.
    this.closed = true;
  }

  /** `CLOSED` once the view is closed. */
  private checkOpen(): void {
    if (this.closed) throw closedError(this.name);
  }

  /** An owner of values in the store's terms; `FORBIDDEN` for another user's values in a bound view. */
  private async owner(owner: ValueOwner, access: 'read' | 'write'): Promise<ValueOwner> {
    this.checkOpen();
    const forbid = (what: string): never => {
      throw new ForbiddenError(`${this.name}: this key may not ${access} ${what}`);
    };
    switch (owner?.scope) {
      case 'user': {
        const userId = this.names.userId(owner.userId);
        if (this.boundUser !== undefined && userId !== this.boundUser) forbid("another user's values");
        return { scope: 'user', userId };
      }
      case 'agent': {
        const userId = this.names.userId(owner.userId);
        if (this.boundUser !== undefined && userId !== this.boundUser) forbid("another user's values");
        return { scope: 'agent', agentId: owner.agentId, userId };
      }
      case 'app':
        if (this.boundUser !== undefined && access === 'write') forbid('the app scope');
        return { scope: 'user', userId: this.names.appUser };
      case 'session': {
        const { stored, summary } = await this.visible(owner.sessionId);
        if (this.boundUser !== undefined && summary === undefined) throw this.notFound(owner.sessionId);
        return { scope: 'session', sessionId: stored };
      }
      default:
        // The store refuses an unknown scope with its own INVALID_ARGUMENT.
        return owner;
    }
  }

  private async search(
    search: (query: TextSearchQuery) => Promise<TextSearchHit[]>,
    query: TextSearchQuery,
  ): Promise<TextSearchHit[]> {
    this.checkOpen();
    // Checked as the store checks it: a bad query is refused, never answered with no hits.
    checkTextQuery(query, this.name);
    let userId = query.userId === undefined ? undefined : this.names.userId(query.userId);
    if (this.boundUser !== undefined) {
      if (userId !== undefined && userId !== this.boundUser) return [];
      userId = this.boundUser;
    }
    const sessionIds = query.sessionIds?.map((id) => this.names.sessionId(id));
    // Sessions without a user belong to no tenant's user: such a search names its sessions.
    if (userId === undefined && sessionIds === undefined) return [];
    const hits = await search({
      ...query,
      ...(userId === undefined ? {} : { userId }),
      ...(sessionIds === undefined ? {} : { sessionIds }),
    });
    const out: TextSearchHit[] = [];
    for (const hit of hits) {
      const sessionId = this.names.localSessionId(hit.sessionId);
      if (sessionId !== undefined) out.push({ ...hit, sessionId });
    }
    return out;
  }

  /** An error of the store about `stored`, told with the tenant's id instead (the store's names stay inside). */
  private renamed(error: unknown, stored: string, id: string): unknown {
    if (!ChatstateError.isInstance(error) || !error.message.includes(stored)) return error;
    if (error.code === 'NOT_FOUND') return this.notFound(id);
    const message = error.message.split(JSON.stringify(stored)).join(JSON.stringify(id)).split(stored).join(id);
    const details = Object.fromEntries(
      Object.entries(error.details).map(([key, value]) => [key, value === stored ? id : value]),
    );
    return error.code === 'CONFLICT'
      ? new ConflictError(message, { cause: error, details })
      : new ChatstateError(error.code, message, { cause: error, details });
  }
}

/** One tenant's view of `store` (optionally one user's): ids, owners, lists, values and search stay inside it. */
export function tenantStore(store: SessionStore, scope: TenantScope): SessionStore {
  return new TenantStore(store, scope);
}
