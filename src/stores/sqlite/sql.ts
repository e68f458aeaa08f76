/**
 * The SQL of the SQLite store: the connection shape it needs, its statements, the checked
 * conversion of rows into records, and the translation of SQLite errors into chatstate errors.
 * @module
 */
import {
  ChatstateError,
  CollaboratorError,
  DataError,
  InvalidInputError,
  UnavailableError,
  errorMessage,
} from '../../errors.js';
import { prefixEnd } from '../../store/driver-helpers.js';
import type { DriverListQuery, HeadRecord, MessageRecord } from '../../store/driver-types.js';
import type { DatabaseLabel } from './schema.js';
import { HEAD_COLUMNS } from '../sql-head.js';

/** A prepared statement, by the shape chatstate uses (`better-sqlite3`'s `Statement` has it). */
export interface SqliteStatementLike {
  run(...params: unknown[]): { readonly changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A synchronous SQLite connection, by the shape chatstate uses (`better-sqlite3`'s `Database` has it). */
export interface SqliteDatabaseLike {
  prepare(source: string): SqliteStatementLike;
  exec(source: string): unknown;
  close(): unknown;
  /** The file the connection opened, used in error messages. */
  readonly name?: string;
}

/** Turns any error of the SQLite layer into a chatstate error that names the store. */
export function translateError(error: unknown, label: DatabaseLabel): Error {
  if (ChatstateError.isInstance(error)) return error;
  const raw = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const code = typeof raw === 'string' ? raw : '';
  const message = errorMessage(error);
  const details = { file: label.file, ...(code === '' ? {} : { sqliteCode: code }) };
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new DataError(
      'CORRUPT',
      `${label.store}: the database ${label.file} is damaged (${message}); restore it from a backup`,
      { cause: error, details },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new UnavailableError(
      `${label.store}: ${label.file} stayed locked by another writer past the busy timeout (${message})`,
      { store: label.store, reason: 'LOCKED', outcome: 'not-applied', ...details },
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new InvalidInputError('INVALID_ARGUMENT', `${label.store}: cannot open ${label.file} (${message})`, {
      cause: error,
      details,
    });
  }
  return new CollaboratorError('STORAGE_FAILED', `${label.store}: ${label.file}: ${message}`, {
    cause: error,
    details,
  });
}

function corrupt(label: DatabaseLabel, what: string): DataError {
  return new DataError('CORRUPT', `${label.store}: ${label.file}: ${what}`, { details: { file: label.file } });
}

/** A row of `sessions`, as read (types checked by `headOf`). */
export interface HeadRow {
  id: unknown;
  record_schema: unknown;
  version: unknown;
  agent_id: unknown;
  user_id: unknown;
  created_at: unknown;
  updated_at: unknown;
  expires_at: unknown;
  ttl_ms: unknown;
  message_count: unknown;
  token_count: unknown;
  last_seq: unknown;
  title: unknown;
  data: unknown;
  key_check: unknown;
  kind: unknown;
}

/** A row of `messages`, as read (types checked by `messageOf`). */
export interface MessageRow {
  seq: unknown;
  id: unknown;
  data: unknown;
}

/**
 * A head row as a record; a row of another shape is `CORRUPT`. STRICT tables enforce the types
 * already: the checks stop a file edited by hand, or written by something else, from reaching the
 * core as a record of the wrong shape.
 */
export function headOf(row: HeadRow, label: DatabaseLabel): HeadRecord {
  const where = `the row of session ${JSON.stringify(String(row.id))}`;
  const text = (value: unknown, column: string): string => {
    if (typeof value !== 'string') throw corrupt(label, `${where}: column ${column} is not text`);
    return value;
  };
  const integer = (value: unknown, column: string): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw corrupt(label, `${where}: column ${column} is not a non-negative integer`);
    return value;
  };
  const head: { -readonly [K in keyof HeadRecord]: HeadRecord[K] } = {
    id: text(row.id, 'id'),
    schema: integer(row.record_schema, 'record_schema'),
    version: integer(row.version, 'version'),
    createdAt: text(row.created_at, 'created_at'),
    updatedAt: text(row.updated_at, 'updated_at'),
    messageCount: integer(row.message_count, 'message_count'),
    tokenCount: integer(row.token_count, 'token_count'),
    lastSeq: integer(row.last_seq, 'last_seq'),
    data: text(row.data, 'data'),
  };
  if (row.agent_id !== null) head.agentId = text(row.agent_id, 'agent_id');
  if (row.user_id !== null) head.userId = text(row.user_id, 'user_id');
  if (row.expires_at !== null) head.expiresAt = integer(row.expires_at, 'expires_at');
  if (row.ttl_ms !== null) head.ttlMs = integer(row.ttl_ms, 'ttl_ms');
  if (row.title !== null) head.title = text(row.title, 'title');
  if (row.key_check !== null && row.key_check !== undefined) head.keys = text(row.key_check, 'key_check');
  if (row.kind !== null && row.kind !== undefined) head.kind = text(row.kind, 'kind');
  return Object.freeze(head);
}

/** A message row as a record; a row of another shape is `CORRUPT`. */
export function messageOf(row: MessageRow, sessionId: string, label: DatabaseLabel): MessageRecord {
  if (typeof row.seq !== 'number' || typeof row.id !== 'string' || typeof row.data !== 'string') {
    throw corrupt(
      label,
      `a message row of session ${JSON.stringify(sessionId)} does not have the shape (seq, id, data)`,
    );
  }
  // The row is a fresh object of exactly these three columns, made for this read and handed to the
  // core, which only decodes it: reused as it is, since a copy per message shows in a 100k load.
  return row as MessageRecord;
}

// SQLite stores text as UTF-8: an unpaired surrogate would come back as U+FFFD, a different string,
// and a `list` filter on it would silently stop matching. Refused instead of changed.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when SQLite stores `value` (if any) as exactly this string. */
export function isStorable(value: string | undefined): boolean {
  return value === undefined || !UNPAIRED_SURROGATE.test(value);
}

/** Throws `INVALID_ARGUMENT` when SQLite would store `value` as a different string. */
export function assertStorable(value: string | undefined, what: string, label: DatabaseLabel): void {
  if (!isStorable(value)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${label.store}: ${what} contains an unpaired surrogate, which SQLite text cannot store`,
    );
  }
}

/** The shape of a `list` query, as a number: which of the optional conditions it has. */
function listShape(query: DriverListQuery): number {
  return (
    (query.userId === undefined ? 0 : 1) |
    (query.agentId === undefined ? 0 : 2) |
    (query.after === undefined ? 0 : 4) |
    (query.expired === true ? 8 : 0) |
    (query.idPrefix === undefined ? 0 : 16) |
    (query.kinds === 'conversations' ? 32 : 0) |
    (Array.isArray(query.kinds) ? 64 : 0)
  );
}

/** The `list` statement of `shape` (see `listShape`), whose parameters `listParameters` gives. */
function listSql(shape: number): string {
  const where = [(shape & 8) === 0 ? '(expires_at IS NULL OR expires_at > ?)' : 'expires_at <= ?'];
  if ((shape & 1) !== 0) where.push('user_id = ?');
  if ((shape & 2) !== 0) where.push('agent_id = ?');
  // The cursor, in list order (updated_at DESC, id ASC: not one row-value comparison). The bound on
  // updated_at alone lets the index scan start at the cursor; the OR breaks ties by id.
  if ((shape & 4) !== 0) where.push('updated_at <= ? AND (updated_at < ? OR id > ?)');
  // An id range instead of LIKE: no pattern characters to escape (see `prefixEnd`).
  if ((shape & 16) !== 0) where.push('id >= ? AND id < ?');
  if ((shape & 32) !== 0) where.push('kind IS NULL');
  // The kinds asked for as one JSON array: one statement whatever their number.
  if ((shape & 64) !== 0) where.push('kind IN (SELECT value FROM json_each(?))');
  return `SELECT ${HEAD_COLUMNS} FROM sessions WHERE ${where.join(' AND ')} ORDER BY updated_at DESC, id ASC LIMIT ? OFFSET ?`;
}

/** The parameters of the `list` statement of `query`, in the order `listSql` uses them. */
export function listParameters(query: DriverListQuery): unknown[] {
  const values: unknown[] = [query.now];
  if (query.userId !== undefined) values.push(query.userId);
  if (query.agentId !== undefined) values.push(query.agentId);
  if (query.after !== undefined) values.push(query.after.updatedAt, query.after.updatedAt, query.after.id);
  if (query.idPrefix !== undefined) values.push(query.idPrefix, prefixEnd(query.idPrefix));
  if (Array.isArray(query.kinds)) values.push(JSON.stringify(query.kinds));
  values.push(query.limit, query.offset);
  return values;
}

/** The statements of the driver, prepared once per connection. */
export function prepareStatements(db: SqliteDatabaseLike) {
  // One statement per shape of `list` (128 of them, each prepared when first used), so each can use
  // the index made for it.
  const lists: Array<SqliteStatementLike | undefined> = [];
  const listStatement = (shape: number): SqliteStatementLike => (lists[shape] ??= db.prepare(listSql(shape)));
  return {
    readHead: db.prepare(`SELECT ${HEAD_COLUMNS} FROM sessions WHERE id = ?`),
    // Existence and expiry of a session, for a range read.
    exists: db.prepare(`SELECT expires_at FROM sessions WHERE id = ?`),
    readMessages: db.prepare(`SELECT seq, id, data FROM messages WHERE session_id = ? ORDER BY seq`),
    // What a rewrite compares with the messages it keeps, to see whether it drops any.
    messageKeys: db.prepare(`SELECT seq, id FROM messages WHERE session_id = ?`),
    // Walks the (session_id, seq) key backwards from `beforeSeq`: the last n of a session cost the
    // same at any size. The caller reverses the rows into ascending order.
    readTail: db.prepare(
      `SELECT seq, id, data FROM messages WHERE session_id = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
    ),
    // A user's live sessions for `listMarks`, in list order (`marksOfHeads` says why), along the sessions_by_user index.
    marks: db.prepare(
      `SELECT ${HEAD_COLUMNS} FROM sessions WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY updated_at DESC, id ASC`,
    ),
    // One message by its key, for `readRecordsAt`.
    readAt: db.prepare(`SELECT seq, id, data FROM messages WHERE session_id = ? AND seq = ?`),
    appendHead: db.prepare(`SELECT version, last_seq, user_id, expires_at, key_check FROM sessions WHERE id = ?`),
    // The UNIQUE (session_id, id) index turns an already stored id into "no change": idempotency
    // costs one index probe, not a scan of the session.
    insertMessage: db.prepare(
      `INSERT INTO messages (session_id, seq, id, data) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, id) DO NOTHING`,
    ),
    // The head arithmetic of `appendToHead`, done in place: version + 1, counts, the first title,
    // the commit's head data when it has some, sliding expiry from the new `updated_at`, and the
    // commit's kind when it has one ('' removes it).
    advanceHead:
      db.prepare(`UPDATE sessions SET version = version + 1, updated_at = ?, message_count = message_count + ?,
      token_count = token_count + ?, last_seq = ?, title = COALESCE(title, ?), data = COALESCE(?, data),
      expires_at = CASE WHEN ttl_ms IS NULL THEN expires_at ELSE ? + ttl_ms END, key_check = COALESCE(?, key_check),
      kind = CASE WHEN ? IS NULL THEN kind ELSE NULLIF(?, '') END WHERE id = ?`),
    version: db.prepare(`SELECT version, key_check FROM sessions WHERE id = ?`),
    upsertHead: db.prepare(
      `INSERT OR REPLACE INTO sessions (${HEAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertReplacement: db.prepare(`INSERT INTO messages (session_id, seq, id, data) VALUES (?, ?, ?, ?)`),
    deleteMessages: db.prepare(`DELETE FROM messages WHERE session_id = ?`),
    deleteMessagesAfter: db.prepare(`DELETE FROM messages WHERE session_id = ? AND seq > ?`),
    messageIdBefore: db.prepare(`SELECT seq FROM messages WHERE session_id = ? AND id = ? AND seq <= ?`),
    deleteHead: db.prepare(`DELETE FROM sessions WHERE id = ?`),
    purgeMessages: db.prepare(
      `DELETE FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ?)`,
    ),
    purgeHeads: db.prepare(`DELETE FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ?`),
    // A purge of one namespace: an id range instead of LIKE (see `prefixEnd`).
    expiredIdsUnder: db.prepare(
      `SELECT id FROM sessions WHERE expires_at IS NOT NULL AND expires_at <= ? AND id >= ? AND id < ?`,
    ),
    /** The `list` statement for `query`; run it with `listParameters(query)`. */
    list: (query: DriverListQuery): SqliteStatementLike => listStatement(listShape(query)),
  };
}
