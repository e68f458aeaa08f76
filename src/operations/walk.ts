/**
 * The sessions of a store, page by page through `store.list`: bounded memory whatever the number
 * of sessions.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { assertValidId } from '../ids.js';
import type { SessionStore, SessionSummary } from '../store/session-store-types.js';

/** Rows asked of `list` per page (its largest limit is 1000). */
export const PAGE_SIZE = 500;

/** Which sessions an operation covers: the ids named, or every session of the store. */
export type SessionSelection = { readonly ids: readonly string[] } | { readonly all: true };

/** The selection of `options`: `ids` (checked) or `all`; `INVALID_ARGUMENT` for neither or both. */
export function selectionOf(options: { readonly ids?: readonly string[]; readonly all?: boolean }): SessionSelection {
  const { ids, all } = options;
  if ((ids === undefined || ids.length === 0) === (all !== true)) {
    throw new InvalidInputError('INVALID_ARGUMENT', 'Name session ids or choose all sessions (not both, not neither)');
  }
  if (all === true) return { all: true };
  return { ids: (ids as readonly string[]).map((id) => assertValidId(id, 'session id')) };
}

/**
 * Every session of `store` in list order (newest activity first), one page in memory at a time.
 * Pages follow a cursor (the last row seen, `ListQuery.after`), so a session deleted during the
 * walk makes it skip no other one. Sessions written during the walk may be missed or seen again:
 * an updated or new one moves to the front, where the walk has been already (missed if it had not
 * been seen yet), and one saved with an older `updatedAt` (`keepUpdatedAt`) may move to where the
 * walk is still going. A rerun of a migration picks up what one run missed.
 */
export async function* everySession(store: SessionStore, signal?: AbortSignal): AsyncGenerator<SessionSummary> {
  let after: SessionSummary | undefined;
  for (;;) {
    if (signal?.aborted === true) return;
    const page = await store.list({ limit: PAGE_SIZE, after, kinds: 'all' });
    yield* page;
    if (page.length < PAGE_SIZE) return;
    after = page.at(-1);
  }
}

/** The ids of `selection` as summaries (`undefined` for an id the store does not hold). */
export async function* selected(
  store: SessionStore,
  selection: SessionSelection,
  signal?: AbortSignal,
): AsyncGenerator<{ id: string; summary?: SessionSummary }> {
  if ('all' in selection) {
    for await (const summary of everySession(store, signal)) yield { id: summary.id, summary };
    return;
  }
  for (const id of selection.ids) {
    if (signal?.aborted === true) return;
    yield { id };
  }
}

/** How many sessions `selection` covers (for progress): the ids named, or a count of every page. */
export async function countSessions(store: SessionStore, selection: SessionSelection): Promise<number> {
  if ('ids' in selection) return selection.ids.length;
  let count = 0;
  let after: SessionSummary | undefined;
  for (;;) {
    const page = await store.list({ limit: PAGE_SIZE, after, kinds: 'all' });
    count += page.length;
    if (page.length < PAGE_SIZE) return count;
    after = page.at(-1);
  }
}
