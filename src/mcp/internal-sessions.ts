/**
 * Which sessions are chatstate's own (a user's knowledge, working memory, knowledge graph): kept
 * out of session listings unless asked, as the session browser does.
 * @module
 */
import { KNOWLEDGE_GRAPH_PREFIX, KNOWLEDGE_PREFIX } from '../active-memory/knowledge.js';
import { WORKING_MEMORY_PREFIX } from '../active-memory/working-memory.js';
import type { ListCursor, ListQuery, SessionStore, SessionSummary } from '../store/session-store-types.js';

const PREFIXES = [KNOWLEDGE_PREFIX, WORKING_MEMORY_PREFIX, KNOWLEDGE_GRAPH_PREFIX];

/** Rows a listing reads past internal sessions before it answers a shorter page. */
const MAX_SCANNED = 2000;

/** True for a session chatstate keeps for itself. */
export function isInternalSession(id: string): boolean {
  return PREFIXES.some((prefix) => id.startsWith(prefix));
}

/** A page of `list` rows: up to `limit` of them, and the place the next page starts after (absent at the end). */
export interface SessionPage {
  readonly rows: readonly SessionSummary[];
  readonly next?: ListCursor;
}

/**
 * Up to `limit` rows of `query`'s listing after `after`, internal sessions left out unless
 * `internal`. The cursor is the last row read (kept or not), so no row is skipped or repeated.
 */
export async function listSessions(
  store: SessionStore,
  query: Omit<ListQuery, 'limit' | 'after' | 'offset'>,
  limit: number,
  after: ListCursor | undefined,
  internal: boolean,
): Promise<SessionPage> {
  const rows: SessionSummary[] = [];
  let cursor = after;
  let scanned = 0;
  while (rows.length < limit && scanned < MAX_SCANNED) {
    const want = limit - rows.length;
    const page = await store.list({ ...query, limit: want, ...(cursor === undefined ? {} : { after: cursor }) });
    scanned += page.length;
    for (const row of page) if (internal || !isInternalSession(row.id)) rows.push(row);
    const last = page[page.length - 1];
    if (page.length < want || last === undefined) return { rows };
    cursor = { updatedAt: last.updatedAt, id: last.id };
  }
  return { rows, ...(cursor === undefined ? {} : { next: cursor }) };
}
