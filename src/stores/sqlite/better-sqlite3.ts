/**
 * `better-sqlite3`, the optional peer dependency of the SQLite store and of the importers that read
 * other systems' SQLite files: loaded only when one is opened, and its absence — or a native build
 * that does not load — a `MISSING_DEPENDENCY` naming what needs it and how to install it.
 * @module
 */
import { InvalidInputError, errorMessage } from '../../errors.js';

/** The package's name. */
export const BETTER_SQLITE3 = 'better-sqlite3';

/** Who opens a database (`store`, an importer's system) and what it does, for error messages. */
export interface SqliteUser {
  /** Prefix of the message: the store's or the system's name. */
  readonly who: string;
  /** What needs the package, e.g. `the sqlite: store`, `reading a SQLite database`. */
  readonly needs: string;
}

/** `MISSING_DEPENDENCY`: `user` needs the package, which is missing or broken as `why` says. */
export function missingBetterSqlite3(user: SqliteUser, why: string, cause?: unknown): InvalidInputError {
  return new InvalidInputError(
    'MISSING_DEPENDENCY',
    `${user.who}: ${user.needs} needs the optional package ${BETTER_SQLITE3} (12.x), ${why}; install it with \`npm install ${BETTER_SQLITE3}\``,
    { cause, details: { package: BETTER_SQLITE3 } },
  );
}

/** The package's `Database` class (typed by the caller's shape of it); `MISSING_DEPENDENCY` when it cannot be loaded. */
export async function loadBetterSqlite3<C>(user: SqliteUser): Promise<C> {
  let module: { default?: unknown };
  try {
    module = (await import('better-sqlite3')) as { default?: unknown };
  } catch (error) {
    throw missingBetterSqlite3(user, `which could not be loaded (${errorMessage(error)})`, error);
  }
  if (typeof module.default !== 'function')
    throw missingBetterSqlite3(user, 'but what was loaded under that name is not it');
  return module.default as C;
}

/**
 * `MISSING_DEPENDENCY` when `error` (thrown by opening a database) says the package's native addon
 * did not load — better-sqlite3 loads it on first use, so a missing build, or one made for another
 * Node version, surfaces there rather than at import; `undefined` for any other error.
 */
export function nativeLoadFailure(error: unknown, user: SqliteUser): InvalidInputError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_DLOPEN_FAILED' && !/bindings file|NODE_MODULE_VERSION|\.node\b/.test(errorMessage(error)))
    return undefined;
  const why = `whose native module did not load (${errorMessage(error)}); reinstall it or run \`npm rebuild ${BETTER_SQLITE3}\``;
  return missingBetterSqlite3(user, why, error);
}
