/**
 * Active memory in the SQLite store: values by namespace, and the FTS5 index of message text
 * (its statements, its upkeep on append, replace and delete, and the search). Every function here
 * runs inside a transaction the driver opened.
 *
 * Appended text reaches the index in batches: an append queues its messages' text in
 * `message_text_queue` (one row each), and `indexQueued` moves the queue into `message_text` and
 * `message_fts` in one go — a new FTS5 segment per batch instead of one per commit. The driver
 * indexes the queue in the commit that fills a batch, before every search (a search sees every
 * acknowledged append) and on close; whatever deletes a session's index rows deletes its queued
 * rows too, so a queued row never outlives its session.
 * @module
 */
import { createHash } from 'node:crypto';
import { DataError } from '../../errors.js';
import type { DriverForgetResult, ForgetTarget, ValueRecord } from '../../store/driver-types.js';
import { VECTOR_KEY_PREFIX } from '../../store/values.js';
import type { TextSearchHit, TextSearchQuery } from '../../store/session-store-types.js';
import { foldText, relativeScores, searchTerms, sessionNamespaces } from '../sql-search.js';
import type { DatabaseLabel } from './schema.js';
import { assertStorable, isStorable, type SqliteDatabaseLike } from './sql.js';

/** The statements of active memory, prepared once per connection. */
export function prepareActiveMemoryStatements(db: SqliteDatabaseLike) {
  // The join drives from the FTS5 MATCH (the index), then finds each hit's row by rowid; the exact
  // user check is in SQL (`IS` also matches "no user" to "no user"), whatever the owner token says.
  const searchSql = (
    filter: string,
  ): string => `SELECT t.session_id AS session_id, t.seq AS seq, t.message_id AS message_id,
      bm25(message_fts, 1.0, 0.0) AS rank
    FROM message_fts JOIN message_text t ON t.rowid = message_fts.rowid
    WHERE message_fts MATCH ? AND t.user_id IS ?${filter}
    ORDER BY rank, t.session_id, t.seq DESC LIMIT ?`;
  return {
    readValues: db.prepare(`SELECT key, data FROM memory_values WHERE ns = ? ORDER BY key`),
    readSomeValues: db.prepare(
      `SELECT key, data FROM memory_values WHERE ns = ? AND key IN (SELECT value FROM json_each(?)) ORDER BY key`,
    ),
    putValue: db.prepare(`INSERT INTO memory_values (ns, key, data, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (ns, key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`),
    deleteValue: db.prepare(`DELETE FROM memory_values WHERE ns = ? AND key = ?`),
    // One range scan of the (ns, key) key; see sessionNamespaces.
    deleteSessionValues: db.prepare(`DELETE FROM memory_values WHERE ns >= ? AND ns < ? AND (ns = ? OR ns >= ?)`),
    insertText: db.prepare(
      `INSERT INTO message_text (session_id, seq, message_id, user_id) VALUES (?, ?, ?, ?) RETURNING rowid`,
    ),
    insertIndex: db.prepare(`INSERT INTO message_fts (rowid, body, owner) VALUES (?, ?, ?)`),
    // The trigger message_text_deleted removes the index rows too.
    deleteText: db.prepare(`DELETE FROM message_text WHERE session_id = ?`),
    deleteTextAfter: db.prepare(`DELETE FROM message_text WHERE session_id = ? AND seq > ?`),
    // The messages of a session that have rows in the index (queued text is not in it yet).
    indexedKeys: db.prepare(`SELECT seq, message_id AS id FROM message_text WHERE session_id = ?`),
    queueText: db.prepare(
      `INSERT INTO message_text_queue (session_id, seq, message_id, user_id, body) VALUES (?, ?, ?, ?, ?)`,
    ),
    readQueue: db.prepare(`SELECT session_id, seq, message_id, user_id, body FROM message_text_queue ORDER BY rowid`),
    anyQueued: db.prepare(`SELECT 1 AS queued FROM message_text_queue LIMIT 1`),
    countQueued: db.prepare(`SELECT count(*) AS queued FROM message_text_queue`),
    // The queue is small (a batch or so): deleting one session's rows scans it, no index to keep up.
    deleteQueued: db.prepare(`DELETE FROM message_text_queue WHERE session_id = ?`),
    deleteQueuedAfter: db.prepare(`DELETE FROM message_text_queue WHERE session_id = ? AND seq > ?`),
    clearQueue: db.prepare(`DELETE FROM message_text_queue`),
    // A queued message whose (session, seq) already has a row (only a damaged file could have one)
    // keeps that row and its index entry: the batch goes on instead of failing.
    insertQueuedText: db.prepare(
      `INSERT INTO message_text (session_id, seq, message_id, user_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING rowid`,
    ),
    // forgetUser: the user's sessions, their vectors (counted before their namespaces go), the
    // index rows still naming the user, and the user's own and agent namespaces (`isUserNamespace`).
    userSessions: db.prepare(`SELECT id FROM sessions WHERE user_id = ? ORDER BY id`),
    countSessionVectors: db.prepare(
      `SELECT count(*) AS n FROM memory_values WHERE ns >= ? AND ns < ? AND (ns = ? OR ns >= ?) AND substr(key, 1, ${VECTOR_KEY_PREFIX.length}) = '${VECTOR_KEY_PREFIX}'`,
    ),
    deleteUserText: db.prepare(`DELETE FROM message_text WHERE user_id = ?`),
    deleteUserQueued: db.prepare(`DELETE FROM message_text_queue WHERE user_id = ?`),
    deleteUserValues: db.prepare(
      `DELETE FROM memory_values WHERE ns = ? OR (ns >= 'agent:' AND ns < 'agent;' AND substr(ns, -length(?)) = ?)`,
    ),
    // Merges the index's segments, so the terms of deleted rows leave the file (a delete only marks them).
    optimizeIndex: db.prepare(`INSERT INTO message_fts (message_fts) VALUES ('optimize')`),
    expiredIds: db.prepare(`SELECT id FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ?`),
    search: db.prepare(searchSql('')),
    searchIn: db.prepare(searchSql(' AND t.session_id IN (SELECT value FROM json_each(?))')),
  };
}

/** The statements of active memory. */
export type ActiveMemoryStatements = ReturnType<typeof prepareActiveMemoryStatements>;

/**
 * The token of the `owner` column: `n` for sessions without a user, otherwise `u` and 128 bits of
 * the user id's SHA-256 (hex: one token to the tokenizer, whatever characters the id has). It only
 * narrows the index scan; exactness comes from the SQL check on `user_id`.
 */
function ownerToken(userId: string | undefined): string {
  return userId === undefined ? 'n' : `u${createHash('sha256').update(userId).digest('hex').slice(0, 32)}`;
}

/**
 * The FTS5 query of a search: every word as a string literal (FTS5 syntax inside a string is plain
 * text, and `searchTerms` leaves no `"` to close it), any of them matching the body, and the owner.
 */
function matchExpression(terms: readonly string[], userId: string | undefined): string {
  return `owner : "${ownerToken(userId)}" AND body : (${terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(' OR ')})`;
}

/** Adds the index rows of a session's messages that carry text. */
export function indexMessages(
  statements: ActiveMemoryStatements,
  sessionId: string,
  userId: string | undefined,
  messages: ReadonlyArray<{ readonly seq: number; readonly id: string; readonly text?: string }>,
): void {
  const owner = ownerToken(userId);
  const texts = messages.filter((message): message is typeof message & { text: string } => message.text !== undefined);
  // Table rows first, then index rows: see indexQueued.
  const rowids = texts.map(
    (message) =>
      (statements.insertText.get(sessionId, message.seq, message.id, userId ?? null) as { rowid: number }).rowid,
  );
  texts.forEach((message, index) => statements.insertIndex.run(rowids[index], foldText(message.text), owner));
}

/** Queues the text of appended messages for the index (see `indexQueued`). */
export function queueMessages(
  statements: ActiveMemoryStatements,
  sessionId: string,
  userId: string | null,
  messages: ReadonlyArray<{ readonly seq: number; readonly id: string; readonly text: string }>,
): void {
  for (const message of messages)
    statements.queueText.run(sessionId, message.seq, message.id, userId, foldText(message.text));
}

/** Moves every queued text into the index (one FTS5 segment for the whole batch); returns how many. */
export function indexQueued(statements: ActiveMemoryStatements): number {
  const rows = statements.readQueue.all() as Array<{
    session_id: string;
    seq: number;
    message_id: string;
    user_id: string | null;
    body: string;
  }>;
  if (rows.length === 0) return 0;
  // Every message_text row first, then every index row: alternating between the table and FTS5
  // costs several times more per row (measured: about 9× for the table inserts).
  const rowids = rows.map(
    (row) =>
      (
        statements.insertQueuedText.get(row.session_id, row.seq, row.message_id, row.user_id) as
          { rowid: number } | undefined
      )?.rowid,
  );
  const owners = new Map<string | null, string>();
  rows.forEach((row, index) => {
    const rowid = rowids[index];
    if (rowid === undefined) return;
    let owner = owners.get(row.user_id);
    if (owner === undefined) owners.set(row.user_id, (owner = ownerToken(row.user_id ?? undefined)));
    statements.insertIndex.run(rowid, row.body, owner);
  });
  // The caller holds the write lock: no row was queued since the read above.
  statements.clearQueue.run();
  return rows.length;
}

/** Deletes session `id`'s index rows and its queued text. */
export function forgetText(statements: ActiveMemoryStatements, id: string): void {
  statements.deleteText.run(id);
  statements.deleteQueued.run(id);
}

/** Deletes the index rows and queued text of session `id`'s messages after seq `afterSeq` (a replaced tail). */
export function forgetTextAfter(statements: ActiveMemoryStatements, id: string, afterSeq: number): void {
  statements.deleteTextAfter.run(id, afterSeq);
  statements.deleteQueuedAfter.run(id, afterSeq);
}

/** Deletes what belongs to session `id` besides its head and messages: its values, index rows and queued text. */
export function forgetSession(statements: ActiveMemoryStatements, id: string): void {
  const { exact, children, end } = sessionNamespaces(id);
  statements.deleteSessionValues.run(exact, end, exact, children);
  forgetText(statements, id);
}

/**
 * Removes everything of one user (inside the driver's write transaction): each of their
 * sessions with its messages, values and index rows, the index rows and queued text still naming
 * them, and their user and agent namespaces. The driver then erases what the deletes left in the
 * index's segments and the write-ahead log (see its `writeErasing`).
 */
export function forgetUserRows(
  statements: ActiveMemoryStatements,
  sessions: {
    readonly deleteMessages: { run(id: string): { changes: number } };
    readonly deleteHead: { run(id: string): { changes: number } };
  },
  target: ForgetTarget,
): DriverForgetResult {
  const sessionIds: string[] = [];
  let messages = 0;
  let sessionValues = 0;
  let vectors = 0;
  let textRows = 0;
  for (const row of statements.userSessions.all(target.userId) as Array<{ id: string }>) {
    const { exact, children, end } = sessionNamespaces(row.id);
    vectors += (statements.countSessionVectors.get(exact, end, exact, children) as { n: number }).n;
    sessionValues += statements.deleteSessionValues.run(exact, end, exact, children).changes;
    textRows += statements.deleteText.run(row.id).changes + statements.deleteQueued.run(row.id).changes;
    messages += sessions.deleteMessages.run(row.id).changes;
    if (sessions.deleteHead.run(row.id).changes > 0) sessionIds.push(row.id);
  }
  textRows += statements.deleteUserText.run(target.userId).changes;
  textRows += statements.deleteUserQueued.run(target.userId).changes;
  const values = statements.deleteUserValues.run(target.userNamespace, target.agentSuffix, target.agentSuffix).changes;
  return { sessionIds, sessions: sessionIds.length, messages, values, sessionValues, vectors, textRows, files: 0 };
}

/** Forgets every session expiring at or before `now` (before their heads are deleted). */
export function forgetExpired(statements: ActiveMemoryStatements, now: number): void {
  for (const row of statements.expiredIds.all(now) as Array<{ id: string }>) forgetSession(statements, row.id);
}

function corrupt(label: DatabaseLabel, what: string): DataError {
  return new DataError('CORRUPT', `${label.store}: ${label.file}: ${what}`, { details: { file: label.file } });
}

/** The values of `ns` (only `keys`, when given), keys ascending. */
export function readValues(
  statements: ActiveMemoryStatements,
  label: DatabaseLabel,
  ns: string,
  keys: readonly string[] | undefined,
): ValueRecord[] {
  // A key SQLite cannot store was never stored: it matches nothing.
  if (!isStorable(ns)) return [];
  const wanted = keys?.filter((key) => isStorable(key));
  if (wanted !== undefined && wanted.length === 0) return [];
  const rows = (
    wanted === undefined ? statements.readValues.all(ns) : statements.readSomeValues.all(ns, JSON.stringify(wanted))
  ) as Array<{ key: unknown; data: unknown }>;
  return rows.map((row) => {
    if (typeof row.key !== 'string' || typeof row.data !== 'string')
      throw corrupt(label, `a value row of namespace ${JSON.stringify(ns)} is not (text, text)`);
    return Object.freeze({ key: row.key, data: row.data });
  });
}

/**
 * A write of values, checked before it is queued (every string must be stored as given) and
 * copied (it runs at the end of the tick, after the caller may have changed the array).
 */
export function checkedValues(
  label: DatabaseLabel,
  ns: string,
  entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
): Array<{ key: string; data: string | null }> {
  assertStorable(ns, 'a value namespace', label);
  return entries.map((entry) => {
    assertStorable(entry.key, 'a value key', label);
    assertStorable(entry.data ?? undefined, 'a value', label);
    return { key: entry.key, data: entry.data };
  });
}

/** Writes and deletes values of `ns` (a later entry for the same key wins). */
export function writeValues(
  statements: ActiveMemoryStatements,
  ns: string,
  entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
  now: number,
): void {
  for (const entry of entries) {
    if (entry.data === null) statements.deleteValue.run(ns, entry.key);
    else statements.putValue.run(ns, entry.key, entry.data, now);
  }
}

/** The best hits of a search; BM25 (lower is better in SQLite) normalized by `relativeScores`. */
export function searchIndex(statements: ActiveMemoryStatements, query: TextSearchQuery): TextSearchHit[] {
  const terms = searchTerms(query.text);
  if (terms.length === 0 || !(query.limit >= 1)) return [];
  if (query.userId !== undefined && !isStorable(query.userId)) return [];
  const match = matchExpression(terms, query.userId);
  const limit = Math.floor(query.limit);
  let rows: Array<{ session_id: string; seq: number; message_id: string; rank: number }>;
  if (query.sessionIds === undefined) {
    rows = statements.search.all(match, query.userId ?? null, limit) as typeof rows;
  } else {
    const ids = query.sessionIds.filter((id) => isStorable(id));
    if (ids.length === 0) return [];
    rows = statements.searchIn.all(match, query.userId ?? null, JSON.stringify(ids), limit) as typeof rows;
  }
  const scores = relativeScores(rows.map((row) => -row.rank));
  return rows.map((row, index) =>
    Object.freeze({
      sessionId: row.session_id,
      seq: row.seq,
      messageId: row.message_id,
      score: scores[index] as number,
    }),
  );
}
