/**
 * The active-memory spec on a real Redis server (a throwaway `redis-server`, or
 * `CHATSTATE_TEST_REDIS_URL`); skipped with its reason without one, failed under `CI=true`.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import { deleteKeysUnder, redisTestServer } from '../support/redis-server.js';
import { redisSubject } from './harness.js';
import { runActiveMemorySpec } from './spec.js';

const server = await redisTestServer();

if (server.url === undefined) {
  console.warn(`[redis] active memory skipped: ${server.skip}`);
  describe.skip(`active memory: redis [skipped: ${server.skip}]`, () => {
    it('runs against a real Redis server', () => undefined);
  });
} else {
  const admin = new Redis(server.url);
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });
  runActiveMemorySpec(redisSubject(server.url, (prefix) => deleteKeysUnder(admin, prefix)));
}
