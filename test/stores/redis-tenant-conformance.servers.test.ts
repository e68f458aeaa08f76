/**
 * A tenant's view of a Redis store is a store: the conformance kit runs against `tenantStore` over
 * a real server (see `test/tenancy/tenant-store-conformance.test.ts` for the embedded stores), with
 * another tenant's session of the same id and user beside it under the same key prefix.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { deleteKeysUnder, keyContents, redisTestServer } from '../support/redis-server.js';
import { wrappedStore } from '../support/wrapped-store.js';

const server = await redisTestServer();

if (server.url === undefined) {
  console.warn(`[redis] tenant view conformance skipped: ${server.skip}`);
  describe.skip(`SessionStore conformance: tenant view (redis) [skipped: ${server.skip}]`, () => {
    it('runs against a real Redis server', () => undefined);
  });
} else {
  const url = server.url;
  const admin = new Redis(url);
  /** The store under each view, and its key prefix. */
  const under = new WeakMap<SessionStore, { store: SessionStore; prefix: string }>();

  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  const underOf = (view: SessionStore): { store: SessionStore; prefix: string } => {
    const found = under.get(view);
    if (found === undefined) throw new Error('not a view this suite created');
    return found;
  };

  /** Tenant `acme`'s view; a new prefix also holds tenant `other`'s session of the same id and user. */
  const view = async (prefix: string, options: Parameters<typeof redisStore>[1], fresh: boolean) => {
    const store = await redisStore(url, { ...options, prefix });
    if (fresh)
      await tenantStore(store, { tenant: 'other' }).save(Session.create({ id: 'neighbour', userId: 'user-alice' }));
    const scoped = tenantStore(store, { tenant: 'acme' });
    under.set(scoped, { store, prefix });
    return scoped;
  };

  runStoreConformance({
    name: 'tenant view (redis)',
    create: (options) => view(`tenant:${randomBytes(6).toString('hex')}:`, options, true),
    async destroy(scoped) {
      const { store, prefix } = underOf(scoped);
      await scoped.close();
      await store.close();
      await deleteKeysUnder(admin, prefix);
    },
    async reopen(scoped, options) {
      // The kit only closes a second handle: this one's store (its connection) closes with it.
      const second = await view(underOf(scoped).prefix, options, false);
      const { store } = underOf(second);
      return wrappedStore(second, { close: () => second.close().then(() => store.close()) });
    },
    // Every key under the prefix: the other tenant's too, so a tenant's forget is seen not to leave
    // its user's text anywhere in the store under the view.
    contents: (scoped) => keyContents(admin, underOf(scoped).prefix),
    capabilities: { changeFeed: 'all' },
    skip: { 'cross-process': "the kit's child processes open the store's URL, not a tenant's view" },
  });
}
