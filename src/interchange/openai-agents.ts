/**
 * The OpenAI Agents importer (`import --from openai-agents`): the Python SDK's `SQLiteSession`
 * database (tables `agent_sessions` and `agent_messages`, one session per `session_id`, items in
 * `id` order), or a JSON array of the JS SDK's `AgentInputItem`s (one session, named after the
 * file). A database is told from a JSON file by its first bytes. Rows or items that cannot be read
 * are problems with their row id or line, and the rest of their session is imported.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ChatstateError, InvalidInputError, errorMessage } from '../errors.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import { materialize, sessionIdOr, sessionItem } from './build.js';
import { derivedMessageId, uniqueMessageIds } from './import-ids.js';
import { isObject, lineAt, parseJson } from './json-text.js';
import { mapItems, type SourceItem } from './openai-agents-items.js';
import {
  columnText,
  isSqliteFile,
  openSourceDatabase,
  sourceError,
  tableNames,
  type SourceDatabase,
} from './sqlite-source.js';
import { readTimestamp } from './timestamps.js';
import type { ImportItem, ImportOptions, ImportRepair, Importer, SourcePlace } from './types.js';

const SYSTEM = 'openai-agents';

/** Options of `openaiAgentsImporter`. */
export interface OpenaiAgentsImporterOptions {
  /** The sessions table (`SQLiteSession`'s `sessions_table`). @default 'agent_sessions' */
  readonly sessionsTable?: string;
  /** The items table (`SQLiteSession`'s `messages_table`). @default 'agent_messages' */
  readonly messagesTable?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function checkTable(name: string | undefined, fallback: string, option: string): string {
  const table = name ?? fallback;
  if (typeof table !== 'string' || !IDENTIFIER.test(table))
    throw new InvalidInputError('INVALID_ARGUMENT', `${SYSTEM}: ${option} must be a plain SQL table name`);
  return table;
}

/** `CURRENT_TIMESTAMP`'s `2026-08-22 10:15:00`, which is UTC without saying so (Date.parse would read it as local). */
function utcOf(value: unknown): string | undefined {
  return typeof value === 'string' ? readTimestamp(value, 'UTC')?.iso : undefined;
}

/** Everything a session of either source needs once its items are read. */
interface ItemsSession {
  readonly key: string;
  readonly items: readonly SourceItem[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly imported: JsonObject;
  /** Text of items that were not JSON, kept verbatim. */
  readonly unreadable: readonly JsonValue[];
  readonly source: SourcePlace;
  /** The place of one item, for its problem. */
  placeOf(item: SourceItem): SourcePlace;
}

function* sessionItems(read: ItemsSession): Generator<ImportItem> {
  const mapped = mapItems(read.items);
  for (const problem of mapped.problems)
    yield { kind: 'problem', code: 'INVALID_ARGUMENT', message: problem.message, source: read.placeOf(problem.item) };
  const repairs: ImportRepair[] = [...mapped.repairs];
  const built = materialize(mapped.drafts, 'openaiAgents', repairs);
  const unique = uniqueMessageIds(built.messages);
  repairs.push(...unique.repairs);
  const openaiAgents: Record<string, JsonValue> = {};
  if (mapped.leftover.length > 0) openaiAgents['items'] = mapped.leftover;
  if (built.skipped.length > 0) openaiAgents['skipped'] = built.skipped;
  const unreadItems = mapped.problems.map((problem) => problem.item.value as JsonValue);
  if (read.unreadable.length > 0 || unreadItems.length > 0)
    openaiAgents['unreadable'] = [...read.unreadable, ...unreadItems];
  const metadata: JsonObject = {
    imported: read.imported,
    ...(Object.keys(openaiAgents).length > 0 ? { openaiAgents } : {}),
  };
  yield sessionItem(
    { id: sessionIdOr(read.key, read.key).id, createdAt: read.createdAt, updatedAt: read.updatedAt, metadata },
    unique.messages,
    repairs,
    read.source,
  );
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
    const timestamp = utcOf(row.created_at);
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

async function* readDatabase(
  path: string,
  tables: { sessions: string; messages: string },
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

/** The 1-based line where each element of the top-level JSON array in `text` starts. */
export function elementLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      continue;
    }
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && expectValue && c !== ']' && c !== ' ' && c !== '\t' && c !== '\r') {
      lines.push(line);
      expectValue = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectValue = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectValue = true;
  }
  return lines;
}

async function* readJsonItems(path: string): AsyncGenerator<ImportItem> {
  let text: string;
  let modified: string;
  try {
    text = await readFile(path, 'utf8');
    modified = (await stat(path)).mtime.toISOString();
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${SYSTEM}: cannot read ${path} (${errorMessage(error)})`, {
      cause: error,
      details: { path },
    });
  }
  const key = basename(path, extname(path));
  const parsed = parseJson(text);
  if (!parsed.ok) {
    yield {
      kind: 'problem',
      code: parsed.problem.code,
      message: parsed.problem.message,
      source: { path, line: parsed.problem.line, record: key },
    };
    return;
  }
  if (!Array.isArray(parsed.value)) {
    yield {
      kind: 'problem',
      code: 'INVALID_ARGUMENT',
      message: `${path} must be a JSON array of Agents input items`,
      source: { path, line: lineAt(text, text.search(/\S/)), record: key },
    };
    return;
  }
  const lines = elementLines(text);
  const sessionId = sessionIdOr(key, key).id;
  const items: SourceItem[] = (parsed.value as unknown[]).map((value, index) => ({
    value,
    fallbackId: derivedMessageId(sessionId, index),
    timestamp: modified,
    where: `line ${lines[index] ?? 1} (item ${index})`,
  }));
  const lineOf = new Map(items.map((item, index) => [item, lines[index] ?? 1]));
  yield* sessionItems({
    key,
    items,
    createdAt: modified,
    updatedAt: modified,
    imported: {
      from: SYSTEM,
      format: 'js-items',
      file: basename(path),
      messageTimestamps: 'the file modification time (input items carry none)',
    },
    unreadable: [],
    source: { path, record: key },
    placeOf: (item) => ({ path, line: lineOf.get(item) ?? 1, record: key }),
  });
}

/** The OpenAI Agents importer; the table names are `SQLiteSession`'s constructor arguments. */
export function openaiAgentsImporter(options: OpenaiAgentsImporterOptions = {}): Importer {
  const tables = {
    sessions: checkTable(options.sessionsTable, 'agent_sessions', 'sessionsTable'),
    messages: checkTable(options.messagesTable, 'agent_messages', 'messagesTable'),
  };
  return {
    system: SYSTEM,
    describe: 'an Agents SDK SQLiteSession database (Python), or a JSON array of AgentInputItems (JS)',
    async *read(path: string, readOptions: ImportOptions = {}): AsyncGenerator<ImportItem> {
      if (isSqliteFile(path, SYSTEM)) yield* readDatabase(path, tables, readOptions);
      else yield* readJsonItems(path);
    },
  };
}
