/**
 * The `SessionManager`'s cache against another writer on the same Redis (two store objects, two
 * connections): see test/support/manager-freshness.ts. Each test gets its own key prefix.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import { redisStore } from '../../src/stores/redis/index.js';
import { managerFreshnessTests } from '../support/manager-freshness.js';
import { deleteKeysUnder, redisTestServer } from '../support/redis-server.js';

const server = await redisTestServer();

if (server.url === undefined) {
  describe.skip(`SessionManager freshness: redis [skipped: ${server.skip}]`, () => {
    it('runs against a real Redis server', () => undefined);
  });
} else {
  const url = server.url;
  const admin = new Redis(url);
  const prefixes = new WeakMap<object, string>();
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });
  describe('SessionManager freshness: redis', () => {
    managerFreshnessTests(
      'redis (two stores, one server)',
      async () => {
        const prefix = `fresh:${randomBytes(6).toString('hex')}:`;
        const stores = { mine: await redisStore(url, { prefix }), other: await redisStore(url, { prefix }) };
        prefixes.set(stores, prefix);
        return stores;
      },
      async (stores) => {
        await stores.mine.close();
        await stores.other.close();
        await deleteKeysUnder(admin, prefixes.get(stores) as string);
      },
      true,
    );
  });
}
