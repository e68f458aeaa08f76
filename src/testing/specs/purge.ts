/**
 * A purge of one namespace: `purgeExpired({ idPrefix })` removes the expired sessions whose id
 * starts with the prefix and nothing else (not another prefix's, however alike — a `_` is no
 * wildcard — and not a live one), judges expiry when it removes (a session saved again after it
 * expired stays), and refuses options of another shape.
 * @module
 */
import { expect } from 'vitest';
import { Session } from '../../session/session.js';
import type { PurgeOptions } from '../../store/session-store-types.js';
import { FakeClock, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const MINUTE = 60_000;

/** Registers the purge-by-prefix spec. */
export function purgeSpec(suite: ConformanceSuite): void {
  suite.describe('purge', 'purgeExpired by id prefix', (spec) => {
    spec.it('purgeExpired({ idPrefix }) removes only the expired sessions under the prefix', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      // `_` and `-` in the prefix: a LIKE pattern would take `_` for any character.
      const base = freshId();
      const prefix = `${base}_t-`;
      const under = [prefix, `${prefix}1`, `${prefix}.2`];
      const alike = [`${base}xt-1`, `${base}_t`, `${base}_s-1`, base];
      for (const id of [...under, ...alike]) await store.save(Session.create({ id }), { ttlMs: MINUTE });
      const live = await store.save(Session.create({ id: `${prefix}live` }), { ttlMs: 10 * MINUTE });
      const forever = await store.save(Session.create({ id: `${prefix}forever` }));
      expect(await store.purgeExpired({ idPrefix: prefix })).toBe(0);
      clock.advance(MINUTE);
      expect(await store.purgeExpired({ idPrefix: prefix })).toBe(under.length);
      expect(await store.purgeExpired({ idPrefix: prefix })).toBe(0);
      const expired = await store.list({ expired: true, idPrefix: base, limit: 100 });
      expect(expired.map((row) => row.id).sort()).toEqual([...alike].sort());
      expect((await store.list({ idPrefix: base })).map((row) => row.id).sort()).toEqual([forever.id, live.id].sort());
      // A prefix that is a whole id takes that id too.
      expect(await store.purgeExpired({ idPrefix: base })).toBe(alike.length);
      expect(await store.list({ expired: true, idPrefix: base })).toEqual([]);
      expect((await store.list({ idPrefix: base })).map((row) => row.id).sort()).toEqual([forever.id, live.id].sort());
      // The longest prefix an id can have is taken: it matches at most that one id.
      expect(await store.purgeExpired({ idPrefix: 'a'.repeat(128) })).toBe(0);
    });

    spec.it(
      'a session saved again after it expired, before the purge, is kept with what it was saved with',
      async () => {
        const clock = new FakeClock();
        const store = await spec.open({ now: clock.now });
        const prefix = `${freshId()}.`;
        const renewed = `${prefix}renewed`;
        const stale = `${prefix}stale`;
        await store.save(Session.create({ id: renewed }), { ttlMs: MINUTE });
        await store.save(Session.create({ id: stale }), { ttlMs: MINUTE });
        clock.advance(MINUTE);
        // Expired, so absent: another writer creates it again (version 0), as a second server would.
        const again = await store.save(Session.create({ id: renewed, variables: { round: 2 } }), {
          expectedVersion: 0,
          ttlMs: MINUTE,
        });
        expect(await store.purgeExpired({ idPrefix: prefix })).toBe(1);
        const kept = await store.load(renewed);
        expect(kept.version).toBe(again.version);
        expect(kept.variables).toEqual({ round: 2 });
        expect(await store.get(stale)).toBeUndefined();
        // Its new expiry is the one a purge goes by.
        clock.advance(MINUTE);
        expect(await store.purgeExpired({ idPrefix: prefix })).toBe(1);
        expect(await store.get(renewed)).toBeUndefined();
      },
    );

    spec.it('purgeExpired refuses options of another shape with INVALID_ARGUMENT, and removes nothing', async () => {
      const store = await spec.open();
      const kept = await store.save(Session.create({ id: freshId() }));
      const refused: unknown[] = [
        42,
        'conf',
        null,
        [],
        { idPrefix: 7 },
        { idPrefix: ['conf'] },
        { idPrefix: '' },
        { idPrefix: 'a'.repeat(129) },
        { idPrefix: 'has space' },
        { idPrefix: 'tenant:' },
        { idPrefix: '../' },
        { prefix: 'conf' },
      ];
      for (const options of refused)
        await expectCode(() => store.purgeExpired(options as PurgeOptions), 'INVALID_ARGUMENT');
      expect((await store.get(kept.id))?.version).toBe(kept.version);
    });
  });
}
