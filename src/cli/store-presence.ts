/**
 * Whether the local store a `file:` or `sqlite:` URL names is there. The library's stores create a
 * missing directory or database file when opened, which a program relies on; on the command line
 * a mistyped `--store` would then read as an empty store (and `sqlite:` would leave an empty
 * database behind). So a command that only works on an existing store refuses a missing one, and a
 * command that can start one says that it will.
 * @module
 */
import { stat } from 'node:fs/promises';
import { InvalidInputError, NotFoundError } from '../errors.js';

/** A local store: the path its URL names, and what must be there. */
interface LocalStore {
  readonly path: string;
  readonly kind: 'directory' | 'database file';
}

/** The local store `url` names, or `undefined` for a store that is not a local path (a server, `memory:`, `sqlite::memory:`). */
async function localStoreOf(url: string): Promise<LocalStore | undefined> {
  const scheme = url.slice(0, url.indexOf(':') + 1).toLowerCase();
  if (scheme === 'file:') {
    const { filePathFromUrl } = await import('../stores/file/file-url.js');
    return { path: filePathFromUrl(url), kind: 'directory' };
  }
  if (scheme === 'sqlite:') {
    const { sqlitePathFromUrl } = await import('../stores/sqlite/index.js');
    const path = sqlitePathFromUrl(url);
    return path === ':memory:' ? undefined : { path, kind: 'database file' };
  }
  return undefined;
}

/** What is at `path`: a directory, something else, or nothing (`undefined`). */
async function found(path: string): Promise<'directory' | 'other' | undefined> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Not ours to judge (a permission, a loop): the store's own open reports it.
    return 'other';
  }
}

/**
 * Checks the local store `url` names (errors say why, for the caller to prefix with the store).
 * A `file:` URL naming something that is not a directory is `INVALID_ARGUMENT`. A store that does
 * not exist is `NOT_FOUND` naming its path, unless `create`: then its path is returned, for the
 * caller to say that it is new.
 */
export async function checkLocalStore(url: string, create: boolean): Promise<{ created?: string }> {
  const local = await localStoreOf(url);
  if (local === undefined) return {};
  const there = await found(local.path);
  if (local.kind === 'directory' && there === 'other') {
    const sqlite = /\.(db|sqlite3?)$/i.test(local.path) ? `; a SQLite database is sqlite:${local.path}` : '';
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${local.path} is a file, not a store directory (a file: store is a directory${sqlite})`,
      { details: { path: local.path } },
    );
  }
  if (there !== undefined) return {};
  if (create) return { created: local.path };
  throw new NotFoundError(
    `no store at ${local.path} (the ${local.kind} does not exist): check --store or CHATSTATE_STORE; ` +
      'a command that writes (import, values set, migrate --to, serve) creates it',
    { details: { path: local.path } },
  );
}
