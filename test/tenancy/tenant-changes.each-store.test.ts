/**
 * A tenant view's change feed: only its tenant's sessions, with the tenant's own ids and user ids;
 * a view bound to a user only that user's. Over the memory store every change names its owner;
 * over Redis an append and a delete do not (the publish follows the script), so the bound view
 * looks an append's owner up, and tells a delete it cannot place as a `reset` — never another
 * user's session id.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { ChangeEvent } from '../../src/store/change-types.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { deleteKeysUnder, redisTestServer, type RedisTestServer } from '../support/redis-server.js';
import { storesToTest } from '../support/stores-under-test.js';

const WAIT_MS = 10_000;

function record(view: SessionStore): { events: ChangeEvent[]; stop: () => void } {
  const events: ChangeEvent[] = [];
  const feed = view.changes;
  if (feed === undefined) throw new Error('the view has no change feed');
  return { events, stop: feed.subscribe((event) => void events.push(event)) };
}

async function settle(condition: () => boolean): Promise<void> {
  const end = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > end) throw new Error('not told in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const summary = (events: readonly ChangeEvent[]): string[] =>
  events.map((event) =>
    event.type === 'change' ? `${event.kind} ${event.id} ${event.userId ?? '-'}` : `${event.type}`,
  );

const chosen = storesToTest(['memory', 'redis']);

describe.runIf(chosen.includes('memory'))('tenant view: change feed', () => {
  it("tells only the tenant's sessions, in its own names; a bound view only its user's", async () => {
    const store = memoryStore();
    const acme = tenantStore(store, { tenant: 'acme' });
    const alice = tenantStore(store, { tenant: 'acme', userId: 'alice' });
    const other = tenantStore(store, { tenant: 'other' });
    const heardAcme = record(acme);
    const heardAlice = record(alice);
    try {
      await acme.save(Session.create({ id: 'a1', userId: 'alice' }));
      await acme.save(Session.create({ id: 'b1', userId: 'bob' }));
      await acme.append('b1', [Message.user('hi bob', { id: 'm1' })]);
      await other.save(Session.create({ id: 'a1', userId: 'alice' }));
      await other.append('a1', [Message.user('elsewhere', { id: 'm2' })]);
      await acme.append('a1', [Message.user('hi alice', { id: 'm3' })]);
      await acme.delete('b1');
      expect(summary(heardAcme.events)).toEqual([
        'replace a1 alice',
        'replace b1 bob',
        'append b1 bob',
        'append a1 alice',
        'delete b1 bob',
      ]);
      expect(summary(heardAlice.events)).toEqual(['replace a1 alice', 'append a1 alice']);
    } finally {
      heardAcme.stop();
      heardAlice.stop();
      await store.close();
    }
  });
});

const redis: RedisTestServer = chosen.includes('redis')
  ? await redisTestServer()
  : { skip: 'CHATSTATE_TEST_STORES leaves Redis out' };
// At the top level: a block skipped by a test-name filter runs no hooks, and must not leave the server running.
afterAll(async () => {
  if (redis.url !== undefined) await redis.stop();
});
describe.skipIf(redis.url === undefined)(
  `tenant view: change feed over Redis${redis.url === undefined ? ` (skipped: ${redis.skip})` : ''}`,
  () => {
    const prefix = `tenant-feed:${randomBytes(6).toString('hex')}:`;
    afterAll(async () => {
      const admin = new Redis(redis.url as string);
      await deleteKeysUnder(admin, prefix);
      await admin.quit();
    });

    it("a bound view looks up an append's owner, and tells a delete it cannot place as a reset", async () => {
      const listening = await redisStore(redis.url as string, { prefix });
      const writing = await redisStore(redis.url as string, { prefix });
      const alice = tenantStore(listening, { tenant: 'acme', userId: 'alice' });
      const writer = tenantStore(writing, { tenant: 'acme' });
      const heard = record(alice);
      try {
        await settle(() => listening.changes?.state === 'live');
        await writer.save(Session.create({ id: 'mine', userId: 'alice' }));
        await writer.save(Session.create({ id: 'theirs', userId: 'bob' }));
        // Told by another store over Redis: no owner in the message.
        await writer.append('theirs', [Message.user('for bob', { id: 'b' })]);
        await writer.append('mine', [Message.user('for alice', { id: 'a' })]);
        await settle(() => summary(heard.events).includes('append mine alice'));
        await writer.delete('theirs');
        await settle(() => heard.events.some((event) => event.type === 'reset'));
        expect(summary(heard.events)).toEqual(['replace mine alice', 'append mine alice', 'reset']);
        expect(heard.events.at(-1)).toEqual({ type: 'reset', reason: 'unknown-owner' });
        expect(JSON.stringify(heard.events)).not.toContain('theirs');
      } finally {
        heard.stop();
        await listening.close();
        await writing.close();
      }
    });
  },
);
