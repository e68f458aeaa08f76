/**
 * ✱ `openStore(url)`: a store from a URL, through the registry of URL schemes. Importing this
 * module registers chatstate's own stores, each through a dynamic `import()` of its module, so
 * opening one store loads only that store's code (and its database client):
 *
 * - `memory:` — in-process
 * - `file:DIR` or `file:///abs/dir` — the embedded default: a directory of journals and snapshots
 * - `sqlite:PATH` — one SQLite file (`better-sqlite3`)
 * - `postgres://…` / `postgresql://…` — PostgreSQL (`pg`)
 * - `redis://…` / `rediss://…` — Redis (`ioredis`)
 * - `redis+cluster://host:port[,host:port…]` / `rediss+cluster://…` — Redis Cluster (`ioredis`)
 * - `http://host:port[/base]` / `https://…` — a chatstate server (`chatstate serve`) over its API,
 *   with the key of the `apiKey` option or `CHATSTATE_API_KEY`
 *
 * Other stores join with `registerStore(scheme, loader)`, the same way.
 * @module
 */
import {
  openRegisteredStore,
  registerStore,
  registeredSchemes,
  type OpenStoreOptions,
  type StoreLoader,
} from '../store/registry.js';
import type { SessionStore } from '../store/session-store-types.js';

export { userKeyDirectory, type UserKeyDirectoryOptions } from '../store/user-key-directory.js';

export {
  registerStore,
  registeredSchemes,
  type OpenStoreOptions,
  type RegisterStoreOptions,
  type StoreLoader,
} from '../store/registry.js';

/** chatstate's own stores, by scheme: each loader imports its store's module when it is called. */
const BUILT_IN: ReadonlyArray<readonly [string, StoreLoader]> = [
  ['memory', async (_url, options) => (await import('./memory-store.js')).memoryStore(options)],
  [
    'file',
    async (url, options) => {
      const { fileStore, filePathFromUrl } = await import('./file/index.js');
      return fileStore(filePathFromUrl(url), options);
    },
  ],
  [
    'sqlite',
    async (url, options) => {
      const { sqlitePathFromUrl, sqliteStore } = await import('./sqlite/index.js');
      return sqliteStore(sqlitePathFromUrl(url), options);
    },
  ],
  ['postgres', async (url, options) => (await import('./postgres/index.js')).postgresStore(url, options)],
  ['postgresql', async (url, options) => (await import('./postgres/index.js')).postgresStore(url, options)],
  ['redis', async (url, options) => (await import('./redis/index.js')).redisStore(url, options)],
  ['rediss', async (url, options) => (await import('./redis/index.js')).redisStore(url, options)],
  ['redis+cluster', async (url, options) => (await import('./redis/index.js')).redisStore(url, options)],
  ['rediss+cluster', async (url, options) => (await import('./redis/index.js')).redisStore(url, options)],
  ['http', async (url, options) => (await import('./http/index.js')).httpStore(url, options)],
  ['https', async (url, options) => (await import('./http/index.js')).httpStore(url, options)],
];

// A scheme registered before this module ran keeps its loader: a caller's replacement wins.
for (const [scheme, loader] of BUILT_IN) if (!registeredSchemes().includes(`${scheme}:`)) registerStore(scheme, loader);

/** Opens the store a URL names, by its scheme (see `registeredSchemes()`). */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<SessionStore> {
  return openRegisteredStore(url, options);
}
