/**
 * Opens another system's SQLite database for an importer: read-only, through `better-sqlite3` (an
 * optional peer dependency, loaded only when such a source is read), so the importer never changes
 * the source and reads what a WAL file holds as SQLite itself would.
 * @module
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { ChatstateError, DataError, InvalidInputError, NotFoundError, errorMessage } from '../errors.js';
import { loadBetterSqlite3, nativeLoadFailure } from '../stores/sqlite/better-sqlite3.js';

/** A prepared statement, by the shape the importers use. */
export interface SourceStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}

/** A read-only SQLite connection, by the shape the importers use. */
export interface SourceDatabase {
  prepare(source: string): SourceStatement;
  close(): unknown;
}

type DatabaseConstructor = new (
  filename: string,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => SourceDatabase;

const SQLITE_HEADER = 'SQLite format 3\0';

/** True when the file at `path` starts with SQLite's header; false for any other file; NOT_FOUND when it cannot be read. */
export function isSqliteFile(path: string, system: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new NotFoundError(`${system}: cannot read ${path} (${errorMessage(error)})`, {
      cause: error,
      details: { path },
    });
  }
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    return read === header.length && header.toString('latin1') === SQLITE_HEADER;
  } catch (error) {
    // A directory opens but cannot be read.
    throw new InvalidInputError('INVALID_ARGUMENT', `${system}: cannot read ${path} (${errorMessage(error)})`, {
      cause: error,
      details: { path },
    });
  } finally {
    closeSync(fd);
  }
}

/** A chatstate error for a failure of the SQLite layer while reading `path`. */
export function sourceError(error: unknown, system: string, path: string): ChatstateError {
  if (ChatstateError.isInstance(error)) return error;
  const raw = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const code = typeof raw === 'string' ? raw : '';
  const details = { path, ...(code === '' ? {} : { sqliteCode: code }) };
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return new DataError('CORRUPT', `${system}: the database ${path} is damaged (${errorMessage(error)})`, {
      cause: error,
      details,
    });
  return new InvalidInputError(
    'INVALID_ARGUMENT',
    `${system}: cannot read the database ${path} (${errorMessage(error)})`,
    {
      cause: error,
      details,
    },
  );
}

/**
 * `path` opened read-only; MISSING_DEPENDENCY without better-sqlite3, NOT_FOUND when absent,
 * CORRUPT when not a database (saying what was `expected`, when given).
 */
export async function openSourceDatabase(path: string, system: string, expected?: string): Promise<SourceDatabase> {
  if (!isSqliteFile(path, system))
    throw new DataError(
      'CORRUPT',
      `${system}: ${path} is not a SQLite database${expected === undefined ? '' : `; expected ${expected}`}`,
      { details: { path } },
    );
  const user = { who: system, needs: 'reading a SQLite database' };
  const Database = await loadBetterSqlite3<DatabaseConstructor>(user);
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw nativeLoadFailure(error, user) ?? sourceError(error, system, path);
  }
}

/** The tables of `db` (names), to refuse a database that is not the system's with a clear error. */
export function tableNames(db: SourceDatabase): Set<string> {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  return new Set(rows.map((row) => row.name));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A BLOB or TEXT column as text (SQLite savers write JSON as either); undefined for NULL, numbers or bytes that are not UTF-8. */
export function columnText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!(value instanceof Uint8Array)) return undefined;
  try {
    return utf8.decode(value);
  } catch {
    return undefined;
  }
}
