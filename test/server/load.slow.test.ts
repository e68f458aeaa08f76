/**
 * The multi-server load test: autocannon drives `chatstate serve` processes on one Postgres, and on
 * one Redis Cluster — one server, then three — with appends to shared sessions from every server (If-Match, retried on
 * 412), tail reads, lists, probes of another tenant and agent turns against a local model server.
 * Afterwards every acknowledged append is stored exactly once, in one gapless sequence, and no
 * answer carried the other tenant's data.
 * Bounded: a fixed number of requests per server, on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey } from '../../src/server/auth/api-keys.js';
import { exactlyOnceProblems, runLoad, type LoadOutcome } from '../support/load-traffic.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { modelSpec, providerEnv } from './agent-configs.js';
import { cliStores } from '../cli/cli-stores.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const REQUESTS_PER_SERVER = 800;
const CONNECTIONS_PER_SERVER = 6;
const SHARED_SESSIONS = 4;

/** The databases several servers share: Postgres and a Redis Cluster (skipped with a reason when missing, outside CI). */
const SHARED_STORES = cliStores().filter((store) => store.name === 'postgres' || store.name === 'redis-cluster');

describe.each(SHARED_STORES)('load through one and three servers on one $name', (kind) => {
  let skipped: string | undefined;
  const tenantA = newKey({ tenant: 'tenant-a', role: 'admin' });
  const tenantB = newKey({ tenant: 'tenant-b', role: 'admin' });
  const token = `victim${randomBytes(6).toString('hex')}`;
  let dir = '';
  const servers: ServeProcess[] = [];
  let model: ProtocolServer | undefined;

  const call = async (url: string, key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  };

  beforeAll(async () => {
    skipped = await kind.start();
    if (skipped !== undefined) return;
    dir = await mkdtemp(join(tmpdir(), 'chatstate-load-'));
    const keys = join(dir, 'keys.json');
    await writeFile(keys, JSON.stringify({ keys: [tenantA.entry, tenantB.entry] }));
    // Turns run against a local model server (the OpenAI wire, as an OpenAI-compatible endpoint).
    model = await startProtocolServer();
    model.respondWith(scriptedProvider);
    const agents = join(dir, 'agents.json');
    await writeFile(agents, JSON.stringify({ agents: [{ id: 'guide', model: modelSpec('openaiChat') }] }));
    const store = await kind.freshUrl();
    for (let n = 0; n < 3; n++)
      servers.push(await startServe(['--store', store, '--keys', keys, '--agents', agents], providerEnv(model.url)));
    const url = (servers[0] as ServeProcess).url;
    for (const id of ['chat-b', 'notes-b']) {
      const made = await call(url, tenantB.secret, 'POST', '/sessions', {
        id,
        messages: [{ id: 'b1', role: 'user', content: `${token} private` }],
      });
      expect(made.status).toBe(201);
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await model?.close();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
    await kind.stop();
  });

  it.for([1, 3])(
    '%i server(s): every acknowledged append exactly once, no cross-tenant read',
    { timeout: 300_000 },
    async (count, context) => {
      if (skipped !== undefined) return context.skip(skipped);
      const through = servers.slice(0, count).map((server) => server.url);
      const sessions = Array.from({ length: SHARED_SESSIONS }, (_, n) => `shared-${count}-${n}`);
      for (const id of sessions)
        expect((await call(through[0] as string, tenantA.secret, 'POST', '/sessions', { id })).status).toBe(201);
      const outcome = await runLoad({
        servers: through,
        key: tenantA.secret,
        sessions,
        victim: { sessions: ['chat-b', 'notes-b'], token },
        connectionsPerServer: CONNECTIONS_PER_SERVER,
        requestsPerServer: REQUESTS_PER_SERVER,
        turns: { sessions: [`turns-${count}-a`, `turns-${count}-b`] },
        runId: `load${count}`,
      });
      expect(outcome.unexpected).toEqual([]);
      expect(outcome.crossTenantReads).toBe(0);
      expect(outcome.errors).toBe(0);
      // Two in six requests are appends: each answered 200 or, with a stale If-Match, 412 (then retried).
      expect(outcome.acknowledged + outcome.stale).toBeGreaterThanOrEqual((REQUESTS_PER_SERVER * count * 2) / 6 - 10);
      expect(outcome.turns).toBeGreaterThan(0);
      expect(outcome.acknowledged).toBeGreaterThan(50);
      // With several connections on four sessions, versions go stale: the retries are what If-Match is for.
      expect(outcome.stale).toBeGreaterThan(0);
      // Every session read through another server than the one that wrote most.
      const problems = await exactlyOnceProblems(
        outcome,
        async (session) => {
          const read = await call(through.at(-1) as string, tenantA.secret, 'GET', `/sessions/${session}`);
          return (read.json as { messages: Array<{ id: string; seq: number }> }).messages;
        },
        sessions,
      );
      expect(problems).toEqual([]);
      // Tenant B's data is as it was.
      const victim = await call(through[0] as string, tenantB.secret, 'GET', '/sessions/chat-b');
      expect((victim.json as { messages: unknown[] }).messages).toHaveLength(1);
    },
  );
});

describe('the exactly-once check', () => {
  it('finds a lost, a doubled, a phantom, a refused-yet-stored append and a gap', async () => {
    const ids = (...list: string[]) => new Set(list);
    const outcome = {
      runId: 'r',
      acked: new Map([['s', ids('r-1', 'r-2', 'r-3')]]),
      unknown: new Map([['s', ids('r-5')]]),
      sent: new Map([['s', ids('r-1', 'r-2', 'r-3', 'r-4', 'r-5')]]),
    } as unknown as LoadOutcome;
    const stored = [
      { id: 'seed', seq: 1 },
      { id: 'r-1', seq: 2 },
      { id: 'r-1', seq: 3 },
      { id: 'r-4', seq: 4 },
      { id: 'r-9', seq: 6 },
      { id: 'r-5', seq: 7 },
    ];
    const problems = await exactlyOnceProblems(outcome, async () => stored, ['s']);
    expect(problems.sort()).toEqual(
      [
        's: seqs are not 1..6',
        's: r-1 is stored twice',
        's: acknowledged r-2 is missing',
        's: acknowledged r-3 is missing',
        's: r-4 was refused, yet stored',
        's: r-9 was never sent',
      ].sort(),
    );
    const clean = [{ id: 'r-1' }, { id: 'r-2' }, { id: 'r-3' }].map((message, index) => ({
      ...message,
      seq: index + 1,
    }));
    expect(await exactlyOnceProblems(outcome, async () => clean, ['s'])).toEqual([]);
  });
});
