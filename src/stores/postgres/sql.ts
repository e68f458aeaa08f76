/**
 * The SQL of the Postgres store: table names from the caller's schema and prefix, the statements
 * the driver runs, and the checked conversion of rows back into records.
 * @module
 */
import { DataError, InvalidInputError } from '../../errors.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';
import { HEAD_COLUMNS, headValues } from '../sql-head.js';

/** Name of the store in error messages, unless its `name` option gives another. */
export const STORE = 'postgres';

// Schema and prefix are spliced into SQL text (identifiers cannot be bound parameters), so they
// are held to a plain identifier shape: this is what stops SQL injection through them.
const SCHEMA_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
// Short enough that the longest derived name (prefix + "sessions_agent_updated_idx") fits in
// Postgres's 63-byte identifier limit instead of being silently truncated into a collision.
const PREFIX_PATTERN = /^[A-Za-z0-9_]{0,32}$/;

/** The quoted, schema-qualified names of the store's tables, indexes and lock. */
export interface Tables {
  /** Name of the store in error messages. */
  readonly store: string;
  readonly schema: string;
  readonly prefix: string;
  /** `"schema"."prefix" + name`, ready to splice into SQL. */
  readonly sessions: string;
  readonly messages: string;
  /** Active memory's values, by namespace and key. */
  readonly values: string;
  /** The full-text index of message text (one tsvector per indexed message). */
  readonly search: string;
  readonly versions: string;
  /** Unqualified, unquoted name of the version table (for `to_regclass`). */
  readonly versionsRegclass: string;
  /** Quoted, unqualified name for an index or constraint. */
  readonly local: (name: string) => string;
}

function quote(identifier: string): string {
  return `"${identifier}"`;
}

/** Table names for `schema` and `prefix` of store `store`; throws `INVALID_ARGUMENT` on anything that is not a plain identifier. */
export function tablesFor(schema: string, prefix: string, store: string = STORE): Tables {
  if (typeof schema !== 'string' || !SCHEMA_PATTERN.test(schema)) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: schema must match ${SCHEMA_PATTERN.source}`);
  }
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: tablePrefix must match ${PREFIX_PATTERN.source}`);
  }
  const qualified = (name: string): string => `${quote(schema)}.${quote(prefix + name)}`;
  return {
    store,
    schema,
    prefix,
    sessions: qualified('sessions'),
    messages: qualified('messages'),
    values: qualified('values'),
    search: qualified('message_search'),
    versions: qualified('schema_version'),
    versionsRegclass: `${quote(schema)}.${quote(`${prefix}schema_version`)}`,
    local: (name) => quote(prefix + name),
  };
}

/** Columns of a head row, in the order the statements below use. */
export { HEAD_COLUMNS, headValues };

/** The statements of one store, for its tables. */
export function statements(tables: Tables) {
  const { sessions, messages } = tables;
  return {
    readHead: `SELECT ${HEAD_COLUMNS} FROM ${sessions} WHERE id = $1`,
    lockHead: `SELECT ${HEAD_COLUMNS} FROM ${sessions} WHERE id = $1 FOR UPDATE`,
    readMessages: `SELECT seq, id, data FROM ${messages} WHERE session_id = $1 ORDER BY seq`,
    // One statement, so existence and range come from one snapshot; the lateral subquery walks the
    // (session_id, seq) primary key backwards, so a tail read costs the same at any session size.
    // $5, the core's clock (or NULL): an expired session reads as absent, in the same snapshot.
    readRange: `SELECT m.seq, m.id, m.data FROM ${sessions} s LEFT JOIN LATERAL (
        SELECT seq, id, data FROM ${messages}
        WHERE session_id = s.id AND seq > $2 AND seq < $3 ORDER BY seq DESC LIMIT $4
      ) m ON true WHERE s.id = $1 AND (s.expires_at IS NULL OR $5::bigint IS NULL OR s.expires_at > $5::bigint)`,
    // The messages at (session, seq) refs, each by the primary key, in one snapshot; $3 the core's clock.
    readAt: `SELECT r.i::int AS i, m.seq, m.id, m.data
      FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS r(session_id, seq, i)
      JOIN ${sessions} s ON s.id = r.session_id AND (s.expires_at IS NULL OR s.expires_at > $3::bigint)
      JOIN ${messages} m ON m.session_id = r.session_id AND m.seq = r.seq`,
    // A user's live sessions for `listMarks`, in list order (`marksOfHeads` says why), along the user index.
    marks: `SELECT ${HEAD_COLUMNS} FROM ${sessions} WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > $2)
      ORDER BY updated_at DESC, id ASC`,
    knownIds: `SELECT id FROM ${messages} WHERE session_id = $1 AND id = ANY($2::text[])`,
    insertMessages: `INSERT INTO ${messages} (session_id, seq, id, data)
      SELECT $1, seq, id, data FROM unnest($2::bigint[], $3::text[], $4::text[]) AS batch(seq, id, data)`,
    appendHead: `UPDATE ${sessions} SET version = $2, updated_at = $3, expires_at = $4, message_count = $5,
      token_count = $6, last_seq = $7, title = $8, data = $9, key_check = $10, kind = $11 WHERE id = $1`,
    insertHead: `INSERT INTO ${sessions} (${HEAD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
      ON CONFLICT (id) DO NOTHING`,
    replaceHead: `UPDATE ${sessions} SET record_schema = $2, version = $3, agent_id = $4, user_id = $5, created_at = $6,
      updated_at = $7, expires_at = $8, ttl_ms = $9, message_count = $10, token_count = $11, last_seq = $12, title = $13,
      data = $14, key_check = $15, kind = $16 WHERE id = $1`,
    deleteMessages: `DELETE FROM ${messages} WHERE session_id = $1`,
    deleteMessagesAfter: `DELETE FROM ${messages} WHERE session_id = $1 AND seq > $2`,
    keptIds: `SELECT id FROM ${messages} WHERE session_id = $1 AND seq <= $2 AND id = ANY($3::text[]) LIMIT 1`,
    remove: `DELETE FROM ${sessions} WHERE id = $1`,
    purgeExpired: `DELETE FROM ${sessions} WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING id`,
    // One namespace: an id range instead of LIKE, whose `_` and `%` would match other ids (ids sort by bytes, COLLATE "C").
    purgeExpiredUnder: `DELETE FROM ${sessions} WHERE expires_at IS NOT NULL AND expires_at <= $1 AND id >= $2 AND id < $3 RETURNING id`,
    /**
     * `list`, with its conditions chosen so each shape of query can use its own index. Parameters:
     * now, limit, offset, then userId, agentId, the cursor's updatedAt and id, the id prefix's
     * range, and the kinds (a text array), those present.
     */
    list(filter: {
      userId: boolean;
      agentId: boolean;
      after: boolean;
      expired: boolean;
      idPrefix: boolean;
      /** Conversations only (`kind IS NULL`), the kinds of an array parameter, or every session. */
      kinds: 'conversations' | 'some' | 'all';
    }): string {
      const where = [filter.expired ? 'expires_at <= $1' : '(expires_at IS NULL OR expires_at > $1)'];
      let next = 4;
      if (filter.userId) where.push(`user_id = $${next++}`);
      if (filter.agentId) where.push(`agent_id = $${next++}`);
      if (filter.after) {
        // List order is updated_at DESC, id ASC: no single row comparison. The bound on updated_at
        // alone is an index condition (the scan starts at the cursor); the OR breaks ties by id.
        const [updatedAt, id] = [next++, next++];
        where.push(`updated_at <= $${updatedAt} AND (updated_at < $${updatedAt} OR id > $${id})`);
      }
      if (filter.idPrefix) {
        // An id range instead of LIKE: no pattern characters to escape (ids sort by bytes, COLLATE "C").
        const [from, to] = [next++, next++];
        where.push(`id >= $${from} AND id < $${to}`);
      }
      if (filter.kinds === 'conversations') where.push('kind IS NULL');
      if (filter.kinds === 'some') where.push(`kind = ANY($${next++}::text[])`);
      return `SELECT ${HEAD_COLUMNS} FROM ${sessions} WHERE ${where.join(' AND ')} ORDER BY updated_at DESC, id ASC LIMIT $2 OFFSET $3`;
    },
  };
}

/** The statements of one store. */
export type Statements = ReturnType<typeof statements>;

/** Where a row came from, for its `CORRUPT` errors: the store's name and the row's description. */
interface RowPlace {
  readonly store: string;
  readonly where: string;
}

function corrupt(place: RowPlace, what: string): DataError {
  return new DataError('CORRUPT', `${place.store}: ${place.where}${what}`);
}

function field(row: unknown, column: string, place: RowPlace): unknown {
  if (typeof row !== 'object' || row === null) throw corrupt(place, ' is not a row');
  return (row as Record<string, unknown>)[column];
}

function text(row: unknown, column: string, place: RowPlace): string {
  const value = field(row, column, place);
  if (typeof value !== 'string') throw corrupt(place, `: column ${column} is not text`);
  return value;
}

function optionalText(row: unknown, column: string, place: RowPlace): string | undefined {
  return field(row, column, place) === null ? undefined : text(row, column, place);
}

// int8 columns arrive as strings (pg does not turn them into numbers, since they may exceed 2^53).
function integer(row: unknown, column: string, place: RowPlace): number {
  const value = field(row, column, place);
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?\d{1,16}$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 0)
    throw corrupt(place, `: column ${column} is ${JSON.stringify(value)}, not a non-negative integer`);
  return number;
}

function optionalInteger(row: unknown, column: string, place: RowPlace): number | undefined {
  return field(row, column, place) === null ? undefined : integer(row, column, place);
}

/** A head row of store `store` as a record; a row that does not have the record's shape is `CORRUPT`. */
export function headOf(row: unknown, store: string): HeadRecord {
  const id = text(row, 'id', { store, where: 'a session row' });
  const where: RowPlace = { store, where: `the row of session ${JSON.stringify(id)}` };
  const agentId = optionalText(row, 'agent_id', where);
  const userId = optionalText(row, 'user_id', where);
  const expiresAt = optionalInteger(row, 'expires_at', where);
  const ttlMs = optionalInteger(row, 'ttl_ms', where);
  const title = optionalText(row, 'title', where);
  const keys = optionalText(row, 'key_check', where);
  const kind = optionalText(row, 'kind', where);
  return Object.freeze({
    id,
    schema: integer(row, 'record_schema', where),
    version: integer(row, 'version', where),
    ...(agentId === undefined ? {} : { agentId }),
    ...(userId === undefined ? {} : { userId }),
    ...(kind === undefined ? {} : { kind }),
    createdAt: text(row, 'created_at', where),
    updatedAt: text(row, 'updated_at', where),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(ttlMs === undefined ? {} : { ttlMs }),
    messageCount: integer(row, 'message_count', where),
    tokenCount: integer(row, 'token_count', where),
    lastSeq: integer(row, 'last_seq', where),
    ...(title === undefined ? {} : { title }),
    data: text(row, 'data', where),
    ...(keys === undefined ? {} : { keys }),
  });
}

/** A message row of store `store` as a record. */
export function messageOf(row: unknown, sessionId: string, store: string): MessageRecord {
  const where: RowPlace = { store, where: `a message row of session ${JSON.stringify(sessionId)}` };
  return Object.freeze({ seq: integer(row, 'seq', where), id: text(row, 'id', where), data: text(row, 'data', where) });
}

// Postgres text cannot hold NUL, and the client encodes an unpaired surrogate as U+FFFD: either
// would store something other than what was given. Refused instead of changed silently.
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `value` (if any) can be stored in a text column exactly. */
export function isStorable(value: string | undefined): boolean {
  return value === undefined || !UNSTORABLE.test(value);
}

/** Throws `INVALID_ARGUMENT` naming store `store` when `value` cannot be stored in a text column exactly. */
export function assertStorable(value: string | undefined, what: string, store: string): void {
  if (!isStorable(value)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: ${what} contains a NUL character or an unpaired surrogate, which Postgres text cannot store`,
    );
  }
}
