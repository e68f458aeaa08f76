/**
 * How a tenant view maps what crosses it. Going in, every session id, owner and query is put into
 * the tenant's namespace (see `TenantNames`) and held to the user the view is bound to; coming
 * out, every session, row, hit and error is told in the tenant's own names, and what the view does
 * not see is dropped — it reads as absent, never as "forbidden", so a guess learns nothing.
 * @module
 */
import { ChatstateError, ForbiddenError } from '../errors.js';
import type { Session } from '../session/session.js';
import { checkListQuery } from '../store/list-query.js';
import type {
  ListQuery,
  SessionMark,
  SessionSummary,
  TextSearchHit,
  TextSearchQuery,
  ValueOwner,
} from '../store/session-store-types.js';
import { checkTextQuery } from '../store/values.js';
import { TenantNames } from './names.js';

/** Whose view of the store: a tenant, and optionally one of its users. */
export interface TenantScope {
  /** The tenant (lowercase letters, digits and dashes; at most 32). */
  readonly tenant: string;
  /** When set, the view holds only this user's sessions and values (a member key bound to a user). */
  readonly userId?: string;
}

/** One view's mapping between the tenant's names and the shared store's. */
export class TenantMapping {
  readonly names: TenantNames;
  /** The stored id of the user the view is bound to. */
  readonly boundUser: string | undefined;

  constructor(
    scope: TenantScope,
    /** The store's name, which the view's own errors give as the store's do. */
    private readonly store: string,
  ) {
    this.names = new TenantNames(scope.tenant);
    this.boundUser = scope.userId === undefined ? undefined : this.names.userId(scope.userId);
  }

  /** True when a stored session of `userId` is visible in this view. */
  visibleOwner(userId: string | undefined): boolean {
    if (this.boundUser !== undefined) return userId === this.boundUser;
    return userId === undefined || this.names.localUserId(userId) !== undefined;
  }

  /** The stored session as the tenant names it; `undefined` when the view does not see it. */
  sessionOut(session: Session | undefined): Session | undefined {
    const id = session === undefined ? undefined : this.names.localSessionId(session.id);
    if (session === undefined || id === undefined || !this.visibleOwner(session.userId)) return undefined;
    const userId = session.userId === undefined ? undefined : this.names.localUserId(session.userId);
    return session.withStored({
      messages: session.history,
      version: session.version,
      updatedAt: session.updatedAt,
      names: { id, ...(userId === undefined ? {} : { userId }) },
    });
  }

  /** The tenant's session in the store's names; its owner is the bound user's (another is `FORBIDDEN`). */
  sessionIn(session: Session): Session {
    let userId = session.userId === undefined ? undefined : this.names.userId(session.userId);
    if (this.boundUser !== undefined) {
      if (userId !== undefined && userId !== this.boundUser)
        throw new ForbiddenError(`${this.store}: this key may only write its own user's sessions`);
      userId = this.boundUser;
    }
    return session.withStored({
      messages: session.history,
      version: session.version,
      updatedAt: session.updatedAt,
      names: { id: this.names.sessionId(session.id), ...(userId === undefined ? {} : { userId }) },
    });
  }

  /** The stored row as the tenant names it; `undefined` when the view does not see it. */
  summaryOut(row: SessionSummary | undefined): SessionSummary | undefined {
    const id = row === undefined ? undefined : this.names.localSessionId(row.id);
    if (row === undefined || id === undefined || !this.visibleOwner(row.userId)) return undefined;
    const { userId: storedUser, damaged, ...rest } = row;
    const userId = storedUser === undefined ? undefined : this.names.localUserId(storedUser);
    return Object.freeze({
      ...rest,
      id,
      ...(userId === undefined ? {} : { userId }),
      // The store's words about the damage name its stored id: told with the tenant's, as errors are.
      ...(damaged === undefined ? {} : { damaged: damaged.split(row.id).join(id) }),
    });
  }

  /** The marks of stored user `userId`'s sessions as the tenant names them; only the view's sessions. */
  marksOut(userId: string, marks: readonly SessionMark[]): SessionMark[] {
    if (!this.visibleOwner(userId)) return [];
    const out: SessionMark[] = [];
    for (const mark of marks) {
      const id = this.names.localSessionId(mark.id);
      if (id === undefined) continue;
      const { damaged, ...rest } = mark;
      // The store's words about the damage name its stored id: told with the tenant's, as `summaryOut` does.
      out.push(
        Object.freeze({ ...rest, id, ...(damaged === undefined ? {} : { damaged: damaged.split(mark.id).join(id) }) }),
      );
    }
    return out;
  }

  /** The tenant's `list` query in the store's terms; `undefined` when it can match nothing the view sees. */
  listIn(query: ListQuery): ListQuery | undefined {
    // Checked as the store checks it, before the view adds its own prefix to what it was given.
    const { userId, after, ...rest } = checkListQuery(query, this.store);
    const user = this.userIn(userId);
    if (user === null) return undefined;
    return {
      ...rest,
      idPrefix: this.names.sessionPrefix + (rest.idPrefix ?? ''),
      ...(user === undefined ? {} : { userId: user }),
      ...(after === undefined ? {} : { after: { updatedAt: after.updatedAt, id: this.names.sessionId(after.id) } }),
    };
  }

  /** The tenant's full-text query in the store's terms; `undefined` when it can find nothing the view sees. */
  searchIn(query: TextSearchQuery): TextSearchQuery | undefined {
    // Checked as the store checks it: a bad query is refused, never answered with no hits.
    checkTextQuery(query, this.store);
    const userId = this.userIn(query.userId);
    const sessionIds = query.sessionIds?.map((id) => this.names.sessionId(id));
    // Sessions without a user belong to no tenant's user: such a search must name its sessions.
    if (userId === null || (userId === undefined && sessionIds === undefined)) return undefined;
    return {
      ...query,
      ...(userId === undefined ? {} : { userId }),
      ...(sessionIds === undefined ? {} : { sessionIds }),
    };
  }

  /** The hits in the tenant's sessions, told with the tenant's ids. */
  hitsOut(hits: readonly TextSearchHit[]): TextSearchHit[] {
    const out: TextSearchHit[] = [];
    for (const hit of hits) {
      const sessionId = this.names.localSessionId(hit.sessionId);
      if (sessionId !== undefined) out.push({ ...hit, sessionId });
    }
    return out;
  }

  /**
   * An owner of values in the store's terms; `FORBIDDEN` for another user's values, or a write to
   * the app scope, in a bound view. (Whether a session is visible is the view's to check first.)
   */
  ownerIn(owner: ValueOwner, access: 'read' | 'write'): ValueOwner {
    const forbid = (what: string): never => {
      throw new ForbiddenError(`${this.store}: this key may not ${access} ${what}`);
    };
    switch (owner?.scope) {
      case 'user':
      case 'agent': {
        const userId = this.names.userId(owner.userId);
        if (this.boundUser !== undefined && userId !== this.boundUser) forbid("another user's values");
        return owner.scope === 'user' ? { scope: 'user', userId } : { scope: 'agent', agentId: owner.agentId, userId };
      }
      case 'app':
        if (this.boundUser !== undefined && access === 'write') forbid('the app scope');
        return { scope: 'user', userId: this.names.appUser };
      case 'session':
        return { scope: 'session', sessionId: this.names.sessionId(owner.sessionId) };
      default:
        // The store refuses an unknown scope with its own INVALID_ARGUMENT.
        return owner;
    }
  }

  /**
   * The store's error about stored session `stored`, told with the tenant's `id` instead in its
   * message and details (the store's names stay inside, in its `cause`), of the same class; any
   * other error as it is.
   */
  errorOut(error: unknown, stored: string, id: string): unknown {
    if (!ChatstateError.isInstance(error)) return error;
    const names = (value: unknown): boolean => typeof value === 'string' && value.includes(stored);
    if (!names(error.message) && !Object.values(error.details).some(names)) return error;
    const told = <T>(value: T): T | string => (typeof value === 'string' ? value.split(stored).join(id) : value);
    const details = Object.fromEntries(Object.entries(error.details).map(([key, value]) => [key, told(value)]));
    return error.withMessage(told(error.message), details);
  }

  /** A query's user in the store's names: the bound user's; `null` for another user in a bound view. */
  private userIn(userId: string | undefined): string | undefined | null {
    const user = userId === undefined ? undefined : this.names.userId(userId);
    if (this.boundUser === undefined) return user;
    return user === undefined || user === this.boundUser ? this.boundUser : null;
  }
}
