/**
 * What a session is called on the page: its title, or its id when it has none — except a user's
 * knowledge session (active memory's `remember`), whose id is a prefix and a 64-hex hash of the
 * user's id: it is called that user's memory.
 * @module
 */
import type { SessionRow } from './types.js';

/**
 * The library's `KNOWLEDGE_PREFIX` (src/active-memory/knowledge.ts): the page does not import the
 * server's code, so it is written here, and test/web/client-model.test.ts checks the two agree.
 * The library reserves it: no turn may make a session whose id starts with it.
 */
export const KNOWLEDGE_PREFIX = 'knowledge-';

/** Whether `row` is a user's knowledge session. */
export function isKnowledge(row: Pick<SessionRow, 'id'>): boolean {
  return row.id.startsWith(KNOWLEDGE_PREFIX);
}

/** What a session kind (`SessionSummary.kind`) is called on the page. */
export function kindLabel(kind: string): string {
  return kind === 'knowledge' ? 'knowledge · active memory' : kind.replace(/-/g, ' ');
}

/** The name of session `row` for people. */
export function titleOf(row: Pick<SessionRow, 'id' | 'title' | 'userId'>): string {
  if (isKnowledge(row)) return row.userId === undefined ? 'Knowledge (active memory)' : `${row.userId}’s memory`;
  return row.title ?? row.id;
}
