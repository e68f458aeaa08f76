/**
 * `CONFLICT`: a stale `expectedVersion` fails and changes nothing, on `save` and on `append`.
 * @module
 */
import { expect } from 'vitest';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { conversation, expectCode, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the conflict spec. */
export function conflictSpec(suite: ConformanceSuite): void {
  suite.describe('conflict', 'CONFLICT on a stale version', (spec) => {
    spec.it('save with a stale expectedVersion fails with CONFLICT naming the store and changes nothing', async () => {
      const store = await spec.open();
      const first = await store.save(Session.create({ id: freshId(), messages: conversation(2) }));
      const second = await store.save(first.withMetadata({ by: 'writer B' }), { expectedVersion: first.version });
      expect(second.version).toBeGreaterThan(first.version);
      const error = await expectCode(
        () => store.save(first.withMetadata({ by: 'writer A' }), { expectedVersion: first.version }),
        'CONFLICT',
      );
      expect(error.message).toContain(store.name);
      expect((await store.load(first.id)).toJSON()).toEqual(second.toJSON());
    });

    spec.it('save with expectedVersion 0 creates a new session and fails with CONFLICT when one exists', async () => {
      const store = await spec.open();
      const session = Session.create({ id: freshId(), messages: conversation(1) });
      const created = await store.save(session, { expectedVersion: 0 });
      await expectCode(
        () =>
          store.save(Session.create({ id: session.id, messages: conversation(3, 'other') }), { expectedVersion: 0 }),
        'CONFLICT',
      );
      expect((await store.load(session.id)).toJSON()).toEqual(created.toJSON());
    });

    spec.it('save with an expectedVersion for a missing session fails with CONFLICT and creates nothing', async () => {
      const store = await spec.open();
      const id = freshId();
      await expectCode(() => store.save(Session.create({ id }), { expectedVersion: 3 }), 'CONFLICT');
      expect(await store.get(id)).toBeUndefined();
    });

    spec.it(
      'append with the current expectedVersion lands; with a stale one fails with CONFLICT and changes nothing',
      async () => {
        const store = await spec.open();
        const saved = await store.save(Session.create({ id: freshId() }));
        const first = await store.append(saved.id, [Message.user('one', { id: 'one' })], {
          expectedVersion: saved.version,
        });
        expect(first.version).toBeGreaterThan(saved.version);
        const error = await expectCode(
          () => store.append(saved.id, [Message.user('two', { id: 'two' })], { expectedVersion: saved.version }),
          'CONFLICT',
        );
        expect(error.message).toContain(store.name);
        const loaded = await store.load(saved.id);
        expect(loaded.messages.map((message) => message.id)).toEqual(['one']);
        expect(loaded.version).toBe(first.version);
        const second = await store.append(saved.id, [Message.user('two', { id: 'two' })], {
          expectedVersion: first.version,
        });
        expect(second.appended.map((message) => message.seq)).toEqual([2]);
      },
    );

    spec.it('an append moves the version a save must expect', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const appended = await store.append(saved.id, [Message.user('in between', { id: 'between' })]);
      await expectCode(
        () => store.save(saved.withMetadata({ stale: true }), { expectedVersion: saved.version }),
        'CONFLICT',
      );
      const loaded = await store.load(saved.id);
      expect(loaded.messages.map((message) => message.id)).toEqual(['between']);
      const resaved = await store.save(loaded.withMetadata({ fresh: true }), { expectedVersion: appended.version });
      expect(resaved.messages.map((message) => message.id)).toEqual(['between']);
    });

    spec.it('append to a missing session fails with NOT_FOUND and creates nothing', async () => {
      const store = await spec.open();
      const id = freshId();
      const error = await expectCode(() => store.append(id, [Message.user('orphan')]), 'NOT_FOUND');
      expect(error.message).toContain(store.name);
      await expectCode(() => store.append(id, [Message.user('orphan')], { expectedVersion: 0 }), 'NOT_FOUND');
      expect(await store.get(id)).toBeUndefined();
    });

    spec.it('an invalid expectedVersion fails with INVALID_ARGUMENT', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      for (const expectedVersion of [-1, 1.5, Number.NaN, '1' as unknown as number]) {
        await expectCode(() => store.save(saved, { expectedVersion }), 'INVALID_ARGUMENT');
        await expectCode(() => store.append(saved.id, [Message.user('x')], { expectedVersion }), 'INVALID_ARGUMENT');
      }
      expect((await store.load(saved.id)).toJSON()).toEqual(saved.toJSON());
    });
  });
}
