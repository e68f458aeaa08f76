/**
 * The shared change feeds through real network faults (the fault proxy between the listening
 * store and its server): the listening connection reset → `interrupted`, changes made meanwhile
 * by another store are lost for the listener → `reset` once it listens again, then later changes
 * arrive again, and a manager trusting the feed does not serve what it cached before the gap; a
 * feed that cannot connect at all says so (typed) and never crashes the process.
 * Postgres (LISTEN/NOTIFY) and Redis (pub/sub), real servers.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { SessionManager } from '../../src/manager/index.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { ChangeEvent } from '../../src/store/change-types.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { deleteKeysUnder, redisTestServer } from '../support/redis-server.js';
import { TIMEOUTS, eventually } from '../support/store-outage.js';

const WAIT_MS = 15_000;

/** Every event a feed told, with a bounded wait for the one wanted. */
class Heard {
  readonly events: ChangeEvent[] = [];
  readonly stop: () => void;
  constructor(store: SessionStore) {
    const feed = store.changes;
    if (feed === undefined) throw new Error('no change feed');
    this.stop = feed.subscribe((event) => void this.events.push(event));
  }
  async until(what: string, matches: (event: ChangeEvent) => boolean, from = 0): Promise<number> {
    const end = Date.now() + WAIT_MS;
    for (;;) {
      const index = this.events.findIndex((event, at) => at >= from && matches(event));
      if (index >= 0) return index;
      if (Date.now() > end)
        throw new Error(`not heard within ${WAIT_MS} ms: ${what}; heard ${JSON.stringify(this.events)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Resolves once the store's feed listens (bounded). */
async function live(store: SessionStore): Promise<void> {
  const end = Date.now() + WAIT_MS;
  while (store.changes?.state !== 'live') {
    if (Date.now() > end) throw new Error(`the feed is still ${store.changes?.state} after ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const appended = (id: string, version: number) => (event: ChangeEvent) =>
  event.type === 'change' && event.kind === 'append' && event.id === id && event.version === version;

interface Backend {
  /** The listening store, through `proxy`. */
  listening(proxyPort: number): Promise<SessionStore>;
  /** A writer that reaches the server directly. */
  writer(): Promise<SessionStore>;
  serverPort(): number;
}

/** The fault scenario, the same for both backends. */
function feedFaults(name: string, backend: () => Backend): void {
  let proxy: FaultProxy;
  let listening: SessionStore;
  let writer: SessionStore;

  beforeAll(async () => {
    proxy = await startFaultProxy(backend().serverPort());
    // Retried while UNAVAILABLE: a busy machine may not connect within the short test timeouts at once.
    listening = await eventually(() => backend().listening(proxy.port));
    writer = await eventually(() => backend().writer());
  });
  afterAll(async () => {
    await listening?.close();
    await writer?.close();
    await proxy?.close();
  });

  it(`${name}: a reset listener reports interrupted, then reset once back, then hears changes again`, async () => {
    const heard = new Heard(listening);
    // A manager trusting the feed: after the gap it must not serve what it cached before.
    const manager = new SessionManager({ store: listening, autoSaveIntervalMs: false, freshness: 'feed' });
    try {
      await live(listening);
      const id = `feed-${randomBytes(4).toString('hex')}`;
      await writer.save(Session.create({ id }));
      const before = await writer.append(id, [Message.user('before', { id: 'before' })]);
      await heard.until('the append before the fault', appended(id, before.version));
      expect((await manager.load(id)).version).toBe(before.version);

      await proxy.setMode('reset');
      const cut = await heard.until('interrupted', (event) => event.type === 'interrupted');
      const interruption = heard.events[cut] as Extract<ChangeEvent, { type: 'interrupted' }>;
      expect(ChatstateError.hasCode(interruption.error, 'UNAVAILABLE')).toBe(true);
      expect(listening.changes?.state).not.toBe('live');
      // Made while the listener is away: its notification is lost for it, which the reset covers.
      const during = await writer.append(id, [Message.user('during', { id: 'during' })]);

      await proxy.setMode('pass');
      const reset = await heard.until('reset', (event) => event.type === 'reset', cut);
      expect(heard.events[reset]).toEqual({ type: 'reset', reason: 'reconnected' });
      expect(listening.changes?.state).toBe('live');
      expect(heard.events.slice(cut).some(appended(id, during.version))).toBe(false);
      // The missed append is not hidden behind the manager's cache: the reset makes it read the head.
      expect((await manager.load(id)).version).toBe(during.version);

      const after = await writer.append(id, [Message.user('after', { id: 'after' })]);
      await heard.until('the append after the fault', appended(id, after.version), reset);
      // The listening store itself serves again too.
      expect((await listening.load(id)).version).toBe(after.version);
    } finally {
      await manager.close();
      heard.stop();
      await proxy.setMode('pass');
    }
  }, 60_000);

  it(`${name}: a feed that cannot connect reports UNAVAILABLE, keeps trying, and does not crash`, async () => {
    // A reset first drops the pooled connections, which a refusing port alone would leave working.
    await proxy.setMode('reset');
    await proxy.setMode('refuse');
    const heard = new Heard(listening);
    try {
      // Its first listener starts a new connection, which is refused.
      const cut = await heard.until('interrupted', (event) => event.type === 'interrupted');
      const interruption = heard.events[cut] as Extract<ChangeEvent, { type: 'interrupted' }>;
      expect(ChatstateError.hasCode(interruption.error, 'UNAVAILABLE')).toBe(true);
      expect(interruption.error.details).toMatchObject({ store: name, retryable: true });
      await proxy.setMode('pass');
      await heard.until('reset', (event) => event.type === 'reset', cut);
      const id = `late-${randomBytes(4).toString('hex')}`;
      const saved = await writer.save(Session.create({ id }));
      await heard.until(
        'the save after the outage',
        (event) => event.type === 'change' && event.id === id && event.version === saved.version,
      );
    } finally {
      heard.stop();
      await proxy.setMode('pass');
    }
  }, 60_000);
}

describeWithPostgres('change feed faults: postgres', (postgres) => {
  const schema = freshSchema('feed_faults');
  afterAll(async () => {
    await adminQuery(postgres().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  });
  feedFaults('postgres', () => ({
    serverPort: () => Number(new URL(postgres().url).port),
    listening: (port) => {
      const url = new URL(postgres().url);
      url.port = String(port);
      return postgresStore(url.toString(), { schema, ...TIMEOUTS });
    },
    writer: () => postgresStore(postgres().url, { schema }),
  }));
});

const redis = await redisTestServer();
// At the top level: a block skipped by a test-name filter runs no hooks, and must not leave the server running.
afterAll(async () => {
  if (redis.url !== undefined) await redis.stop();
});
describe.skipIf(redis.url === undefined)(
  `change feed faults: redis${redis.url === undefined ? ` (skipped: ${redis.skip})` : ''}`,
  () => {
    const url = redis.url as string;
    const prefix = `feed:${randomBytes(6).toString('hex')}:`;
    afterAll(async () => {
      const admin = new Redis(url);
      await deleteKeysUnder(admin, prefix);
      await admin.quit();
    });
    feedFaults('redis', () => ({
      serverPort: () => Number(new URL(url).port),
      listening: (port) => redisStore(`redis://127.0.0.1:${port}`, { prefix, ...TIMEOUTS }),
      writer: () => redisStore(url, { prefix }),
    }));
  },
);
