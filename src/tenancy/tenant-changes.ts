/**
 * A tenant's view of a store's change feed: only the tenant's sessions (or, for a view bound to a
 * user, only that user's), told with the tenant's own ids. A change whose owner the writer did not
 * report is looked up before it is told; a delete of an unknown owner cannot be looked up (the
 * session is gone), so a bound view tells a `reset` instead — never another user's session id.
 * @module
 */
import type {
  ChangeEvent,
  ChangeFeed,
  ChangeFeedState,
  ChangeListener,
  SessionChangedEvent,
} from '../store/change-types.js';
import type { SessionSummary } from '../store/session-store-types.js';
import type { TenantMapping } from './tenant-mapping.js';

/** What the filter needs of the view. */
export interface TenantFeedScope {
  /** The view's names, and whose sessions it sees. */
  readonly map: TenantMapping;
  /** The stored session's row (for its owner), read through the shared store. */
  summary(storedId: string): Promise<SessionSummary | undefined>;
  /** `CLOSED` once the view is closed. */
  checkOpen(): void;
}

/** The change feed of a tenant view over `inner`. */
export class TenantChangeFeed implements ChangeFeed {
  constructor(
    private readonly inner: ChangeFeed,
    private readonly scope: TenantFeedScope,
  ) {}

  get coverage(): ChangeFeed['coverage'] {
    return this.inner.coverage;
  }

  get state(): ChangeFeedState {
    return this.inner.state;
  }

  subscribe(listener: ChangeListener): () => void {
    this.scope.checkOpen();
    return this.inner.subscribe((event) => this.pass(event, listener));
  }

  private pass(event: ChangeEvent, listener: ChangeListener): void {
    if (event.type !== 'change') {
      listener(event);
      return;
    }
    const { names } = this.scope.map;
    const id = names.localSessionId(event.id);
    if (id === undefined) return;
    if (event.userId !== undefined || this.scope.map.boundUser === undefined) {
      if (this.scope.map.visibleOwner(event.userId)) listener(this.outward(event, id, event.userId));
      return;
    }
    // A bound view must know whose it is before it tells the id.
    if (event.kind === 'delete') {
      listener({ type: 'reset', reason: 'unknown-owner' });
      return;
    }
    this.scope.summary(event.id).then(
      (row) => {
        if (row !== undefined && this.scope.map.visibleOwner(row.userId)) listener(this.outward(event, id, row.userId));
      },
      // Unreadable now: the listener cannot be told which session changed, only that one may have.
      () => listener({ type: 'reset', reason: 'unknown-owner' }),
    );
  }

  private outward(event: SessionChangedEvent, id: string, storedUser: string | undefined): SessionChangedEvent {
    const userId = storedUser === undefined ? undefined : this.scope.map.names.localUserId(storedUser);
    return Object.freeze({
      type: 'change',
      kind: event.kind,
      id,
      version: event.version,
      ...(userId === undefined ? {} : { userId }),
    });
  }
}
