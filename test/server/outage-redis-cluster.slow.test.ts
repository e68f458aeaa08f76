/**
 * The server over a Redis Cluster while one of its three masters is down (SIGKILLed, then started
 * again on its port and directory with its append-only file): every route that needs the down
 * master — and `/sessions` and `/readyz`, whose listing visits every master — answers 503
 * UNAVAILABLE with Retry-After in the one error shape, sessions on the other masters are served,
 * `/healthz` stays up, the process does not crash, and once the master is back the same server
 * serves everything again with no acknowledged append lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { masterPortOf, redisClusterTestServer } from '../support/redis-cluster.js';
import { TIMEOUTS, eventually } from '../support/store-outage.js';
import { expectUnavailable, startTestServer, type TestServer } from './server-harness.js';

const cluster = await redisClusterTestServer({ durable: true });
const skip =
  cluster.url === undefined
    ? `skipped: ${cluster.skip}`
    : cluster.throwaway
      ? ''
      : 'skipped: CHATSTATE_TEST_REDIS_CLUSTER_URL is set, and an external cluster is not ours to kill';
if (skip !== '') console.warn(`[redis-cluster] server outage ${skip}`);

describe.skipIf(skip !== '')(`server: a Redis Cluster master is down ${skip}`, () => {
  let store: SessionStore;
  let server: TestServer;
  /** The port of the master serving each session id's bucket. */
  let portOf: (id: string) => number;

  beforeAll(async () => {
    if (cluster.url === undefined) return;
    portOf = await masterPortOf(cluster.url);
    store = await redisStore(`${cluster.url}?prefix=server-outage:`, TIMEOUTS);
    server = await startTestServer(store);
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    if (cluster.url !== undefined) await cluster.stop();
  });

  it('answers 503 with Retry-After for what the down master holds, serves the rest, and everything after', async () => {
    if (cluster.url === undefined) return;
    const key = server.keys.adminA;
    const hello = (id: string) => ({ messages: [{ id, role: 'user', content: `message ${id}` }] });
    // The server stores tenant A's session `x` as `tenant-a.x`: that id picks its bucket.
    const victimPort = portOf('tenant-a.ledger');
    const victim = cluster.nodes.find((node) => node.port === victimPort);
    if (victim === undefined) throw new Error(`no node on ${victimPort}`);
    let steady = 'steady-0';
    for (let index = 1; portOf(`tenant-a.${steady}`) === victimPort; index += 1) steady = `steady-${index}`;
    for (const id of ['ledger', steady])
      expect((await server.call('POST', '/sessions', { key, body: { id } })).status).toBe(201);
    const acknowledged: string[] = [];
    for (const id of ['a1', 'a2']) {
      if ((await server.call('POST', '/sessions/ledger/messages', { key, body: hello(id) })).status === 200)
        acknowledged.push(id);
    }
    await victim.kill();
    try {
      const probes = [
        await server.call('GET', '/sessions', { key }),
        await server.call('GET', '/sessions/ledger', { key }),
        await server.call('POST', '/sessions/ledger/messages', { key, body: hello('during') }),
        await server.call('GET', '/readyz'),
      ];
      expectUnavailable(probes);
      // The other masters' sessions, and the process itself, are unaffected.
      expect((await server.call('GET', `/sessions/${steady}`, { key })).status).toBe(200);
      expect((await server.call('POST', `/sessions/${steady}/messages`, { key, body: hello('s1') })).status).toBe(200);
      expect((await server.call('GET', '/healthz')).status).toBe(200);
    } finally {
      await victim.restart();
    }
    await cluster.healthy();
    await eventually(async () => {
      const back = await server.call('POST', '/sessions/ledger/messages', { key, body: hello('after') });
      expect(back.status).toBe(200);
    });
    acknowledged.push('after');
    expect((await server.call('GET', '/readyz')).status).toBe(200);
    const stored = (await server.call('GET', '/sessions/ledger', { key })).json as { messages: Array<{ id: string }> };
    const ids = stored.messages.map((message) => message.id);
    for (const id of acknowledged) expect(ids.filter((candidate) => candidate === id)).toHaveLength(1);
    const metrics = await server.call('GET', '/metrics');
    expect(metrics.text).toMatch(/chatstate_store_errors_total\{code="UNAVAILABLE"\} [1-9]/);
  }, 90_000);
});
