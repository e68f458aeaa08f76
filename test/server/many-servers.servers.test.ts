/**
 * Three `chatstate serve` processes on one Postgres, three on one Redis, and three on one Redis
 * Cluster: clients append to shared sessions through any of them, with If-Match and retries on 412. Afterwards every
 * acknowledged append is stored exactly once, sequence numbers run 1..n with no gap, and an event
 * stream on one server sees an append made through another within a few seconds, although the
 * servers poll only every ten minutes: the store's change feed (LISTEN/NOTIFY, pub/sub) wakes it.
 * Real processes, real HTTP on 127.0.0.1, bounded loops and waits.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey } from '../../src/server/auth/api-keys.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { clusterAdmin, deleteClusterKeysUnder, redisClusterTestServer } from '../support/redis-cluster.js';
import { deleteKeysUnder, redisTestServer } from '../support/redis-server.js';

const SERVERS = 3;
const SESSIONS = 4;
const CLIENTS = 6;
const APPENDS_PER_CLIENT = 25;
const MAX_ATTEMPTS = 50;
/** The servers' poll of their event streams: far longer than any wait below, so only the feed can wake a stream. */
const POLL_MS = 600_000;
/** How long a change made through one server may take to reach a stream on another. */
const TOLD_WITHIN_MS = 5000;

type Served = ServeProcess;

/** The scenario over servers on `storeUrl()`; `cleanup` removes the store's data afterwards. */
function manyServers(storeUrl: () => string, cleanup: () => Promise<void>): void {
  const key = newKey({ tenant: 'shared', role: 'admin' });
  let dir = '';
  const servers: Served[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chatstate-many-servers-'));
    const keys = join(dir, 'keys.json');
    await writeFile(keys, JSON.stringify({ keys: [key.entry] }));
    for (let n = 0; n < SERVERS; n++)
      servers.push(await startServe(['--store', storeUrl(), '--keys', keys, '--event-poll-ms', String(POLL_MS)]));
  }, 600_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
    await cleanup();
  });

  const headers = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };
  const call = (server: Served, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { ...headers, ...extra },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('every acknowledged append through any server is stored exactly once, in one sequence', async () => {
    for (let s = 0; s < SESSIONS; s++)
      expect((await call(servers[0] as Served, 'POST', '/sessions', { id: `shared-${s}` })).status).toBe(201);
    const acknowledged = new Map<string, string[]>();
    let retries = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let n = 0; n < APPENDS_PER_CLIENT; n++) {
          const session = `shared-${(client + n) % SESSIONS}`;
          const id = `c${client}-n${n}`;
          for (let attempt = 0; ; attempt++) {
            if (attempt >= MAX_ATTEMPTS) throw new Error(`${id}: no append after ${MAX_ATTEMPTS} attempts`);
            const through = servers[(client + n + attempt) % SERVERS] as Served;
            // The version to expect: the session's ETag now, read through another server than the write.
            const head = await call(
              servers[(client + attempt + 1) % SERVERS] as Served,
              'GET',
              `/sessions/${session}/messages?limit=1`,
            );
            await head.arrayBuffer();
            const current = await call(through, 'GET', `/sessions/${session}`);
            const etag = current.headers.get('etag') as string;
            await current.arrayBuffer();
            const answer = await call(
              through,
              'POST',
              `/sessions/${session}/messages`,
              { messages: [{ id, role: 'user', content: `append ${id}` }] },
              { 'if-match': etag },
            );
            await answer.arrayBuffer();
            if (answer.status === 200) {
              acknowledged.set(session, [...(acknowledged.get(session) ?? []), id]);
              break;
            }
            expect(answer.status).toBe(412);
            retries++;
          }
        }
      }),
    );
    let total = 0;
    for (let s = 0; s < SESSIONS; s++) {
      const session = `shared-${s}`;
      const read = await call(servers[s % SERVERS] as Served, 'GET', `/sessions/${session}`);
      const stored = ((await read.json()) as { messages: Array<{ id: string; seq: number }> }).messages;
      expect(stored.map((message) => message.seq)).toEqual(stored.map((_, index) => index + 1));
      const ids = stored.map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual([...(acknowledged.get(session) ?? [])].sort());
      total += ids.length;
    }
    expect(total).toBe(CLIENTS * APPENDS_PER_CLIENT);
    // With six writers on four sessions, stale versions happen: the retries are what If-Match is for.
    expect(retries).toBeGreaterThan(0);
  }, 180_000);

  it('an event stream on one server tells, within seconds, an append made through another', async () => {
    const [first, second, third] = servers as [Served, Served, Served];
    expect((await call(first, 'POST', '/sessions', { id: 'watched' })).status).toBe(201);
    const stream = await fetch(`${first.url}/sessions/watched/events`, { headers });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    // Reads until `pattern` shows, failing after `ms`: no stream may wait for a poll.
    const until = async (pattern: RegExp, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!pattern.test(text)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`not told within ${ms} ms: ${pattern}; the stream said:\n${text}`);
        let timer: NodeJS.Timeout | undefined;
        const chunk = await Promise.race([
          reader.read(),
          new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), left))),
        ]);
        clearTimeout(timer);
        if (chunk === 'late') continue;
        if (chunk.done) throw new Error(`the stream ended before ${pattern}:\n${text}`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await until(/event: ready/, TOLD_WITHIN_MS);
    const started = Date.now();
    await call(second, 'POST', '/sessions/watched/messages', { messages: [{ id: 'w1', role: 'user', content: 'hi' }] });
    await until(/"id":"w1"/, TOLD_WITHIN_MS);
    // And the next one, through the third server.
    await call(third, 'POST', '/sessions/watched/messages', {
      messages: [{ id: 'w2', role: 'user', content: 'again' }],
    });
    await until(/"id":"w2"/, TOLD_WITHIN_MS);
    const elapsed = Date.now() - started;
    await reader.cancel();
    expect(text).toMatch(/event: change\ndata: [^\n]*"id":"w1"[^\n]*\nid: 2\n/);
    expect(text).toMatch(/event: change\ndata: [^\n]*"id":"w2"[^\n]*\nid: 3\n/);
    expect(elapsed).toBeLessThan(2 * TOLD_WITHIN_MS);
  }, 60_000);
}

describeWithPostgres('many servers on one Postgres', (postgres) => {
  const schema = freshSchema('many_servers');
  manyServers(
    () => `${postgres().url}?schema=${schema}`,
    async () => {
      await adminQuery(postgres().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    },
  );
});

const redis = await redisTestServer();
// At the top level: a block skipped by a test-name filter runs no hooks, and must not leave the server running.
afterAll(async () => {
  if (redis.url !== undefined) await redis.stop();
});
describe.skipIf(redis.url === undefined)(
  `many servers on one Redis${redis.url === undefined ? ` (skipped: ${redis.skip})` : ''}`,
  () => {
    const prefix = `many:${randomBytes(6).toString('hex')}:`;
    manyServers(
      () => `${redis.url as string}?prefix=${prefix}`,
      async () => {
        const admin = new Redis(redis.url as string);
        await deleteKeysUnder(admin, prefix).catch(() => undefined);
        await admin.quit();
      },
    );
  },
);

const cluster = await redisClusterTestServer();
afterAll(async () => {
  if (cluster.url !== undefined) await cluster.stop();
});
describe.skipIf(cluster.url === undefined)(
  `many servers on one Redis Cluster${cluster.url === undefined ? ` (skipped: ${cluster.skip})` : ''}`,
  () => {
    const prefix = `many:${randomBytes(6).toString('hex')}:`;
    manyServers(
      () => `${cluster.url as string}?prefix=${encodeURIComponent(prefix)}`,
      async () => {
        const admin = clusterAdmin(cluster.url as string);
        await deleteClusterKeysUnder(admin, prefix).catch(() => undefined);
        await admin.quit();
      },
    );
  },
);
