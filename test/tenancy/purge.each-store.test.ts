/**
 * A tenant's purge is the store's purge under the tenant's id prefix: atomic per session, so a
 * session saved again while it runs is never lost, and no other tenant's session is touched. A
 * view bound to one user, whom no prefix names, purges what it lists instead, reading each listed
 * session again before removing it.
 */
import { expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { describeEveryStore, storesOf } from '../support/stores-under-test.js';
import { wrappedStore } from '../support/wrapped-store.js';

/** Why Redis is left out of the listing race. */
const REDIS = 'Redis removes an expired session itself, at once: none is left for a purge to list and race with';

const expire = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

await describeEveryStore(
  'tenant purge',
  (subject) => {
    const stores = storesOf(subject);

    it('goes through the store’s purge by prefix (no listing), and leaves another tenant’s expired session', async () => {
      const inner = await stores.open();
      let listedExpired = 0;
      const counting = wrappedStore(inner, {
        list: (query) => {
          if (query?.expired === true) listedExpired += 1;
          return inner.list(query);
        },
      });
      const acme = tenantStore(counting, { tenant: 'acme' });
      // `acme-b` and `acmex` start like `acme`, but not like its prefix `acme.`.
      for (const tenant of ['acme', 'acme-b', 'acmex'])
        await tenantStore(inner, { tenant }).save(Session.create({ id: 'old' }), { ttlMs: 1 });
      await expire();
      expect(await acme.purgeExpired()).toBe(1);
      expect(listedExpired).toBe(0);
      // Redis has already dropped the others' keys; their index entries, which only a purge clears, are still there.
      expect(await inner.purgeExpired()).toBe(2);
    });

    it('a session saved again after any of the calls the purge makes to the store is kept', async () => {
      // Tried after the purge's first call to the store, then its second, and so on while it makes
      // that many: a purge that read a session and then removed it by id would lose it after the read.
      for (let at = 0; ; at += 1) {
        const inner = await stores.open();
        const writer = tenantStore(inner, { tenant: 'acme' });
        await writer.save(Session.create({ id: 'renewed' }), { ttlMs: 1 });
        await expire();
        let calls = 0;
        let renewed = false;
        const then = async <T>(result: T): Promise<T> => {
          if (calls++ === at) {
            renewed = true;
            await writer.save(Session.create({ id: 'renewed', variables: { again: true } }), { expectedVersion: 0 });
          }
          return result;
        };
        const racing = wrappedStore(inner, {
          list: async (query) => then(await inner.list(query)),
          summary: async (id) => then(await inner.summary(id)),
          get: async (id) => then(await inner.get(id)),
          delete: async (id) => then(await inner.delete(id)),
          purgeExpired: async (options) => then(await inner.purgeExpired(options)),
        });
        await tenantStore(racing, { tenant: 'acme' }).purgeExpired();
        if (!renewed) break;
        expect((await writer.load('renewed')).variables).toEqual({ again: true });
      }
    });

    if (subject.name === 'redis') {
      it.skip(`a bound view reads each listed session again [skipped: ${REDIS}]`, () => undefined);
      return;
    }

    it('a bound view’s purge (by listing) keeps a session saved again after it listed it', async () => {
      const inner = await stores.open();
      const writer = tenantStore(inner, { tenant: 'acme' });
      const owner = tenantStore(inner, { tenant: 'acme', userId: 'u1' });
      await owner.save(Session.create({ id: 'renewed' }), { ttlMs: 1 });
      await owner.save(Session.create({ id: 'stale' }), { ttlMs: 1 });
      await writer.save(Session.create({ id: 'other-user', userId: 'u2' }), { ttlMs: 1 });
      await expire();
      // Another writer saves `renewed` again right after the purge has listed the expired sessions.
      let raced = false;
      const racing = wrappedStore(inner, {
        async list(query) {
          const rows = await inner.list(query);
          if (query?.expired === true && !raced) {
            raced = true;
            await owner.save(Session.create({ id: 'renewed', messages: [Message.user('still here')] }), {
              ttlMs: 60_000,
            });
          }
          return rows;
        },
      });
      const view = tenantStore(racing, { tenant: 'acme', userId: 'u1' });
      expect(await view.purgeExpired()).toBe(1);
      expect(raced).toBe(true);
      expect((await owner.load('renewed')).messages.map((message) => message.content)).toEqual(['still here']);
      expect(await owner.summary('stale')).toBeUndefined();
      // The tenant's other user is not the bound view's to purge.
      expect((await tenantStore(inner, { tenant: 'acme' }).list({ expired: true })).map((row) => row.id)).toEqual([
        'other-user',
      ]);
    });
  },
  'tenant-purge',
);
