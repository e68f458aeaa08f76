/**
 * `close`: pending writes finish first, closing twice is harmless, and every operation after it
 * fails with `CLOSED` (a mistake in the caller's lifecycle, not in its input) instead of hanging
 * or writing.
 * @module
 */
import { expect } from 'vitest';
import { ChatstateError } from '../../errors.js';
import { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import { freshId } from '../fixtures.js';
import type { ConformanceSuite } from '../suite.js';

/** Registers the close spec. */
export function closeSpec(suite: ConformanceSuite): void {
  suite.describe('close', 'close', (spec) => {
    spec.it('every operation after close fails with CLOSED, naming the store', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const search = store.searchText;
      // Open, the readiness check answers (and reads no session: it is not counted as one).
      await store.ping();
      await store.close();
      const calls: Record<string, () => Promise<unknown>> = {
        load: () => store.load(saved.id),
        get: () => store.get(saved.id),
        save: () => store.save(saved),
        append: () => store.append(saved.id, [Message.user('late')]),
        readMessages: () => store.readMessages(saved.id),
        list: () => store.list(),
        delete: () => store.delete(saved.id),
        purgeExpired: () => store.purgeExpired(),
        summary: () => store.summary(saved.id),
        ping: () => store.ping(),
        'values.get': () => store.values.get({ scope: 'app' }, 'k'),
        'values.getAll': () => store.values.getAll({ scope: 'app' }),
        'values.set': () => store.values.set({ scope: 'app' }, { k: 1 }),
        ...(search === undefined ? {} : { searchText: () => search({ text: 'late', limit: 1 }) }),
      };
      for (const [method, call] of Object.entries(calls)) {
        const failure = await call().then(
          () => new Error(`${method} succeeded after close`),
          (error: unknown) => error,
        );
        expect(ChatstateError.isInstance(failure), `${method}: ${String(failure)}`).toBe(true);
        expect((failure as ChatstateError).code, method).toBe('CLOSED');
        expect((failure as Error).message, method).toMatch(/closed/i);
        expect((failure as Error).message, method).toContain(store.name);
      }
    });

    spec.it('closing twice is harmless', async () => {
      const store = await spec.open();
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
    });

    spec.it('writes in flight when close is called finish first', async () => {
      const store = await spec.open();
      const saved = await store.save(Session.create({ id: freshId() }));
      const writes = [
        store.append(saved.id, [Message.user('in flight 1', { id: 'flight-1' })]),
        store.save(Session.create({ id: freshId(), messages: [Message.user('in flight 2')] })),
      ];
      const closing = store.close();
      const outcomes = await Promise.allSettled(writes);
      await closing;
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
    });
  });
}
