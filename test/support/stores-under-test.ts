/**
 * The stores a suite runs on, one per backend: how to make a fresh one, open a second over the same
 * data (a restart), and remove it; and `describeEveryStore`, which runs one suite on memory, file,
 * SQLite, a real Postgres and a real Redis (servers started for the file, skipped with the reason
 * without one, failed under `CI=true`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, it } from 'vitest';
import { createSessionStore } from '../../src/store/session-store.js';
import type { StoreDriver } from '../../src/store/driver-types.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { memoryDriver } from '../../src/stores/memory.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { adminQuery, describeWithPostgres, freshSchema } from './postgres-server.js';
import { deleteKeysUnder, redisTestServer } from './redis-server.js';

/** A backend the spec runs against. */
export interface StoreUnderTest {
  readonly name: string;
  /** A fresh, empty store. */
  create(): Promise<SessionStore>;
  /** Closes `store` (unless it holds the data, as the memory store does) and opens another over the same data: a restart. */
  reopen(store: SessionStore): Promise<SessionStore>;
  /** Closes `store` and removes its data. */
  destroy(store: SessionStore): Promise<void>;
  /**
   * The `openStore` URL of `store`'s data, for another process to open it; `undefined` for the
   * memory store (its data lives in this process only).
   */
  url(store: SessionStore): string | undefined;
}

/** The stores of one test: `open` makes one, every one is destroyed after the test. */
export interface Stores {
  readonly name: string;
  open(): Promise<SessionStore>;
  reopen(store: SessionStore): Promise<SessionStore>;
}

/** Registers the per-test cleanup of `subject`'s stores and returns how tests open them. */
export function storesOf(subject: StoreUnderTest): Stores {
  // Every store of a test, last opened first: a reopened store is destroyed (with the data) after the one it replaced.
  let opened: SessionStore[] = [];
  afterEach(async () => {
    const stores = opened.reverse();
    opened = [];
    for (const store of new Set(stores)) await subject.destroy(store);
  });
  return {
    name: subject.name,
    async open() {
      const store = await subject.create();
      opened.push(store);
      return store;
    },
    async reopen(store) {
      const second = await subject.reopen(store);
      opened.push(second);
      return second;
    },
  };
}

/** The memory store; a "restart" is a second store over the same driver (nothing cached survives). */
export function memorySubject(): StoreUnderTest {
  const drivers = new WeakMap<SessionStore, StoreDriver>();
  return {
    name: 'memory',
    async create() {
      const driver = memoryDriver();
      const store = createSessionStore(driver);
      drivers.set(store, driver);
      return store;
    },
    async reopen(store) {
      const driver = drivers.get(store) as StoreDriver;
      const second = createSessionStore(driver);
      drivers.set(second, driver);
      return second;
    },
    // Closing a memory store clears its driver: only the last store over it is closed.
    destroy: (store) => store.close(),
    url: () => undefined,
  };
}

/** The file store in a temp directory. */
export function fileSubject(label = 'test'): StoreUnderTest {
  const dirs = new WeakMap<SessionStore, string>();
  return {
    name: 'file',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), `chatstate-${label}-`));
      const store = fileStore(dir);
      dirs.set(store, dir);
      return store;
    },
    async reopen(store) {
      const dir = dirs.get(store) as string;
      await store.close();
      const second = fileStore(dir);
      dirs.set(second, dir);
      return second;
    },
    async destroy(store) {
      await store.close();
      rmSync(dirs.get(store) as string, { recursive: true, force: true });
    },
    url: (store) => `file:${dirs.get(store) as string}`,
  };
}

/** The SQLite store in a temp file. */
export function sqliteSubject(label = 'test'): StoreUnderTest {
  const files = new WeakMap<SessionStore, string>();
  return {
    name: 'sqlite',
    async create() {
      const file = join(mkdtempSync(join(tmpdir(), `chatstate-${label}-`)), 'sessions.db');
      const store = await sqliteStore(file);
      files.set(store, file);
      return store;
    },
    async reopen(store) {
      const file = files.get(store) as string;
      await store.close();
      const second = await sqliteStore(file);
      files.set(second, file);
      return second;
    },
    async destroy(store) {
      await store.close();
      rmSync(dirname(files.get(store) as string), { recursive: true, force: true });
    },
    url: (store) => `sqlite:${files.get(store) as string}`,
  };
}

/** The Postgres store on `url`, a schema per store (dropped afterwards). */
export function postgresSubject(url: () => string, label = 'test'): StoreUnderTest {
  const schemas = new WeakMap<SessionStore, string>();
  return {
    name: 'postgres',
    async create() {
      const schema = freshSchema(label);
      const store = await postgresStore(url(), { schema, maxConnections: 4 });
      schemas.set(store, schema);
      return store;
    },
    async reopen(store) {
      const schema = schemas.get(store) as string;
      await store.close();
      const second = await postgresStore(url(), { schema, maxConnections: 4 });
      schemas.set(second, schema);
      return second;
    },
    async destroy(store) {
      await store.close();
      await adminQuery(url(), `DROP SCHEMA IF EXISTS "${schemas.get(store) as string}" CASCADE`);
    },
    url: (store) => {
      const address = new URL(url());
      address.searchParams.set('schema', schemas.get(store) as string);
      return address.toString();
    },
  };
}

/** The Redis store on `url`, a key prefix per store (its keys deleted afterwards by `clear`). */
export function redisSubject(url: string, clear: (prefix: string) => Promise<void>, label = 'test'): StoreUnderTest {
  const prefixes = new WeakMap<SessionStore, string>();
  return {
    name: 'redis',
    async create() {
      const prefix = `${label}:${randomBytes(6).toString('hex')}:`;
      const store = await redisStore(url, { prefix });
      prefixes.set(store, prefix);
      return store;
    },
    async reopen(store) {
      const prefix = prefixes.get(store) as string;
      await store.close();
      const second = await redisStore(url, { prefix });
      prefixes.set(second, prefix);
      return second;
    },
    async destroy(store) {
      await store.close();
      await clear(prefixes.get(store) as string);
    },
    url: (store) => {
      const address = new URL(url);
      address.searchParams.set('prefix', prefixes.get(store) as string);
      return address.toString();
    },
  };
}

/** The backends `describeEveryStore` runs on. */
export const EVERY_STORE = ['memory', 'file', 'sqlite', 'postgres', 'redis'] as const;

/** One of `EVERY_STORE`. */
export type StoreName = (typeof EVERY_STORE)[number];

/**
 * The backends this run tests, of `names`: those of the tier (`CHATSTATE_TIER_STORES`, which
 * vitest.config.ts sets per tier: embedded stores in one, servers in another) that
 * `CHATSTATE_TEST_STORES` also names (to narrow a run by hand); each unset means every one. An
 * unknown name is an error, so a typo cannot quietly test nothing.
 */
export function storesToTest(
  names: readonly string[] = EVERY_STORE,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const known = new Set<string>([...EVERY_STORE, 'redis-cluster', ...names]);
  const chosen = (variable: string): Set<string> | undefined => {
    const value = env[variable];
    if (value === undefined || value.trim() === '') return undefined;
    const listed = value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const unknown = listed.filter((name) => !known.has(name));
    if (unknown.length > 0)
      throw new Error(`${variable} names unknown stores: ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
    return new Set(listed);
  };
  const tier = chosen('CHATSTATE_TIER_STORES');
  const byHand = chosen('CHATSTATE_TEST_STORES');
  return names.filter((name) => (tier?.has(name) ?? true) && (byHand?.has(name) ?? true));
}

/**
 * `describe.each(stores)(title, body)`, or, when this run tests none of them, one skipped block that
 * says so (vitest fails a file without tests).
 */
export function describeEachStore<T extends { readonly name: string }>(
  stores: readonly T[],
  title: string,
  body: (store: T) => void,
): void {
  if (stores.length === 0) {
    describe.skip(`${title.replace('$name', '(none)')} [skipped: CHATSTATE_TEST_STORES leaves out every store of this tier]`, () => {
      it('runs on the stores of this run', () => undefined);
    });
    return;
  }
  describe.each(stores)(title, body);
}

/**
 * Runs `body` once per backend inside `describe('<name>: <store>')`, for the backends of
 * `storesToTest()`. Postgres and Redis are real servers started for this file
 * (`CHATSTATE_TEST_POSTGRES_URL` / `CHATSTATE_TEST_REDIS_URL` reuse one). `label` prefixes temp
 * directories, schemas and key prefixes. Await it at the top level.
 */
export async function describeEveryStore(
  name: string,
  body: (subject: StoreUnderTest) => void,
  label = 'test',
): Promise<void> {
  const chosen = new Set(storesToTest());
  if (chosen.size === 0) return describeEachStore([], name, () => undefined);
  const embedded = [memorySubject(), fileSubject(label), sqliteSubject(label)];
  for (const subject of embedded.filter((each) => chosen.has(each.name))) {
    describe(`${name}: ${subject.name}`, () => body(subject));
  }
  if (chosen.has('postgres'))
    describeWithPostgres(`${name}: postgres`, (server) => body(postgresSubject(() => server().url, label)));
  if (!chosen.has('redis')) return;
  const redis = await redisTestServer();
  if (redis.url === undefined) {
    console.warn(`[redis] ${name} skipped: ${redis.skip}`);
    describe.skip(`${name}: redis [skipped: ${redis.skip}]`, () => {
      it('runs against a real Redis server', () => undefined);
    });
    return;
  }
  const admin = new Redis(redis.url);
  describe(`${name}: redis`, () => {
    afterAll(async () => {
      await admin.quit();
      await redis.stop();
    });
    body(redisSubject(redis.url as string, (prefix) => deleteKeysUnder(admin, prefix), label));
  });
}
