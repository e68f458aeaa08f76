/**
 * The SQLite store (`sqlite:PATH`): one database file, `better-sqlite3` 12.x as an optional peer
 * dependency loaded only when the store is opened, or a connection the caller already has.
 *
 * Heads and messages live in two tables; an append inserts its messages and updates the head in
 * one `BEGIN IMMEDIATE` transaction, so its cost does not depend on the session's size. WAL with
 * `synchronous = FULL` makes an acknowledged write durable, and the busy timeout lets processes
 * share the file.
 * @module
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError, errorMessage } from '../../errors.js';
import { storeName } from '../../store/driver-helpers.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { StoreDriver } from '../../store/driver-types.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { loadBetterSqlite3, nativeLoadFailure } from './better-sqlite3.js';
import { SqliteDriver } from './driver.js';
import { translateError, type SqliteDatabaseLike } from './sql.js';
import { prepareDatabase, type DatabaseLabel } from './schema.js';

export type { SqliteDatabaseLike, SqliteStatementLike } from './sql.js';
export { SQLITE_SCHEMA_VERSION } from './schema.js';

/** Options of `sqliteDriver`. */
export interface SqliteDriverOptions {
  /**
   * How long a write waits for another process's lock before failing. better-sqlite3 waits
   * synchronously, so this also bounds how long the event loop can stall under contention.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /** Name of the store in error messages. @default 'sqlite' */
  name?: string;
}

/** Options of `sqliteStore`: the core store options and the driver's. */
export interface SqliteStoreOptions extends SessionStoreOptions, SqliteDriverOptions {}

/** `better-sqlite3`'s default export, by the shape chatstate uses. */
type DatabaseConstructor = new (filename: string, options?: { timeout?: number }) => SqliteDatabaseLike;

/**
 * The file of a `sqlite:` URL: `sqlite:PATH` (relative to the working directory, taken as written),
 * `sqlite:///absolute/path` (percent-decoded, as a file URL) or `sqlite::memory:`.
 */
export function sqlitePathFromUrl(url: string): string {
  const invalid = (why: string): InvalidInputError =>
    new InvalidInputError('INVALID_ARGUMENT', `Cannot open store ${JSON.stringify(url.slice(0, 200))}: ${why}`);
  if (typeof url !== 'string' || url.slice(0, 7).toLowerCase() !== 'sqlite:') throw invalid('expected sqlite:PATH');
  const rest = url.slice(7);
  if (rest.includes('\0')) throw invalid('the path contains a NUL character');
  if (rest.startsWith('//')) {
    if (!rest.startsWith('///')) throw invalid('a sqlite URL has no host; use sqlite:PATH or sqlite:///absolute/path');
    try {
      return fileURLToPath(`file:${rest}`);
    } catch (error) {
      throw invalid(errorMessage(error));
    }
  }
  if (rest.length === 0) throw invalid('expected a database file after sqlite:');
  if (/[?#]/.test(rest)) throw invalid('query and fragment parts are not supported; name the file only');
  return rest;
}

function checkOptions(options: SqliteDriverOptions): { busyTimeoutMs: number; name: string } {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new InvalidInputError('INVALID_ARGUMENT', 'busyTimeoutMs must be a non-negative integer');
  }
  return { busyTimeoutMs, name: storeName(options.name, 'sqlite') };
}

function isDatabase(value: unknown): value is SqliteDatabaseLike {
  const candidate = value as Partial<SqliteDatabaseLike> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.prepare === 'function' &&
    typeof candidate.exec === 'function' &&
    typeof candidate.close === 'function'
  );
}

async function openFile(path: string, store: string, busyTimeoutMs: number): Promise<SqliteDatabaseLike> {
  const user = { who: store, needs: 'the sqlite: store' };
  const Database = await loadBetterSqlite3<DatabaseConstructor>(user);
  const memory = path === ':memory:';
  const file = memory ? path : resolve(path);
  if (!memory) {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (error) {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${store}: cannot create the directory of ${file} (${errorMessage(error)})`,
        { cause: error },
      );
    }
  }
  try {
    return new Database(file, { timeout: busyTimeoutMs });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const broken = nativeLoadFailure(error, user);
    if (broken !== undefined) throw broken;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) throw translateError(error, { store, file });
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: cannot open ${file} (${errorMessage(error)})`, {
      cause: error,
      details: { file },
    });
  }
}

/**
 * The SQLite driver, over a file (opened, and closed on `close()`) or over the caller's own
 * connection (left open on `close()`: its owner closes it). The connection is switched to WAL with
 * `synchronous = FULL` and the store's checkpoint interval (see `prepareDatabase`), and the database
 * is migrated to the current schema.
 */
export async function sqliteDriver(
  pathOrDatabase: string | SqliteDatabaseLike,
  options: SqliteDriverOptions = {},
): Promise<StoreDriver> {
  const { busyTimeoutMs, name } = checkOptions(options);
  let db: SqliteDatabaseLike;
  let owns: boolean;
  if (typeof pathOrDatabase === 'string') {
    if (pathOrDatabase.length === 0 || pathOrDatabase.includes('\0')) {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${name}: expected a database file path or a better-sqlite3 Database`,
      );
    }
    db = await openFile(pathOrDatabase, name, busyTimeoutMs);
    owns = true;
  } else if (isDatabase(pathOrDatabase)) {
    db = pathOrDatabase;
    owns = false;
  } else {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${name}: expected a database file path or a better-sqlite3 Database`,
    );
  }
  const label: DatabaseLabel = {
    store: name,
    file: db.name ?? (typeof pathOrDatabase === 'string' ? pathOrDatabase : 'the given database'),
  };
  try {
    try {
      prepareDatabase(db, label, busyTimeoutMs);
    } catch (error) {
      throw translateError(error, label);
    }
    return new SqliteDriver(db, label, owns);
  } catch (error) {
    // A driver that failed to open must not leak the file handle it opened.
    if (owns) {
      try {
        db.close();
      } catch {
        // The open error is the one to report.
      }
    }
    throw error;
  }
}

/** A `SessionStore` in one SQLite file, or over the caller's better-sqlite3 `Database`. */
export async function sqliteStore(
  pathOrDatabase: string | SqliteDatabaseLike,
  options: SqliteStoreOptions = {},
): Promise<SessionStore> {
  const { busyTimeoutMs, name, ...storeOptions } = options;
  const driver = await sqliteDriver(pathOrDatabase, {
    ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
    ...(name === undefined ? {} : { name }),
  });
  try {
    return createSessionStore(driver, storeOptions);
  } catch (error) {
    // Options the core refuses (a malformed key): the connection just opened is not leaked.
    await driver.close();
    throw error;
  }
}
