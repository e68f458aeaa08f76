/**
 * Schema migrations of the Postgres store: numbered steps, applied once each, in one transaction
 * held under an advisory lock so that processes opening the store at the same time never race.
 * @module
 */
import { createHash } from 'node:crypto';
import { DataError } from '../../errors.js';
import type { Tables } from './sql.js';
import type { PgClientLike } from './driver.js';

/** One step of the schema: its number and the statements that take the tables to it. */
interface Migration {
  readonly version: number;
  readonly statements: (tables: Tables) => string[];
}

// Text columns that are compared or sorted use the "C" collation, so that Postgres orders them by
// code point exactly as the other stores do, whatever the database's locale.
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (t) => [
      `CREATE TABLE ${t.sessions} (
        id text COLLATE "C" PRIMARY KEY,
        record_schema integer NOT NULL,
        version bigint NOT NULL,
        agent_id text COLLATE "C",
        user_id text COLLATE "C",
        created_at text NOT NULL,
        updated_at text COLLATE "C" NOT NULL,
        expires_at bigint,
        ttl_ms bigint,
        message_count bigint NOT NULL,
        token_count bigint NOT NULL,
        last_seq bigint NOT NULL,
        title text,
        data text NOT NULL
      )`,
      `CREATE TABLE ${t.messages} (
        session_id text COLLATE "C" NOT NULL REFERENCES ${t.sessions} (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        id text COLLATE "C" NOT NULL,
        data text NOT NULL,
        CONSTRAINT ${t.local('messages_pkey')} PRIMARY KEY (session_id, seq),
        CONSTRAINT ${t.local('messages_id_key')} UNIQUE (session_id, id)
      )`,
      // One index per shape of `list` (all, by user, by agent), in its sort order.
      `CREATE INDEX ${t.local('sessions_updated_idx')} ON ${t.sessions} (updated_at DESC, id)`,
      `CREATE INDEX ${t.local('sessions_user_updated_idx')} ON ${t.sessions} (user_id, updated_at DESC, id)`,
      `CREATE INDEX ${t.local('sessions_agent_updated_idx')} ON ${t.sessions} (agent_id, updated_at DESC, id)`,
      `CREATE INDEX ${t.local('sessions_expires_idx')} ON ${t.sessions} (expires_at) WHERE expires_at IS NOT NULL`,
    ],
  },
  {
    // Active memory. Only new tables: the rows of version 1 stay as they are. Messages stored before
    // this step have no text in the index (the driver never sees their plain text) until their
    // session is saved again.
    version: 2,
    statements: (t) => [
      // Namespaces and keys in "C" order: a session's namespaces are one key range (see sessionNamespaces).
      `CREATE TABLE ${t.values} (
        ns text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        data text NOT NULL,
        updated_at bigint NOT NULL,
        CONSTRAINT ${t.local('values_pkey')} PRIMARY KEY (ns, key)
      )`,
      // A table of its own rather than a column of messages: full loads keep reading narrow rows.
      // user_id is the session's, copied so a search filters on it without a join; a replace
      // rewrites the session's rows, and deleting the session deletes them.
      `CREATE TABLE ${t.search} (
        session_id text COLLATE "C" NOT NULL REFERENCES ${t.sessions} (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        message_id text COLLATE "C" NOT NULL,
        user_id text COLLATE "C",
        body tsvector NOT NULL,
        CONSTRAINT ${t.local('message_search_pkey')} PRIMARY KEY (session_id, seq)
      )`,
      // The planner picks the text index for rare words, the user index for a user with few
      // messages, or both (BitmapAnd).
      `CREATE INDEX ${t.local('message_search_body_idx')} ON ${t.search} USING gin (body)`,
      `CREATE INDEX ${t.local('message_search_user_idx')} ON ${t.search} (user_id)`,
    ],
  },
  {
    // The key check of encryption at rest (see store/key-check.ts). NULL for the sessions of
    // version 2: the next write by a store with a key sets it. No rewrite of the table.
    version: 3,
    statements: (t) => [`ALTER TABLE ${t.sessions} ADD COLUMN key_check text`],
  },
  {
    // The session's kind (see store/session-kind.ts), which `list` filters on. NULL for the
    // sessions of version 3 (conversations): the next save of an internal one sets it. No rewrite.
    version: 4,
    statements: (t) => [`ALTER TABLE ${t.sessions} ADD COLUMN kind text COLLATE "C"`],
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** A 64-bit advisory lock key for these tables (as a decimal string for a `bigint` parameter). */
export function lockKey(tables: Tables): string {
  const digest = createHash('sha256').update(`chatstate\n${tables.schema}\n${tables.prefix}`).digest();
  return digest.readBigInt64BE(0).toString();
}

async function installedVersion(client: PgClientLike, tables: Tables): Promise<number | undefined> {
  const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [tables.versionsRegclass]);
  if ((exists.rows[0] as { present?: unknown } | undefined)?.present !== true) return undefined;
  const result = await client.query(`SELECT coalesce(max(version), 0) AS version FROM ${tables.versions}`);
  return Number((result.rows[0] as { version?: unknown } | undefined)?.version ?? 0);
}

function tooNew(store: string, installed: number): DataError {
  return new DataError(
    'CORRUPT',
    `${store}: the tables are at schema version ${installed}, written by a newer chatstate; this one knows up to ${SCHEMA_VERSION}. Upgrade chatstate.`,
    { details: { installed, known: SCHEMA_VERSION } },
  );
}

/**
 * Brings the tables to `SCHEMA_VERSION`. Up-to-date tables cost one read and no DDL (so a role
 * without CREATE rights can use tables made by another); otherwise every missing step runs in one
 * transaction under an advisory lock, so a second process waits and then finds the work done.
 */
export async function migrate(client: PgClientLike, tables: Tables): Promise<void> {
  const seen = await installedVersion(client, tables);
  if (seen === SCHEMA_VERSION) return;
  if (seen !== undefined && seen > SCHEMA_VERSION) throw tooNew(tables.store, seen);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(tables)]);
    const schema = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [tables.schema]);
    // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE right even when the schema exists.
    if (schema.rows.length === 0) await client.query(`CREATE SCHEMA "${tables.schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${tables.versions} (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const installed = (await installedVersion(client, tables)) ?? 0;
    if (installed > SCHEMA_VERSION) throw tooNew(tables.store, installed);
    for (const migration of MIGRATIONS) {
      if (migration.version <= installed) continue;
      for (const statement of migration.statements(tables)) await client.query(statement);
      await client.query(`INSERT INTO ${tables.versions} (version) VALUES ($1)`, [migration.version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
