/**
 * ✱ `openStore(url)`: a store from a URL, loading its driver (and the driver's database client)
 * only when that scheme is used.
 *
 * - `memory:` — in-process
 * - `file:DIR` or `file:///abs/dir` — the embedded default: a directory of journals and snapshots
 * - `sqlite:PATH` — one SQLite file (`better-sqlite3`)
 * - `postgres://…` / `postgresql://…` — PostgreSQL (`pg`)
 * - `redis://…` / `rediss://…` — Redis (`ioredis`)
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { SessionStoreOptions } from '../store/session-store.js';
import type { SessionStore } from '../store/types.js';

/** Options of `openStore`: the core store options. */
export type OpenStoreOptions = SessionStoreOptions;

function invalidUrl(url: string, why: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `Cannot open store ${JSON.stringify(url.slice(0, 200))}: ${why}`);
}

/** Opens the store a URL names. */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<SessionStore> {
  if (typeof url !== 'string' || url.length === 0) throw invalidUrl(String(url), 'expected a store URL such as file:./sessions');
  const scheme = url.slice(0, url.indexOf(':') + 1).toLowerCase();
  switch (scheme) {
    case 'memory:': {
      const { memoryStore } = await import('./memory.js');
      return memoryStore(options);
    }
    case 'postgres:':
    case 'postgresql:': {
      const { postgresStore } = await import('./postgres/index.js');
      return postgresStore(url, options);
    }
    case 'sqlite:': {
      const { sqlitePathFromUrl, sqliteStore } = await import('./sqlite/index.js');
      return sqliteStore(sqlitePathFromUrl(url), options);
    }
    case 'redis:':
    case 'rediss:': {
      const { redisStore } = await import('./redis/index.js');
      return redisStore(url, options);
    }
    case 'file:': {
      const { fileStore, filePathFromUrl } = await import('./file/index.js');
      return fileStore(filePathFromUrl(url), options);
    }
    default:
      throw invalidUrl(url, `unknown scheme ${JSON.stringify(scheme || url)}; use memory:, file:, sqlite:, postgres:// or redis://`);
  }
}
