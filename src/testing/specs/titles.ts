/**
 * Titles: a session's title (what `list` shows) is the caller's `metadata.title` when it sets one,
 * otherwise the first user message the session ever had; once set it stays — a save that drops
 * that message, as compaction does, keeps it, sealed again with the store's current key — until
 * the caller changes `metadata.title`.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { StateKeyRing } from '../../state/types.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

const OLD_RING: StateKeyRing = { current: 'k1', keys: { k1: 'conformance-title-key-one-0123456789' } };
const ROTATED_RING: StateKeyRing = {
  current: 'k2',
  keys: { k1: 'conformance-title-key-one-0123456789', k2: 'conformance-title-key-two-9876543210' },
};
const NEW_ONLY: StateKeyRing = { current: 'k2', keys: { k2: 'conformance-title-key-two-9876543210' } };

function dialog(): Message[] {
  return [
    Message.system('Be brief.'),
    Message.user('First question, the title'),
    Message.assistant('First answer.'),
    Message.user('Second question'),
    Message.assistant('Second answer.'),
  ];
}

/** What compaction leaves: the system message and the latest turn. */
function compacted(session: Session): Session {
  return session.withMessages([session.messages[0] as Message, ...session.messages.slice(3)]);
}

async function titleOf(store: SessionStore, id: string): Promise<string | undefined> {
  return (await store.summary(id))?.title;
}

/** Registers the titles spec. */
export function titlesSpec(suite: ConformanceSuite): void {
  suite.describe('titles', 'titles', (spec) => {
    spec.it('the title survives a save that drops the first user message (compaction)', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId(), messages: dialog() }));
      expect(await titleOf(store, saved.id)).toBe('First question, the title');
      const after = await store.save(compacted(saved));
      expect(after.messages.map((message) => Message.text(message))).not.toContain('First question, the title');
      expect(await titleOf(store, saved.id)).toBe('First question, the title');
      expect((await store.list()).find((row) => row.id === saved.id)?.title).toBe('First question, the title');
      // A later append and another save keep it too.
      await store.append(saved.id, [Message.user('Third question')]);
      await store.save(compacted(await store.load(saved.id)));
      expect(await titleOf(store, saved.id)).toBe('First question, the title');
    });

    spec.it('metadata.title sets the title, and changing it changes the title', async () => {
      const store = await spec.open();
      const saved = await store.save(
        Session.create({ id: freshId(), messages: dialog(), metadata: { title: '  Trip   planning ' } }),
      );
      expect(await titleOf(store, saved.id)).toBe('Trip planning');
      const renamed = await store.save(saved.withMetadata({ title: 'Lisbon in May' }));
      expect(await titleOf(store, saved.id)).toBe('Lisbon in May');
      // Compaction, or a save that no longer sets it, keeps the caller's title.
      await store.save(compacted(renamed));
      expect(await titleOf(store, saved.id)).toBe('Lisbon in May');
      await store.save(
        Session.fromJSON({ ...renamed.toJSON(), metadata: {}, version: (await store.load(saved.id)).version }),
      );
      expect(await titleOf(store, saved.id)).toBe('Lisbon in May');
      // A blank or non-string metadata.title sets nothing.
      await store.save((await store.load(saved.id)).withMetadata({ title: '   ' }));
      expect(await titleOf(store, saved.id)).toBe('Lisbon in May');
      await store.save((await store.load(saved.id)).withMetadata({ title: 42 }));
      expect(await titleOf(store, saved.id)).toBe('Lisbon in May');
      const long = 'x'.repeat(500);
      await store.save((await store.load(saved.id)).withMetadata({ title: long }));
      const shortened = (await titleOf(store, saved.id)) ?? '';
      expect(shortened.length).toBeLessThan(long.length);
      expect(shortened.endsWith('…')).toBe(true);
    });

    spec.it('metadata.title in the state of an append titles a session that has no title yet', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId(), messages: [Message.system('No title here.')] }));
      expect(await titleOf(store, saved.id)).toBeUndefined();
      await store.append(saved.id, [Message.user('Not the title')], {
        state: { metadata: { title: 'Chosen by the caller' }, variables: {} },
      });
      expect(await titleOf(store, saved.id)).toBe('Chosen by the caller');
    });

    spec.it(
      'a kept title is sealed again with the current key: after a rotation and a save, the new key alone reads it',
      async () => {
        const store = await spec.open({ encryption: OLD_RING });
        const saved = await store.save(Session.create({ id: freshId(), messages: dialog() }));
        const rotated = await spec.reopen(store, { encryption: ROTATED_RING });
        await rotated.save(compacted(await rotated.load(saved.id)));
        expect(await titleOf(rotated, saved.id)).toBe('First question, the title');
        const newOnly = await spec.reopen(store, { encryption: NEW_ONLY });
        expect(await titleOf(newOnly, saved.id)).toBe('First question, the title');
      },
      { needs: ['reopen'] },
    );
  });
}
