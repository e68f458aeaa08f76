/**
 * Concurrent appends inside one process: many appends in flight at once, none lost or duplicated,
 * and a compare-and-append race with exactly one winner.
 * @module
 */
import { expect } from 'vitest';
import { ChatstateError } from '../../errors.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { expectExactlyOnce, freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the in-process concurrency spec. */
export function concurrentAppendsSpec(suite: ConformanceSuite): void {
  suite.describe('concurrent-appends', 'concurrent appends in one process', (spec) => {
    spec.it('100 appends in flight at once all land exactly once, numbered 1..100', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const ids = Array.from({ length: 100 }, (_, index) => `c-${index}`);
      const results = await Promise.all(
        ids.map((messageId) => store.append(saved.id, [Message.user(`message ${messageId}`, { id: messageId })])),
      );
      expect(results.every((result) => result.appended.length === 1 && result.duplicates.length === 0)).toBe(true);
      expect(new Set(results.map((result) => result.appended[0]?.seq)).size).toBe(100);
      expect(new Set(results.map((result) => result.version)).size).toBe(100);
      await expectExactlyOnce(store, saved.id, ids);
      expect((await store.load(saved.id)).version).toBe(saved.version + 100);
    });

    spec.it('concurrent batches stay contiguous', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const batches = Array.from({ length: 20 }, (_, batch) =>
        Array.from({ length: 5 }, (_, index) => Message.user(`b${batch}`, { id: `b${batch}-${index}` })),
      );
      const results = await Promise.all(batches.map((batch) => store.append(saved.id, batch)));
      for (const result of results) {
        const numbers = result.appended.map((message) => message.seq ?? 0);
        expect(numbers).toEqual(Array.from({ length: 5 }, (_, index) => (numbers[0] ?? 0) + index));
      }
      await expectExactlyOnce(
        store,
        saved.id,
        batches.flat().map((message) => message.id),
      );
      const messages = (await store.load(saved.id)).messages;
      for (let start = 0; start < messages.length; start += 5) {
        expect(new Set(messages.slice(start, start + 5).map((message) => message.content)).size).toBe(1);
      }
    });

    spec.it('the same message appended 10 times at once is stored once and reported added once', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const message = Message.user('retried', { id: 'retried' });
      const results = await Promise.all(Array.from({ length: 10 }, () => store.append(saved.id, [message])));
      expect(results.filter((result) => result.appended.length === 1)).toHaveLength(1);
      expect(results.filter((result) => result.duplicates[0] === 'retried')).toHaveLength(9);
      await expectExactlyOnce(store, saved.id, ['retried']);
    });

    spec.it('10 appends expecting the same version: exactly one lands, the others fail with CONFLICT', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) =>
          store.append(saved.id, [Message.user(`racer ${index}`, { id: `racer-${index}` })], {
            expectedVersion: saved.version,
          }),
        ),
      );
      const landed = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const rejected = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
      );
      expect(landed).toHaveLength(1);
      expect(rejected.map((reason) => (ChatstateError.isInstance(reason) ? reason.code : String(reason)))).toEqual(
        Array(9).fill('CONFLICT'),
      );
      expect((await store.load(saved.id)).messages).toHaveLength(1);
    });

    spec.it('appends to 10 sessions at once keep each session to itself', async () => {
      const store = await spec.open();
      const sessions = await Promise.all(
        Array.from({ length: 10 }, () => store.save(Session.create({ id: freshId() }))),
      );
      await Promise.all(
        sessions.flatMap((session) =>
          Array.from({ length: 10 }, (_, index) =>
            store.append(session.id, [Message.user(`${session.id} ${index}`, { id: `${session.id}-${index}` })]),
          ),
        ),
      );
      for (const session of sessions) {
        await expectExactlyOnce(
          store,
          session.id,
          Array.from({ length: 10 }, (_, index) => `${session.id}-${index}`),
        );
      }
    });
  });
}
