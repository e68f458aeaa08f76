/**
 * A tenant's purge removes only what is still expired when it gets there: like the store's own
 * purge, it reads each listed session again before removing it, so a session saved again between
 * the listing and the removal stays. Over every store but Redis (see `REDIS`).
 */
import { expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { describeEveryStore, storesOf } from '../support/stores-under-test.js';
import { wrappedStore } from '../support/wrapped-store.js';

/** Why Redis is left out. */
const REDIS = 'Redis removes an expired session itself, at once: none is left for a purge to list and race with';

await describeEveryStore(
  'tenant purge',
  (subject) => {
    if (subject.name === 'redis') {
      it.skip(`reads each listed session again [skipped: ${REDIS}]`, () => undefined);
      return;
    }
    const stores = storesOf(subject);

    it('a session saved again after the purge listed it is not purged', async () => {
      const inner = await stores.open();
      const writer = tenantStore(inner, { tenant: 'acme' });
      await writer.save(Session.create({ id: 'renewed' }), { ttlMs: 1 });
      await writer.save(Session.create({ id: 'stale' }), { ttlMs: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Another writer saves `renewed` again right after the purge has listed the expired sessions.
      let raced = false;
      const racing = wrappedStore(inner, {
        async list(query) {
          const rows = await inner.list(query);
          if (query?.expired === true && !raced) {
            raced = true;
            await writer.save(Session.create({ id: 'renewed', messages: [Message.user('still here')] }), {
              ttlMs: 60_000,
            });
          }
          return rows;
        },
      });
      const view = tenantStore(racing, { tenant: 'acme' });
      expect(await view.purgeExpired()).toBe(1);
      expect(raced).toBe(true);
      expect((await writer.load('renewed')).messages.map((message) => message.content)).toEqual(['still here']);
      expect(await inner.list({ expired: true })).toEqual([]);
      expect(await writer.summary('stale')).toBeUndefined();
    });
  },
  'tenant-purge',
);
