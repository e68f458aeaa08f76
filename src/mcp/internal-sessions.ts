/**
 * Session listings of the MCP tools and resources: chatstate's own sessions (a user's knowledge,
 * working memory, knowledge graph, the LangGraph saver's checkpoint logs, …: those with a kind)
 * are kept out unless asked, as the session browser does. The store filters them as it pages.
 * @module
 */
import type { ListCursor, ListQuery, SessionStore, SessionSummary } from '../store/session-store-types.js';

/** A page of `list` rows: up to `limit` of them, and the place the next page starts after (absent at the end). */
export interface SessionPage {
  readonly rows: readonly SessionSummary[];
  readonly next?: ListCursor;
}

/** Up to `limit` rows of `query`'s listing after `after`, internal sessions left out unless `internal`. */
export async function listSessions(
  store: SessionStore,
  query: Omit<ListQuery, 'limit' | 'after' | 'offset' | 'kinds'>,
  limit: number,
  after: ListCursor | undefined,
  internal: boolean,
): Promise<SessionPage> {
  const rows = await store.list({
    ...query,
    limit,
    kinds: internal ? 'all' : 'conversations',
    ...(after === undefined ? {} : { after }),
  });
  const last = rows.at(-1);
  return {
    rows,
    ...(rows.length === limit && last !== undefined ? { next: { updatedAt: last.updatedAt, id: last.id } } : {}),
  };
}
