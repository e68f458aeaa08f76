/**
 * A deleted fork leaves its source's `metadata.forks`, on every store: through `SessionManager`
 * (the one owner; the CLI and the server call it), durably, with a concurrent writer's change kept.
 */
import { expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/index.js';
import { Message } from '../../src/message/message.js';
import { forkLog } from '../../src/session/fork-log.js';
import type { SessionStore } from '../../src/index.js';
import { describeEveryStore, storesOf } from '../support/stores-under-test.js';

const forkIds = async (store: SessionStore, id: string): Promise<string[]> =>
  forkLog((await store.load(id)).metadata).map((entry) => entry.sessionId);

await describeEveryStore(
  'a deleted fork',
  (subject) => {
    const stores = storesOf(subject);

    /** A manager over `store` (closed at the end of `work`) with source `trip` forked into `trip-a` and `trip-b`. */
    async function withForks(store: SessionStore, work: (manager: SessionManager) => Promise<void>): Promise<void> {
      const manager = new SessionManager({ store, autoSaveIntervalMs: false });
      try {
        await manager.create({ id: 'trip', messages: [Message.user('Lisbon or Porto?'), Message.assistant('Porto')] });
        const at = (await manager.load('trip')).messages[0] as Message;
        for (const id of ['trip-a', 'trip-b'])
          expect((await manager.fork('trip', { atMessageId: at.id, id })).recorded).toBe(true);
        await work(manager);
      } finally {
        await manager.close();
      }
    }

    it("leaves its source's metadata.forks and list row, durably", async () => {
      let store = await stores.open();
      await withForks(store, async (manager) => {
        expect(await manager.delete('trip-a')).toBe(true);
      });
      store = await stores.reopen(store);
      expect(await forkIds(store, 'trip')).toEqual(['trip-b']);
      expect((await store.summary('trip'))?.forks).toEqual(['trip-b']);
      expect((await store.list()).find((row) => row.id === 'trip')?.forks).toEqual(['trip-b']);
      expect(await store.get('trip-a')).toBeUndefined();
    });

    it("keeps the change another writer made to the source meanwhile (the store's CONFLICT, replayed)", async () => {
      const store = await stores.open();
      await withForks(store, async (manager) => {
        // A local change the manager holds: its next write of `trip` names the version it read.
        await manager.update('trip', (session) => session.withVariable('plan', 'trains'));
        // Another writer (a second manager, no shared cache) changes `trip` in the store first.
        const other = new SessionManager({ store, autoSaveIntervalMs: false });
        try {
          await other.append('trip', Message.user('and Coimbra?'));
          await other.update('trip', (session) => session.withMetadata({ rating: 5 }));
          await other.save('trip');
        } finally {
          await other.close();
        }
        expect(await manager.delete('trip-a')).toBe(true);
      });
      const stored = await store.load('trip');
      expect(forkLog(stored.metadata).map((entry) => entry.sessionId)).toEqual(['trip-b']);
      expect(stored.metadata.rating).toBe(5);
      expect(stored.variables).toMatchObject({ plan: 'trains' });
      expect(stored.messages.map((message) => message.content)).toContain('and Coimbra?');
    });

    it('of a source deleted first is deleted without an error, and nothing else is written', async () => {
      const store = await stores.open();
      await withForks(store, async (manager) => {
        const errors: unknown[] = [];
        manager.on('error', (error) => errors.push(error));
        expect(await manager.delete('trip')).toBe(true);
        expect(await manager.delete('trip-a')).toBe(true);
        expect(errors).toEqual([]);
      });
      expect(await store.get('trip')).toBeUndefined();
      expect(await store.get('trip-a')).toBeUndefined();
      expect((await store.load('trip-b')).metadata.forkedFrom).toMatchObject({ sessionId: 'trip' });
    });
  },
  'fork-delete',
);
