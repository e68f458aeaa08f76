/**
 * A tenant view's purge. The store's own purge would reach every tenant, so a view purges what it
 * lists, the way the store purges over a driver without a purge of its own.
 * @module
 */
import type { ListCursor, SessionStore } from '../store/session-store-types.js';

/** Rows of `list` read at a time. */
const PURGE_PAGE = 500;

/**
 * Purges the expired sessions `view` lists, as the store purges over a driver without a purge of
 * its own: the ids are gathered first, then each is read again and removed only while it is still
 * expired (`removeExpired`) — a session saved again since it was listed stays.
 */
export async function purgeListed(
  view: Pick<SessionStore, 'list'>,
  removeExpired: (id: string) => Promise<boolean>,
): Promise<number> {
  const ids: string[] = [];
  for (let after: ListCursor | undefined; ;) {
    const page = await view.list({
      expired: true,
      kinds: 'all',
      limit: PURGE_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    ids.push(...page.map((row) => row.id));
    after = page.at(-1);
    if (page.length < PURGE_PAGE) break;
  }
  let purged = 0;
  for (const id of ids) if (await removeExpired(id)) purged += 1;
  return purged;
}
