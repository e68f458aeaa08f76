/**
 * `marks`: `store.marks(userId)` tells of each live session of the user what `list({ userId })`
 * tells (id, version, counts, creation, damage), whether the driver answers it itself
 * (`listMarks`) or the core pages through its listing, and it follows every write: an append, a
 * save, a delete, a new session, an expiry. Recall's index relies on it to notice changes.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionMark, SessionStore } from '../../store/session-store-types.js';
import { FakeClock, conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const MINUTE = 60_000;

function byId(a: SessionMark, b: SessionMark): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The marks of `userId`, sorted by id, after checking they are what the listing says. */
async function checkedMarks(store: SessionStore, userId: string): Promise<SessionMark[]> {
  const marks = await (store.marks as NonNullable<SessionStore['marks']>)(userId);
  const listed = (await store.list({ userId, limit: 1000, kinds: 'all' })).map(
    ({ id, version, createdAt, messageCount, tokenCount, damaged }) => ({
      id,
      version,
      createdAt,
      messageCount,
      tokenCount,
      ...(damaged === undefined ? {} : { damaged }),
    }),
  );
  const sorted = [...marks].sort(byId);
  expect(sorted).toEqual(listed.sort(byId));
  return sorted;
}

/** Registers the marks spec. */
export function marksSpec(suite: ConformanceSuite): void {
  suite.describe('marks', "the marks of a user's sessions", (spec) => {
    spec.it('are what list tells of each live session of the user, after every kind of write', async () => {
      const store = await spec.open();
      expect(typeof store.marks).toBe('function');
      const user = `user-${freshId()}`;
      const other = `user-${freshId()}`;
      expect(await checkedMarks(store, user)).toEqual([]);
      const kept = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(2) }));
      const brief = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(3) }));
      const gone = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(1) }));
      await store.save(Session.create({ id: freshId(), userId: other, messages: conversation(2) }));
      await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
      const first = await checkedMarks(store, user);
      expect(first.map((mark) => mark.id)).toEqual([kept.id, brief.id, gone.id].sort());
      expect(first.find((mark) => mark.id === brief.id)).toMatchObject({ version: brief.version, messageCount: 3 });

      await store.append(kept.id, [Message.user('one more')]);
      const resaved = await store.save(brief.append(Message.assistant('and another')), {
        expectedVersion: brief.version,
      });
      expect(await store.delete(gone.id)).toBe(true);
      const added = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(1) }));
      const second = await checkedMarks(store, user);
      expect(second.map((mark) => mark.id)).toEqual([kept.id, brief.id, added.id].sort());
      expect(second.find((mark) => mark.id === kept.id)?.messageCount).toBe(3);
      expect(second.find((mark) => mark.id === kept.id)?.version).toBeGreaterThan(kept.version);
      expect(second.find((mark) => mark.id === brief.id)).toMatchObject({ version: resaved.version, messageCount: 4 });
      await expectCode(() => (store.marks as NonNullable<SessionStore['marks']>)(''), 'INVALID_ID');
    });

    spec.it('leave out a session once it has expired', async () => {
      const clock = new FakeClock();
      const store = await spec.open({ now: clock.now });
      const user = `user-${freshId()}`;
      const kept = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(2) }));
      const brief = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(1) }), {
        ttlMs: MINUTE,
      });
      expect((await checkedMarks(store, user)).map((mark) => mark.id)).toEqual([kept.id, brief.id].sort());
      clock.advance(MINUTE);
      expect((await checkedMarks(store, user)).map((mark) => mark.id)).toEqual([kept.id]);
    });

    spec.it(
      'flag a damaged session as list does',
      async () => {
        const store = await spec.open();
        const user = `user-${freshId()}`;
        const good = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(2) }));
        const bad = await store.save(Session.create({ id: freshId(), userId: user, messages: conversation(3) }));
        await spec.damage(store, bad.id);
        const marks = await checkedMarks(store, user);
        expect(marks.map((mark) => mark.id)).toEqual([good.id, bad.id].sort());
        expect(marks.find((mark) => mark.id === bad.id)?.damaged).toEqual(expect.any(String));
        expect(marks.find((mark) => mark.id === good.id)?.damaged).toBeUndefined();
      },
      { needs: ['damage'] },
    );
  });
}
