/**
 * What the active-memory spec runs on: a store under test (fresh store, a second store over the
 * same data, cleanup), one per backend, and the deterministic embedding function the recall tests
 * give as the caller's collaborator.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { Embed } from '../../src/active-memory/types.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { createSessionStore } from '../../src/store/session-store.js';
import type { SessionStore, StoreDriver } from '../../src/store/types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { memoryDriver } from '../../src/stores/memory.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { adminQuery, freshSchema } from '../support/postgres-server.js';

/** A backend the spec runs against. */
export interface StoreUnderTest {
  readonly name: string;
  /** A fresh, empty store. */
  create(): Promise<SessionStore>;
  /** Closes `store` (unless it holds the data, as the memory store does) and opens another over the same data: a restart. */
  reopen(store: SessionStore): Promise<SessionStore>;
  /** Closes `store` and removes its data. */
  destroy(store: SessionStore): Promise<void>;
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
  };
}

/** The file store in a temp directory. */
export function fileSubject(): StoreUnderTest {
  const dirs = new WeakMap<SessionStore, string>();
  return {
    name: 'file',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'chatstate-active-memory-'));
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
  };
}

/** The SQLite store in a temp file. */
export function sqliteSubject(): StoreUnderTest {
  const files = new WeakMap<SessionStore, string>();
  return {
    name: 'sqlite',
    async create() {
      const file = join(mkdtempSync(join(tmpdir(), 'chatstate-active-memory-')), 'sessions.db');
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
  };
}

/** The Postgres store on `url`, a schema per store (dropped afterwards). */
export function postgresSubject(url: () => string): StoreUnderTest {
  const schemas = new WeakMap<SessionStore, string>();
  return {
    name: 'postgres',
    async create() {
      const schema = freshSchema('am');
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
  };
}

/** The Redis store on `url`, a key prefix per store (its keys deleted afterwards by `clear`). */
export function redisSubject(url: string, clear: (prefix: string) => Promise<void>): StoreUnderTest {
  const prefixes = new WeakMap<SessionStore, string>();
  return {
    name: 'redis',
    async create() {
      const prefix = `am:${randomBytes(6).toString('hex')}:`;
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
  };
}

// Words the test embedding treats as one meaning: what a real embedding model does and a text index cannot.
const SYNONYMS: Readonly<Record<string, string>> = {
  canine: 'dog',
  puppy: 'dog',
  hound: 'dog',
  automobile: 'car',
  vehicle: 'car',
};

/** Dimensions of `hashedEmbed`'s vectors. */
export const EMBED_DIMENSIONS = 64;

/**
 * A deterministic embedding (the caller's collaborator in these tests): hashed bag of words, with
 * a few synonyms folded together, so that "canine" lands near "dog". `calls` records every batch.
 */
export function hashedEmbed(): Embed & { calls: string[][] } {
  const calls: string[][] = [];
  const embed = async (texts: readonly string[]): Promise<number[][]> => {
    calls.push([...texts]);
    return texts.map((text) => {
      const vector = new Array<number>(EMBED_DIMENSIONS).fill(0);
      for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const word = SYNONYMS[raw] ?? raw;
        const digest = createHash('sha256').update(word).digest();
        const slot = (digest[0] as number) % EMBED_DIMENSIONS;
        vector[slot] = (vector[slot] as number) + ((digest[1] as number) % 2 === 0 ? 1 : -1);
      }
      return vector;
    });
  };
  return Object.assign(embed, { calls });
}

/** Awaits `promise` and checks that it rejects with a `kind` error of `code`. */
export async function expectRejection(
  promise: Promise<unknown>,
  kind: abstract new (...args: never[]) => Error,
  code: string,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, `expected a ${kind.name} with code ${code}`).toBeInstanceOf(kind);
  expect((error as { code?: unknown }).code).toBe(code);
}

/** Saves session `id` of `userId` with one message per text (user and assistant in turn); returns the stored session. */
export async function seedSession(
  store: SessionStore,
  id: string,
  userId: string | undefined,
  texts: readonly string[],
): Promise<Session> {
  const messages = texts.map((text, index) => (index % 2 === 0 ? Message.user(text) : Message.assistant(text)));
  return store.save(Session.create({ id, ...(userId === undefined ? {} : { userId }), messages }));
}
