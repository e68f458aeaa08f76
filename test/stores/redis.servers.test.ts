/**
 * The conformance suite against a real Redis server (a throwaway `redis-server`, or
 * `CHATSTATE_TEST_REDIS_URL`). Every store gets its own key prefix, whose keys are deleted after
 * its test, so tests never see each other's sessions even on a shared server.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { keysBackup } from '../support/backups.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';
import { deleteKeysUnder, keyContents, redisTestServer } from '../support/redis-server.js';

const server = await redisTestServer();

if (server.url === undefined) {
  console.warn(`[redis] conformance skipped: ${server.skip}`);
  describe.skip(`SessionStore conformance: redis [skipped: ${server.skip}]`, () => {
    it('runs against a real Redis server', () => undefined);
  });
} else {
  const url = server.url;
  const admin = new Redis(url);
  const prefixes = new WeakMap<SessionStore, string>();

  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  const prefixOf = (store: SessionStore): string => {
    const prefix = prefixes.get(store);
    if (prefix === undefined) throw new Error('not a store this suite created');
    return prefix;
  };

  runStoreConformance({
    name: 'redis',
    async create(options) {
      const prefix = `conf:${randomBytes(6).toString('hex')}:`;
      const store = await redisStore(url, { ...options, prefix });
      prefixes.set(store, prefix);
      return store;
    },
    async destroy(store) {
      await store.close();
      await deleteKeysUnder(admin, prefixOf(store));
    },
    async reopen(store, options) {
      const second = await redisStore(url, { ...options, prefix: prefixOf(store) });
      prefixes.set(second, prefixOf(store));
      return second;
    },
    contents: (store) => keyContents(admin, prefixOf(store)),
    // The keys copied under another prefix.
    async backup(store) {
      const copy = `conf:${randomBytes(6).toString('hex')}:`;
      return keysBackup(
        [admin],
        prefixOf(store),
        copy,
        {
          open: async (options) => redisStore(url, { ...options, prefix: copy }),
          contents: () => keyContents(admin, copy),
        },
        () => deleteKeysUnder(admin, copy),
      );
    },
    crossProcess: {
      url: (store) => {
        const child = new URL(url);
        child.searchParams.set('prefix', prefixOf(store));
        return child.toString();
      },
      register: BUILT_IN_STORES,
    },
    capabilities: { changeFeed: 'all' },
    // What no store writes (a negative version) in the session's head hash, as a hand edit would.
    async damage(store, id) {
      await admin.hset(`${prefixOf(store)}s:${id}:h`, 'version', '-1');
    },
  });
}
