/**
 * The Python SDK's `SQLiteSession` database: one session per `session_id` (from the items table,
 * and the sessions table when it has one: either may lack the other's rows), items in `id` order
 * (the index before 2026-01 ordered by `created_at`), row times read as UTC. A row that is not JSON
 * is a problem with its row id (the SDK skips it) and its text is kept; an encrypted session
 * (`EncryptedSession`) is refused whole.
 * @module
 */
import { ChatstateError, InvalidInputError, errorMessage } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { sessionIdOr } from '../build.js';
import { derivedMessageId } from '../import-ids.js';
import { isObject, parseJson } from '../json-text.js';
import { columnText, openSourceDatabase, sourceError, tableNames, type SourceDatabase } from '../sqlite-source.js';
import { readTimestamp } from '../timestamps.js';
import type { ImportItem, ImportOptions, SourcePlace } from '../types.js';
import type { SourceItem } from './items.js';
import { sessionItems } from './session.js';

const SYSTEM = 'openai-agents';

/** The tables of a `SQLiteSession` database (its constructor's `sessions_table` and `messages_table`). */
export interface AgentsTables {
  readonly sessions: string;
  readonly messages: string;
}

/** `CURRENT_TIMESTAMP`'s `2026-08-22 10:15:00`, which is UTC without saying so (Date.parse would read it as local). */
function utcOf(value: unknown): string | undefined {
  return typeof value === 'string' ? readTimestamp(value, 'UTC')?.iso : undefined;
}

interface MessageRow {
  readonly id: number;
  readonly message_data: unknown;
  readonly created_at: unknown;
}

/** An `EncryptedSession` envelope: chatstate cannot decrypt it. */
function isEncrypted(value: unknown): boolean {
  return isObject(value) && value['__enc__'] !== undefined && typeof value['payload'] === 'string';
}

/** One session of a Python `SQLiteSession` database, as import items. */
function readSqliteSession(
  db: SourceDatabase,
  path: string,
  sessionKey: string,
  tables: { sessions: string | undefined; messages: string },
): ImportItem[] {
  const head =
    tables.sessions === undefined
      ? undefined
      : (db.prepare(`SELECT created_at, updated_at FROM "${tables.sessions}" WHERE session_id = ?`).get(sessionKey) as
          { created_at: unknown; updated_at: unknown } | undefined);
  const rows = db
    .prepare(`SELECT id, message_data, created_at FROM "${tables.messages}" WHERE session_id = ? ORDER BY id ASC`)
    .all(sessionKey) as MessageRow[];
  const sessionId = sessionIdOr(sessionKey, sessionKey).id;
  const rowPlace = (id: number): SourcePlace => ({ path, record: `${tables.messages}:${id}` });
  const out: ImportItem[] = [];
  const items: SourceItem[] = [];
  const unreadable: JsonValue[] = [];
  for (const row of rows) {
    const text = columnText(row.message_data);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (parsed === undefined || !parsed.ok) {
      // The SDK skips such a row; it is reported with its id and its text kept.
      out.push({
        kind: 'problem',
        code: 'CORRUPT',
        message: `row ${row.id} of session ${JSON.stringify(sessionKey)}: message_data is ${parsed === undefined ? 'not text' : `not JSON (${parsed.problem.message})`}`,
        source: rowPlace(row.id),
      });
      unreadable.push({ row: row.id, text: text ?? null });
      continue;
    }
    if (isEncrypted(parsed.value))
      return [
        {
          kind: 'problem',
          code: 'UNSUPPORTED',
          message: `session ${JSON.stringify(sessionKey)} is encrypted (EncryptedSession, row ${row.id}); chatstate cannot decrypt it: export it decrypted with the SDK first`,
          source: { path, record: sessionKey },
        },
      ];
    // A row without a readable time takes the time of the row before it (or the session's start).
    const timestamp = utcOf(row.created_at) ?? items.at(-1)?.timestamp ?? utcOf(head?.created_at);
    items.push({
      value: parsed.value,
      fallbackId: derivedMessageId(sessionId, `row${row.id}`),
      ...(timestamp === undefined ? {} : { timestamp }),
      where: `row ${row.id}`,
    });
  }
  const byWhere = new Map(rows.map((row) => [`row ${row.id}`, row.id]));
  const first = items[0]?.timestamp;
  const last = items.at(-1)?.timestamp;
  const createdAt = utcOf(head?.created_at) ?? first ?? last;
  const updatedAt = utcOf(head?.updated_at) ?? last ?? createdAt;
  if (createdAt === undefined || updatedAt === undefined) {
    out.push({
      kind: 'problem',
      code: 'CORRUPT',
      message: `session ${JSON.stringify(sessionKey)} has no readable created_at anywhere`,
      source: { path, record: sessionKey },
    });
    return out;
  }
  const imported: JsonObject = {
    from: SYSTEM,
    format: 'python-sqlite',
    sessionId: sessionKey,
    table: tables.messages,
    ...(head === undefined ? { note: `no row in ${tables.sessions ?? 'the sessions table'}` } : {}),
  };
  out.push(
    ...sessionItems({
      key: sessionKey,
      items,
      createdAt,
      updatedAt: updatedAt < createdAt ? createdAt : updatedAt,
      imported,
      unreadable,
      source: { path, record: sessionKey },
      placeOf: (item) => rowPlace(byWhere.get(item.where) ?? 0),
    }),
  );
  return out;
}

/** Every session of the database at `path`, one at a time. */
export async function* readDatabase(
  path: string,
  tables: AgentsTables,
  options: ImportOptions,
): AsyncGenerator<ImportItem> {
  const db = await openSourceDatabase(path, SYSTEM);
  try {
    let keys: string[];
    let sessions: string | undefined;
    try {
      const names = tableNames(db);
      if (!names.has(tables.messages))
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          `${SYSTEM}: ${path} is not an Agents SQLiteSession database (it has no ${tables.messages} table)`,
          { details: { path } },
        );
      sessions = names.has(tables.sessions) ? tables.sessions : undefined;
      // Sessions may have items without a session row, or a row without items.
      const sql =
        sessions === undefined
          ? `SELECT DISTINCT session_id FROM "${tables.messages}" ORDER BY session_id`
          : `SELECT session_id FROM "${tables.messages}" UNION SELECT session_id FROM "${sessions}" ORDER BY session_id`;
      keys = (db.prepare(sql).all() as { session_id: unknown }[]).map((row) => String(row.session_id));
    } catch (error) {
      throw sourceError(error, SYSTEM, path);
    }
    for (const key of keys) {
      if (options.signal?.aborted === true) return;
      try {
        yield* readSqliteSession(db, path, key, { sessions, messages: tables.messages });
      } catch (error) {
        yield {
          kind: 'problem',
          code: ChatstateError.isInstance(error) ? error.code : 'CORRUPT',
          message: `session ${JSON.stringify(key)}: ${errorMessage(error)}`,
          source: { path, record: key },
        };
      }
    }
  } finally {
    db.close();
  }
}
