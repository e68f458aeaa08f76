/**
 * The server while its Postgres cannot be reached (connections refused, then reset, through the
 * fault proxy): every store-backed route answers 503 UNAVAILABLE with Retry-After in the one error
 * shape, /readyz says not ready while /healthz stays up, the process does not crash, and the same
 * server serves again once the database is back — with no acknowledged append lost.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionStore } from '../../src/store/types.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { TIMEOUTS, eventually } from '../support/store-outage.js';
import { startTestServer, type TestServer } from './server-harness.js';

describeWithPostgres('server: the store is unreachable', (postgres) => {
  const schema = freshSchema('server_outage');
  let proxy: FaultProxy;
  let store: SessionStore;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await startFaultProxy(Number(new URL(postgres().url).port));
    const url = new URL(postgres().url);
    url.port = String(proxy.port);
    store = await postgresStore(url.toString(), { schema, ...TIMEOUTS });
    server = await startTestServer(store);
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    await proxy?.close();
    await adminQuery(postgres().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
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
        await server.call('GET', '/values/app', { key }),
        await server.call('GET', '/readyz'),
      ];
      for (const probe of probes) {
        expect(probe.status, probe.text).toBe(503);
        expect(probe.headers.get('retry-after')).toBe('1');
        expect(probe.json).toMatchObject({
          code: 'UNAVAILABLE',
          message: expect.any(String),
          details: expect.any(Object),
        });
      }
      expect((await server.call('GET', '/healthz')).status).toBe(200);
      await proxy.setMode('pass');
      await eventually(async () => {
        const back = await server.call('POST', '/sessions/ledger/messages', { key, body: hello(`after-${mode}`) });
        expect(back.status).toBe(200);
      });
      acknowledged.push(`after-${mode}`);
    }
    const stored = (await server.call('GET', '/sessions/ledger', { key })).json as { messages: Array<{ id: string }> };
    const ids = stored.messages.map((message) => message.id);
    for (const id of acknowledged) expect(ids.filter((stored) => stored === id)).toHaveLength(1);
    const metrics = await server.call('GET', '/metrics');
    expect(metrics.text).toMatch(/chatstate_store_errors_total\{code="UNAVAILABLE"\} [1-9]/);
  }, 60_000);
});
