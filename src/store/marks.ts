/**
 * The marks of a user's sessions (`SessionStore.marks`) read from `list`, for stores whose backend
 * has no lighter call: every page of `list({ userId })`, each session once.
 * @module
 */
import { MAX_LIST_LIMIT } from './list-query.js';
import type { ListQuery, SessionMark, SessionSummary } from './session-store-types.js';

/** What `marks` tells of a row of `list`. */
export function markOf(row: SessionSummary): SessionMark {
  const { id, version, createdAt, messageCount, tokenCount, damaged } = row;
  return Object.freeze({
    id,
    version,
    createdAt,
    messageCount,
    tokenCount,
    ...(damaged === undefined ? {} : { damaged }),
  });
}

/** The marks of `userId`'s sessions from `list`, paged by its cursor. */
export async function marksByListing(
  list: (query: ListQuery) => Promise<SessionSummary[]>,
  userId: string,
): Promise<SessionMark[]> {
  const marks = new Map<string, SessionMark>();
  let after: SessionSummary | undefined;
  for (;;) {
    const page = await list({ userId, kinds: 'all', limit: MAX_LIST_LIMIT, ...(after === undefined ? {} : { after }) });
    // A session saved while paging can come again: each is taken once.
    for (const row of page) if (row.userId === userId) marks.set(row.id, markOf(row));
    if (page.length < MAX_LIST_LIMIT) return [...marks.values()];
    after = page.at(-1);
  }
}
