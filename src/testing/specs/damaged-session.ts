/**
 * `damaged-session`: a stored session that cannot be read stays one session's problem. Listing
 * (all, by user) keeps working and shows it flagged `damaged` with why, other sessions read and
 * take appends, reading it fails with a typed `CORRUPT`, and deleting it works — an admin can
 * always remove it — after which the listing is clean.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the damaged-session spec. */
export function damagedSessionSpec(suite: ConformanceSuite): void {
  suite.describe('damaged-session', 'a damaged session', (spec) => {
    spec.it(
      'is listed as damaged, fails its own reads with CORRUPT, leaves the others working, and can be deleted',
      async () => {
        const store = await spec.open();
        const user = `user-${freshId()}`;
        const before = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(2) }));
        const bad = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(3) }));
        const after = await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
        await spec.damage(store, bad.id);

        const listed = await store.list();
        expect(listed.map((row) => row.id).sort()).toEqual([before.id, bad.id, after.id].sort());
        const row = listed.find((summary) => summary.id === bad.id);
        expect(row?.damaged).toEqual(expect.any(String));
        expect(row?.userId).toBe(user);
        for (const summary of listed) if (summary.id !== bad.id) expect(summary.damaged).toBeUndefined();
        expect((await store.list({ userId: user })).map((summary) => summary.id).sort()).toEqual(
          [before.id, bad.id].sort(),
        );
        // Paging past it walks every session once.
        const first = await store.list({ limit: 1 });
        const rest = await store.list({ after: first[0] });
        expect([...first, ...rest].map((summary) => summary.id).sort()).toEqual(listed.map((s) => s.id).sort());

        expect((await store.summary(bad.id))?.damaged).toBe(row?.damaged);
        await expectCode(() => store.load(bad.id), 'CORRUPT');
        expect((await store.load(before.id)).toJSON()).toEqual(before.toJSON());
        await store.append(after.id, [Message.user('still writable')]);
        expect((await store.load(after.id)).messages.at(-1)?.content).toBe('still writable');

        expect(await store.delete(bad.id)).toBe(true);
        expect((await store.list()).map((summary) => summary.id).sort()).toEqual([before.id, after.id].sort());
        await expectCode(() => store.load(bad.id), 'NOT_FOUND');
        // The id is free again.
        const again = await store.save(Session.create({ id: bad.id, messages: conversation(1) }));
        expect((await store.load(bad.id)).toJSON()).toEqual(again.toJSON());
      },
      { needs: ['damage'] },
    );
  });
}
