/**
 * The filters of `GET /sessions` a store cannot apply itself: words in a session's id, title, user
 * or agent, and activity since a time. Rows are read in list order, a bounded number per request,
 * so a search over a large store answers in bounded time and pages on with its cursor.
 * @module
 */
import type { ListKinds } from '../store/session-kind.js';
import type { ListCursor, SessionStore, SessionSummary } from '../store/session-store-types.js';

/** Rows a filtered request reads at most before it answers (with a cursor to go on from). */
export const MAX_SCANNED_ROWS = 2000;

/** Rows read from the store at a time. */
const SCAN_PAGE = 200;

/** A filtered page request. */
export interface FilterQuery {
  readonly limit: number;
  readonly after?: ListCursor;
  readonly userId?: string;
  readonly agentId?: string;
  /** Which sessions by kind (`ListQuery.kinds`). */
  readonly kinds?: ListKinds;
  /** Words the id, title, user or agent must contain (any case). */
  readonly q?: string;
  /** Only sessions active after this time (ISO-8601). */
  readonly updatedAfter?: string;
}

/** True when `row` holds `needle` (lower case) in its id, title, user or agent. */
function matches(row: SessionSummary, needle: string): boolean {
  return [row.id, row.title, row.userId, row.agentId].some(
    (field) => field !== undefined && field.toLowerCase().includes(needle),
  );
}

/**
 * A page of the rows of `store` that pass the filters, and the cursor after the last row read
 * when more may pass (`undefined` when the list ended, or reached rows older than `updatedAfter`).
 */
export async function filteredPage(
  store: SessionStore,
  query: FilterQuery,
): Promise<{ rows: SessionSummary[]; next?: ListCursor }> {
  const needle = query.q?.toLowerCase();
  const since = query.updatedAfter === undefined ? undefined : Date.parse(query.updatedAfter);
  const rows: SessionSummary[] = [];
  let after = query.after;
  for (let scanned = 0; scanned < MAX_SCANNED_ROWS;) {
    const batch = await store.list({
      limit: Math.min(SCAN_PAGE, MAX_SCANNED_ROWS - scanned),
      ...(after === undefined ? {} : { after }),
      ...(query.userId === undefined ? {} : { userId: query.userId }),
      ...(query.agentId === undefined ? {} : { agentId: query.agentId }),
      ...(query.kinds === undefined ? {} : { kinds: query.kinds }),
    });
    for (const row of batch) {
      scanned += 1;
      after = row;
      // Newest activity first: past the first row too old, every other one is older still.
      if (since !== undefined && Date.parse(row.updatedAt) <= since) return { rows };
      if (needle !== undefined && !matches(row, needle)) continue;
      rows.push(row);
      if (rows.length === query.limit) return { rows, next: row };
    }
    if (batch.length < SCAN_PAGE) return { rows };
  }
  return { rows, ...(after === undefined ? {} : { next: after }) };
}
