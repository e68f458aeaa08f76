/**
 * The SQLite store's schema: connection settings, the numbered migrations, and the check that
 * runs them once, in one write transaction, when a database is opened.
 * @module
 */
import { DataError, InvalidInputError } from '../../errors.js';
import type { SqliteDatabaseLike } from './sql.js';

// STRICT tables make SQLite refuse a value of the wrong type instead of storing it, so a row read
// back always has the types the driver wrote. Text compares with BINARY collation (code-point
// order), the order the other stores sort ids and timestamps in.
const MIGRATIONS: readonly (readonly string[])[] = [
  // 0 → 1
  [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID`,
    // A rowid table: `data` may be large, and WITHOUT ROWID suits only small rows.
    `CREATE TABLE sessions (
      id TEXT PRIMARY KEY NOT NULL,
      record_schema INTEGER NOT NULL,
      version INTEGER NOT NULL,
      agent_id TEXT,
      user_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      expires_at INTEGER,
      ttl_ms INTEGER,
      message_count INTEGER NOT NULL,
      token_count INTEGER NOT NULL,
      last_seq INTEGER NOT NULL,
      title TEXT,
      data TEXT NOT NULL
    ) STRICT`,
    // Clustered by (session_id, seq): a session's messages sit together in key order, so a full
    // load reads consecutive pages and a tail read walks the key backwards, with no second lookup.
    // UNIQUE (session_id, id) is what makes an append idempotent by message id.
    `CREATE TABLE messages (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      id TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (session_id, seq),
      UNIQUE (session_id, id)
    ) STRICT, WITHOUT ROWID`,
    // One index per shape of `list` (all, by user, by agent), in its sort order, and one for expiry.
    `CREATE INDEX sessions_by_activity ON sessions (updated_at DESC, id)`,
    `CREATE INDEX sessions_by_user ON sessions (user_id, updated_at DESC, id) WHERE user_id IS NOT NULL`,
    `CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC, id) WHERE agent_id IS NOT NULL`,
    `CREATE INDEX sessions_by_expiry ON sessions (expires_at) WHERE expires_at IS NOT NULL`,
  ],
  // 1 → 2: active memory. Only new tables: the rows of version 1 stay as they are. Messages stored
  // before this step have no text in the index (the driver never sees their plain text) until
  // their session is saved again.
  [
    // Values by namespace and key. A rowid table: a value (an embedding, say) may be large.
    `CREATE TABLE memory_values (
      ns TEXT NOT NULL,
      key TEXT NOT NULL,
      data TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (ns, key)
    ) STRICT`,
    // One row per indexed message: where it is and whose it is. Its rowid is the message's rowid in
    // message_fts, which holds only the index (contentless: the text is not stored twice).
    `CREATE TABLE message_text (
      rowid INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      message_id TEXT NOT NULL,
      user_id TEXT,
      UNIQUE (session_id, seq)
    ) STRICT`,
    // body: the message's text; owner: one token naming the user (see ownerToken), so a user's
    // search intersects posting lists in the index instead of ranking every user's matches.
    // porter over unicode61: case and diacritics folded, English words stemmed (as Postgres's
    // 'english' configuration does); contentless_delete (SQLite 3.43) lets rows be deleted by rowid.
    `CREATE VIRTUAL TABLE message_fts USING fts5(body, owner, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`,
    // Index rows never outlive their message_text row, whoever deletes it.
    `CREATE TRIGGER message_text_deleted AFTER DELETE ON message_text BEGIN DELETE FROM message_fts WHERE rowid = old.rowid; END`,
  ],
  // 2 → 3: the index queue. FTS5 writes a new segment at every commit that touches it (and merges
  // segments every few commits): indexed at once, a message doubled its append's pages and CPU. An
  // append queues its text here instead (one row on the table's last page), and the driver moves
  // the queue into message_text and message_fts in batches (see active-memory-sql.ts). A rowid table:
  // rowids ascend with insertion, so the queue is read in append order.
  [
    `CREATE TABLE message_text_queue (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      message_id TEXT NOT NULL,
      user_id TEXT,
      body TEXT NOT NULL
    ) STRICT`,
  ],
  // 3 → 4: the key check of encryption at rest (see store/key-check.ts). NULL for the sessions of
  // version 3: the next write by a store with a key sets it.
  [`ALTER TABLE sessions ADD COLUMN key_check TEXT`],
  // 4 → 5: the session's kind (see store/session-kind.ts), which `list` filters on. NULL for the
  // sessions of version 4 (conversations): the next save of an internal one sets it.
  [`ALTER TABLE sessions ADD COLUMN kind TEXT`],
];

/** Pages of write-ahead log that trigger a checkpoint (see `prepareDatabase`). */
export const WAL_CHECKPOINT_PAGES = 4000;
/** Bytes a restarted write-ahead log is cut back to (see `prepareDatabase`). */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** The schema version this code writes. */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

/** Where the database is, for messages: the store's name and the file. */
export interface DatabaseLabel {
  readonly store: string;
  readonly file: string;
}

function tables(db: SqliteDatabaseLike): Set<string> {
  const rows = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name?: unknown }>;
  return new Set(rows.map((row) => String(row.name)));
}

/** The installed schema version: 0 for an empty database. */
function installedVersion(db: SqliteDatabaseLike, label: DatabaseLabel): number {
  const present = tables(db);
  if (!present.has('meta')) {
    // Tables of these names that chatstate did not create belong to someone else: writing into
    // them (or beside them) would damage another application's data.
    for (const name of ['sessions', 'messages', 'memory_values', 'message_text', 'message_fts', 'message_text_queue']) {
      if (present.has(name)) {
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          `${label.store}: ${label.file} has a "${name}" table that chatstate did not create; use a database file of its own`,
          { details: { file: label.file, table: name } },
        );
      }
    }
    return 0;
  }
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value?: unknown } | undefined;
  const version = Number(row?.value);
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new DataError(
      'CORRUPT',
      `${label.store}: ${label.file} has no valid schema version (meta.schema = ${JSON.stringify(row?.value ?? null)})`,
      {
        details: { file: label.file },
      },
    );
  }
  return version;
}

function tooNew(installed: number, label: DatabaseLabel): DataError {
  return new DataError(
    'CORRUPT',
    `${label.store}: ${label.file} is at schema version ${installed}, written by a newer chatstate; this one knows up to ${SQLITE_SCHEMA_VERSION}. Upgrade chatstate.`,
    { details: { file: label.file, installed, known: SQLITE_SCHEMA_VERSION } },
  );
}

/**
 * Active memory's index needs FTS5 with `contentless_delete` (SQLite 3.43). better-sqlite3 12.x
 * bundles both; a connection built on an older SQLite, or one without FTS5, is refused with the
 * reason instead of failing at its first search.
 */
function assertFullTextSearch(db: SqliteDatabaseLike, label: DatabaseLabel): void {
  const row = db
    .prepare(
      `SELECT sqlite_version() AS version, EXISTS (SELECT 1 FROM pragma_module_list WHERE name = 'fts5') AS fts5`,
    )
    .get() as { version?: unknown; fts5?: unknown } | undefined;
  const version = String(row?.version ?? '');
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const recent = major > 3 || (major === 3 && minor >= 43);
  if (recent && row?.fts5 === 1) return;
  throw new InvalidInputError(
    'MISSING_DEPENDENCY',
    `${label.store}: the connection to ${label.file} runs SQLite ${version}${row?.fts5 === 1 ? '' : ' without FTS5'}; chatstate needs SQLite 3.43 or later with FTS5 (better-sqlite3 12.x bundles it)`,
    { details: { file: label.file, sqliteVersion: version } },
  );
}

/**
 * Sets up a connection and brings its database to `SQLITE_SCHEMA_VERSION`.
 *
 * - `busy_timeout`: a writer waits this long for another process's write lock instead of failing.
 * - `journal_mode = WAL`: readers never block the writer and a commit is one append to the log.
 * - `synchronous = FULL`: the log is fsynced at every commit, so an acknowledged write survives a
 *   power cut, not only a process crash (NORMAL would lose the last commits).
 * - `wal_autocheckpoint`: the log is copied into the database every `WAL_CHECKPOINT_PAGES` pages
 *   instead of SQLite's 1000. Most of a checkpoint's cost is fixed (the database file's fsync, a
 *   few milliseconds here), and pages rewritten by many commits (heads, indexes) are copied once
 *   per checkpoint: measured on appends, the checkpoints' share fell from 25–60 µs to 6–15 µs per
 *   append. Readers and recovery after a crash read a log of up to about 16 MiB.
 * - `journal_size_limit`: a log grown past `WAL_SIZE_LIMIT` bytes (by a large save) is cut back to
 *   it when it restarts; below it the file is kept, so commits overwrite allocated blocks.
 * - `secure_delete`: deleted and overwritten content is zeroed, on every write, not only in
 *   `forgetUser`: otherwise the old versions of rows (a head rewritten by each append, messages a
 *   save replaced, indexed text leaving its queue) stay in free space of live pages and in free
 *   pages, and a forgotten user's text can still be read in the file. Measured on appends and
 *   deletes here: no difference beside the fsyncs.
 *
 * An up-to-date database costs one read; otherwise the missing steps run in one `BEGIN IMMEDIATE`
 * transaction, so two processes opening a new file at once never both create the tables, and a
 * crash in the middle leaves the database as it was.
 */
export function prepareDatabase(db: SqliteDatabaseLike, label: DatabaseLabel, busyTimeoutMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
  db.exec('PRAGMA secure_delete = ON');
  assertFullTextSearch(db, label);
  const seen = installedVersion(db, label);
  if (seen === SQLITE_SCHEMA_VERSION) return;
  if (seen > SQLITE_SCHEMA_VERSION) throw tooNew(seen, label);
  db.exec('BEGIN IMMEDIATE');
  try {
    // Read again under the write lock: another process may have migrated in the meantime.
    const installed = installedVersion(db, label);
    if (installed > SQLITE_SCHEMA_VERSION) throw tooNew(installed, label);
    for (let version = installed; version < SQLITE_SCHEMA_VERSION; version += 1) {
      for (const statement of MIGRATIONS[version] ?? []) db.exec(statement);
    }
    db.prepare(
      `INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ).run(String(SQLITE_SCHEMA_VERSION));
    db.exec('COMMIT');
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (it does on some I/O errors); the first error is the one to report.
    }
    throw error;
  }
}
