/**
 * The OpenAI Agents importer (`import --from openai-agents`): the Python SDK's `SQLiteSession`
 * database (tables `agent_sessions` and `agent_messages`, one session per `session_id`, items in
 * `id` order), or a JSON array of the JS SDK's `AgentInputItem`s (one session, named after the
 * file). A database is told from a JSON file by its first bytes. Rows or items that cannot be read
 * are problems with their row id or line, and the rest of their session is imported.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { sourceKind } from '../source-path.js';
import { isSqliteFile } from '../sqlite-source.js';
import type { ImportItem, ImportOptions, Importer } from '../types.js';
import { readDatabase } from './database.js';
import { EXPECTED, readJsonItems } from './json-items.js';

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

/** The OpenAI Agents importer; the table names are `SQLiteSession`'s constructor arguments. */
export function openaiAgentsImporter(options: OpenaiAgentsImporterOptions = {}): Importer {
  const tables = {
    sessions: checkTable(options.sessionsTable, 'agent_sessions', 'sessionsTable'),
    messages: checkTable(options.messagesTable, 'agent_messages', 'messagesTable'),
  };
  return {
    system: SYSTEM,
    describe: EXPECTED,
    async *read(path: string, readOptions: ImportOptions = {}): AsyncGenerator<ImportItem> {
      await sourceKind(path, { system: SYSTEM, expected: EXPECTED, kinds: ['file'] });
      if (isSqliteFile(path, SYSTEM)) yield* readDatabase(path, tables, readOptions);
      else yield* readJsonItems(path);
    },
  };
}
