/**
 * The server while its store's database cannot be reached (connections reset, then refused,
 * through the fault proxy), for Postgres and for Redis: every store-backed route answers 503
 * UNAVAILABLE with Retry-After in the one error shape, /readyz says not ready while /healthz stays
 * up, the process does not crash (the store's change feed loses its connection too), and the same
 * server serves again once the database is back — with no acknowledged append lost or doubled.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { deleteKeysUnder, redisTestServer } from '../support/redis-server.js';
import { RECOVERY_MS, TIMEOUTS, eventually } from '../support/store-outage.js';
import { expectUnavailable, startTestServer, type TestServer } from './server-harness.js';

/** The outage scenario for a store opened (through the proxy on `port`) by `open`. */
function serverOutage(serverPort: () => number, open: (proxyPort: number) => Promise<SessionStore>): void {
  let proxy: FaultProxy;
  let store: SessionStore;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await startFaultProxy(serverPort());
    store = await eventually(() => open(proxy.port));
    server = await startTestServer(store);
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    await proxy?.close();
  });

  it('answers 503 with Retry-After while the database is away, and serves again after', async () => {
    const key = server.keys.adminA;
    const hello = (id: string) => ({ messages: [{ id, role: 'user', content: `message ${id}` }] });
    expect((await server.call('POST', '/sessions', { key, body: { id: 'ledger' } })).status).toBe(201);
    const acknowledged: string[] = [];
    for (const id of ['a1', 'a2']) {
      if ((await server.call('POST', '/sessions/ledger/messages', { key, body: hello(id) })).status === 200)
        acknowledged.push(id);
    }
    for (const mode of ['reset', 'refuse'] as const) {
      // A reset drops the pooled connections first, which a refusing port alone would leave working.
      await proxy.setMode('reset');
      await proxy.setMode(mode);
      const probes = [
        await server.call('GET', '/sessions', { key }),
        await server.call('GET', '/sessions/ledger', { key }),
        await server.call('POST', '/sessions/ledger/messages', { key, body: hello(`during-${mode}`) }),
        await server.call('GET', '/sessions/ledger/messages?limit=1', { key }),
        await server.call('GET', '/sessions/ledger/events', { key }),
        await server.call('GET', '/values/app', { key }),
        await server.call('GET', '/readyz'),
      ];
      expectUnavailable(probes);
      expect((await server.call('GET', '/healthz')).status).toBe(200);
      await proxy.setMode('pass');
      // Retried while 503, as a client honouring Retry-After would (Redis reconnects within a second).
      const until = Date.now() + RECOVERY_MS;
      for (;;) {
        const back = await server.call('POST', '/sessions/ledger/messages', { key, body: hello(`after-${mode}`) });
        if (back.status === 200) break;
        expect(back.status, back.text).toBe(503);
        expect(Date.now(), 'the server did not serve again in time').toBeLessThan(until);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      acknowledged.push(`after-${mode}`);
    }
    const stored = (await server.call('GET', '/sessions/ledger', { key })).json as { messages: Array<{ id: string }> };
    const ids = stored.messages.map((message) => message.id);
    for (const id of acknowledged) expect(ids.filter((stored) => stored === id)).toHaveLength(1);
    // The store's change feed lost its connection too: said in the log, and said again when it was back.
    const feedLines = server.logs
      .map((line) => line.message ?? '')
      .filter((message) => message.includes('change feed'));
    expect(feedLines.some((message) => message.startsWith('change feed interrupted'))).toBe(true);
    await eventually(async () => {
      const back = server.logs.some((line) => (line.message ?? '').startsWith('change feed listening again'));
      if (!back) throw new UnavailableError('the feed is not back yet', { store: 'test', reason: 'WAITING' });
    });
    const metrics = await server.call('GET', '/metrics');
    expect(metrics.text).toMatch(/chatstate_store_errors_total\{code="UNAVAILABLE"\} [1-9]/);
  }, 60_000);
}

describeWithPostgres('server: the store is unreachable (postgres)', (postgres) => {
  const schema = freshSchema('server_outage');
  afterAll(async () => {
    await adminQuery(postgres().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  });
  serverOutage(
    () => Number(new URL(postgres().url).port),
    (port) => {
      const url = new URL(postgres().url);
      url.port = String(port);
      return postgresStore(url.toString(), { schema, ...TIMEOUTS });
    },
  );
});

const redis = await redisTestServer();
// At the top level: a block skipped by a test-name filter runs no hooks, and must not leave the server running.
afterAll(async () => {
  if (redis.url !== undefined) await redis.stop();
});
describe.skipIf(redis.url === undefined)(
  `server: the store is unreachable (redis)${redis.url === undefined ? ` (skipped: ${redis.skip})` : ''}`,
  () => {
    const prefix = `server-outage:${randomBytes(6).toString('hex')}:`;
    afterAll(async () => {
      const admin = new Redis(redis.url as string);
      await deleteKeysUnder(admin, prefix).catch(() => undefined);
      await admin.quit();
    });
    serverOutage(
      () => Number(new URL(redis.url as string).port),
      (port) => redisStore(`redis://127.0.0.1:${port}`, { prefix, ...TIMEOUTS }),
    );
  },
);
