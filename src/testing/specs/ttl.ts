/**
 * Retention: a session saved with `ttlMs` disappears when it expires (from every read, before any
 * purge), appends slide its expiry, and `purgeExpired` removes what expired.
 * @module
 */
import { expect } from 'vitest';
import { MAX_TTL_MS } from '../../bounds.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { FakeClock, conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const MINUTE = 60_000;

/** Registers the TTL spec. */
export function ttlSpec(suite: ConformanceSuite): void {
  suite.describe('ttl', 'retention (TTL)', (spec) => {
    spec.it('a session disappears from every read once its ttlMs has passed', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const saved = await store.save(Session.create({ id: freshId(), messages: conversation(2) }), { ttlMs: MINUTE });
      expect((await store.list())[0]?.expiresAt).toBe(new Date(clock.now() + MINUTE).toISOString());
      clock.advance(MINUTE - 1);
      expect((await store.get(saved.id))?.id).toBe(saved.id);
      clock.advance(1);
      expect(await store.get(saved.id)).toBeUndefined();
      await expectCode(() => store.load(saved.id), 'NOT_FOUND');
      await expectCode(() => store.readMessages(saved.id), 'NOT_FOUND');
      expect(await store.list()).toEqual([]);
    });

    spec.it('an expired session cannot be appended to or updated, and can be created again', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const saved = await store.save(Session.create({ id: freshId(), messages: conversation(2) }), { ttlMs: MINUTE });
      clock.advance(MINUTE);
      await expectCode(() => store.append(saved.id, [Message.user('too late', { id: 'late' })]), 'NOT_FOUND');
      await expectCode(
        () => store.save(saved.append(Message.user('too late', { id: 'late' })), { expectedVersion: saved.version }),
        'CONFLICT',
      );
      const recreated = await store.save(
        Session.create({ id: saved.id, messages: [Message.user('fresh start', { id: 'fresh' })] }),
        { expectedVersion: 0 },
      );
      const loaded = await store.load(saved.id);
      expect(loaded.messages.map((message) => message.id)).toEqual(['fresh']);
      expect(loaded.version).toBe(recreated.version);
      expect((await store.list())[0]?.expiresAt).toBeUndefined();
    });

    spec.it(
      'an expired session refuses appends with a version or a state and range reads, and nothing is written',
      async () => {
        let time = Date.UTC(2025, 0, 1);
        const store = await spec.open({ now: () => time });
        const saved = await store.save(
          Session.create({ id: freshId(), messages: conversation(2), variables: { step: 1 } }),
          { ttlMs: MINUTE },
        );
        time += MINUTE;
        const late = [Message.user('too late', { id: 'late' })];
        await expectCode(() => store.append(saved.id, late, { expectedVersion: saved.version }), 'NOT_FOUND');
        await expectCode(
          () => store.append(saved.id, late, { state: { metadata: {}, variables: { step: 2 } } }),
          'NOT_FOUND',
        );
        await expectCode(() => store.readMessages(saved.id, { limit: 1 }), 'NOT_FOUND');
        await expectCode(() => store.readMessages(saved.id, { afterSeq: 1, beforeSeq: 3 }), 'NOT_FOUND');
        // A millisecond earlier on the store's clock the session is live, exactly as it was saved.
        time -= 1;
        const loaded = await store.load(saved.id);
        expect(loaded.version).toBe(saved.version);
        expect(loaded.messages.map((message) => message.id)).toEqual(saved.messages.map((message) => message.id));
        expect(loaded.variables).toEqual({ step: 1 });
        expect((await store.readMessages(saved.id, { limit: 1 })).map((message) => message.id)).toEqual([
          saved.messages[1]?.id,
        ]);
      },
    );

    spec.it('purgeExpired removes expired sessions and returns how many', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const short = [freshId(), freshId()];
      for (const id of short) await store.save(Session.create({ id }), { ttlMs: MINUTE });
      const long = await store.save(Session.create({ id: freshId() }), { ttlMs: 10 * MINUTE });
      const forever = await store.save(Session.create({ id: freshId() }));
      expect(await store.purgeExpired()).toBe(0);
      clock.advance(MINUTE);
      expect(await store.purgeExpired()).toBe(2);
      expect(await store.purgeExpired()).toBe(0);
      expect((await store.list()).map((row) => row.id).sort()).toEqual([long.id, forever.id].sort());
      for (const id of short) expect(await store.get(id)).toBeUndefined();
      clock.advance(365 * 24 * 60 * MINUTE);
      expect(await store.purgeExpired()).toBe(1);
      expect((await store.list()).map((row) => row.id)).toEqual([forever.id]);
    });

    spec.it('an append slides the expiry; a retry that adds nothing does not', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const saved = await store.save(Session.create({ id: freshId() }), { ttlMs: MINUTE });
      clock.advance(50_000);
      await store.append(saved.id, [Message.user('still here', { id: 'here' })]);
      const slidTo = clock.now() + MINUTE;
      expect((await store.list())[0]?.expiresAt).toBe(new Date(slidTo).toISOString());
      clock.advance(50_000);
      // Past the first expiry, within the slid one.
      expect((await store.load(saved.id)).messages).toHaveLength(1);
      await store.append(saved.id, [Message.user('still here', { id: 'here' })]);
      expect((await store.list())[0]?.expiresAt).toBe(new Date(slidTo).toISOString());
      clock.advance(slidTo - clock.now());
      expect(await store.get(saved.id)).toBeUndefined();
    });

    spec.it(
      'defaultTtlMs applies to saves without ttlMs, and a save without either keeps a session forever',
      async () => {
        const clock = new FakeClock();
        const store = await spec.open({ now: clock.now, defaultTtlMs: MINUTE });
        const defaulted = await store.save(Session.create({ id: freshId() }));
        const explicit = await store.save(Session.create({ id: freshId() }), { ttlMs: 5 * MINUTE });
        clock.advance(MINUTE);
        expect(await store.get(defaulted.id)).toBeUndefined();
        expect((await store.get(explicit.id))?.id).toBe(explicit.id);
        const plain = await spec.open({ now: clock.now });
        const kept = await plain.save(Session.create({ id: freshId() }));
        clock.advance(10 * 365 * 24 * 60 * MINUTE);
        expect((await plain.get(kept.id))?.id).toBe(kept.id);
        expect(await plain.purgeExpired()).toBe(0);
      },
    );

    spec.it('an invalid ttlMs fails with INVALID_ARGUMENT and stores nothing', async () => {
      const store = await spec.open();
      const id = freshId();
      // Past MAX_TTL_MS (100 years) an expiry would leave the dates a store can write.
      for (const ttlMs of [
        0,
        -1,
        1.5,
        Number.NaN,
        '60000' as unknown as number,
        MAX_TTL_MS + 1,
        Number.MAX_SAFE_INTEGER,
      ]) {
        await expectCode(() => store.save(Session.create({ id }), { ttlMs }), 'INVALID_ARGUMENT');
      }
      expect(await store.get(id)).toBeUndefined();
    });
  });
}
