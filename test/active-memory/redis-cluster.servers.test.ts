/**
 * The active-memory spec on a real Redis Cluster (a throwaway three-master one, or
 * `CHATSTATE_TEST_REDIS_CLUSTER_URL`); skipped with its reason without one, failed under `CI=true`.
 */
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { clusterAdmin, deleteClusterKeysUnder, redisClusterTestServer } from '../support/redis-cluster.js';
import { redisSubject } from './harness.js';
import { runActiveMemorySpec } from './spec.js';

const server = await redisClusterTestServer();

if (server.url === undefined) {
  console.warn(`[redis-cluster] active memory skipped: ${server.skip}`);
  describe.skip(`active memory: redis-cluster [skipped: ${server.skip}]`, () => {
    it('runs against a real Redis Cluster', () => undefined);
  });
} else {
  const url = server.url;
  let admin: Cluster;
  beforeAll(() => {
    admin = clusterAdmin(url);
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });
  runActiveMemorySpec(redisSubject(url, (prefix) => deleteClusterKeysUnder(admin, prefix)));
}
