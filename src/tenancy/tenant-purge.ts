/**
 * A tenant view's purge. The store's own purge would reach every tenant, so a view purges under
 * its tenant's id prefix, which the store does atomically per session; where the store cannot (a
 * store without a purge by prefix, or a view bound to one user, whom no prefix names) the view
 * purges what it lists, the way the store purges over a driver without a purge of its own.
 * @module
 */
import { ChatstateError } from '../errors.js';
import { MAX_ID_CHARS } from '../ids.js';
import { checkPurgeOptions } from '../store/purge-options.js';
import type { ListCursor, PurgeOptions, SessionStore } from '../store/session-store-types.js';

/** Rows of `list` read at a time. */
const PURGE_PAGE = 500;

/** What a view's purge needs of it: see `purgeTenant`. */
export interface TenantPurge {
  /** The store the view looks through. */
  readonly store: Pick<SessionStore, 'name' | 'purgeExpired'>;
  /** The tenant's prefix of stored session ids. */
  readonly sessionPrefix: string;
  /** Whether the view is bound to one user (its purge may not reach the tenant's other users). */
  readonly bound: boolean;
  /** The view itself, for the purge by listing. */
  readonly view: Pick<SessionStore, 'list'>;
  /** Removes the view's session `id` only while it is still expired. */
  readonly removeExpired: (id: string) => Promise<boolean>;
}

/**
 * Purges a tenant's expired sessions (under `options.idPrefix` in the tenant's names): through the
 * store's purge by prefix, so a session saved again meanwhile stays; by listing for a bound view
 * or when the store refuses a prefix (`UNSUPPORTED`).
 */
export async function purgeTenant(purge: TenantPurge, options: PurgeOptions | undefined): Promise<number> {
  const { idPrefix } = checkPurgeOptions(options, purge.store.name);
  if (purge.bound) return purgeListed(purge.view, purge.removeExpired, idPrefix);
  const stored = purge.sessionPrefix + (idPrefix ?? '');
  // Longer than any stored id: the prefix names none of the tenant's sessions.
  if (stored.length > MAX_ID_CHARS) return 0;
  try {
    return await purge.store.purgeExpired({ idPrefix: stored });
  } catch (error) {
    if (!ChatstateError.hasCode(error, 'UNSUPPORTED')) throw error;
    return purgeListed(purge.view, purge.removeExpired, idPrefix);
  }
}

/**
 * Purges the expired sessions `view` lists (under `idPrefix`), as the store purges over a driver
 * without a purge of its own: the ids are gathered first, then each is read again and removed only
 * while it is still expired (`removeExpired`) — a session saved again since it was listed stays,
 * unless it is saved between that read and the removal.
 */
export async function purgeListed(
  view: Pick<SessionStore, 'list'>,
  removeExpired: (id: string) => Promise<boolean>,
  idPrefix?: string,
): Promise<number> {
  const ids: string[] = [];
  for (let after: ListCursor | undefined; ;) {
    const page = await view.list({
      expired: true,
      kinds: 'all',
      limit: PURGE_PAGE,
      ...(idPrefix === undefined ? {} : { idPrefix }),
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
