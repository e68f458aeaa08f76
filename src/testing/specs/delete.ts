/**
 * `delete`: true once, false after; the session is gone from every read and may be created again.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the delete spec. */
export function deleteSpec(suite: ConformanceSuite): void {
  suite.describe('delete', 'delete', (spec) => {
    spec.it('delete returns true, then false; the session is gone from every read', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId(), messages: conversation(3) }));
      await store.append(saved.id, [Message.user('appended', { id: 'appended' })]);
      expect(await store.delete(saved.id)).toBe(true);
      expect(await store.delete(saved.id)).toBe(false);
      expect(await store.get(saved.id)).toBeUndefined();
      await expectCode(() => store.load(saved.id), 'NOT_FOUND');
      await expectCode(() => store.readMessages(saved.id), 'NOT_FOUND');
      await expectCode(() => store.append(saved.id, [Message.user('after delete')]), 'NOT_FOUND');
      expect(await store.list()).toEqual([]);
    });

    spec.it('deleting a session that never existed returns false', async () => {
      const store = await spec.open();
      expect(await store.delete(freshId())).toBe(false);
    });

    spec.it('deleting one session leaves the others alone', async () => {
      const store = await spec.open();
      const kept = await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
      const removed = await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
      await store.delete(removed.id);
      expect((await store.load(kept.id)).toJSON()).toEqual(kept.toJSON());
    });

    spec.it('a deleted id can be created again, from scratch', async () => {
      const store = await spec.open();
      const first = await store.save(Session.create({ id: freshId(), messages: conversation(4, 'old') }));
      await store.delete(first.id);
      await store.save(Session.create({ id: first.id, messages: conversation(1, 'new') }), { expectedVersion: 0 });
      const loaded = await store.load(first.id);
      expect(loaded.messages.map((message) => message.id)).toEqual(['new-1']);
      // No message of the deleted session counts as already stored.
      const result = await store.append(first.id, conversation(2, 'old'));
      expect(result.appended.map((message) => message.id)).toEqual(['old-1', 'old-2']);
      expect((await store.list())[0]?.messageCount).toBe(3);
    });
  });
}
