/**
 * The cross-writer freshness of the `SessionManager`'s cache, for any store: a manager over one
 * store object, another writer over a second store object on the same data (another connection,
 * another file handle). A load after the other writer's append returns the new version — at once
 * with `revalidate`, within a bounded wait with `feed` — never the cached old one; a session the
 * other writer deleted (or deleted and made again at the same version) is not served from the cache;
 * local changes not saved yet still replay on the other writer's version.
 */
import { expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { SessionManager } from '../../src/manager/index.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';

/** Two store objects over the same data: the manager's, and the other writer's. */
export interface TwoStores {
  readonly mine: SessionStore;
  readonly other: SessionStore;
}

const FEED_WAIT_MS = 10_000;

async function eventuallyVersion(manager: SessionManager, id: string, version: number): Promise<void> {
  const end = Date.now() + FEED_WAIT_MS;
  for (;;) {
    const seen = (await manager.load(id)).version;
    if (seen === version) return;
    // Never newer than the store, and never a version the cache should have dropped by now.
    if (Date.now() > end)
      throw new Error(`the manager still serves version ${seen}, not ${version}, after ${FEED_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Registers the freshness tests. `open` gives two fresh store objects over the same empty data;
 * `close` closes them (and removes the data). `feed`: whether the stores' change feeds hear every
 * writer (then the `feed` mode is tested too; otherwise it must be refused).
 */
export function managerFreshnessTests(
  name: string,
  open: () => Promise<TwoStores>,
  close: (stores: TwoStores) => Promise<void>,
  feed: boolean,
): void {
  const run = (title: string, body: (stores: TwoStores) => Promise<void>): void => {
    it(`${name}: ${title}`, async () => {
      const stores = await open();
      try {
        await body(stores);
      } finally {
        await close(stores);
      }
    }, 60_000);
  };

  run("revalidate (default): a load after another writer's append returns the new version", async ({ mine, other }) => {
    const manager = new SessionManager({ store: mine, autoSaveIntervalMs: false });
    try {
      await manager.create({ id: 'shared', userId: 'u1' });
      expect((await manager.load('shared')).version).toBe(1);
      const appended = await other.append('shared', [Message.user('from elsewhere', { id: 'e1' })]);
      // No wait: the head read of the load sees the other writer's commit.
      const loaded = await manager.load('shared');
      expect(loaded.version).toBe(appended.version);
      expect(loaded.messages.map((message) => message.id)).toEqual(['e1']);
      // The manager's own append lands on top of it, not on the stale copy.
      await manager.append('shared', Message.user('mine', { id: 'm1' }));
      expect((await other.load('shared')).messages.map((message) => message.id)).toEqual(['e1', 'm1']);
    } finally {
      await manager.close();
    }
  });

  run(
    'revalidate: a session deleted, or deleted and made again, by another writer is not served from the cache',
    async ({ mine, other }) => {
      const manager = new SessionManager({ store: mine, autoSaveIntervalMs: false });
      try {
        await manager.create({ id: 'gone' });
        await manager.load('gone');
        await other.delete('gone');
        const missing = await manager.load('gone').catch((error: unknown) => error);
        expect(ChatstateError.hasCode(missing, 'NOT_FOUND'), String(missing)).toBe(true);

        await manager.create({ id: 'again', metadata: { generation: 1 } });
        await manager.load('again');
        await other.delete('again');
        // Same id, same version (1), another session.
        await new Promise((resolve) => setTimeout(resolve, 5));
        await other.save(Session.create({ id: 'again', metadata: { generation: 2 } }), { expectedVersion: 0 });
        expect((await manager.load('again')).metadata.generation).toBe(2);
      } finally {
        await manager.close();
      }
    },
  );

  run("revalidate: unsaved local changes still replay on the other writer's version", async ({ mine, other }) => {
    const manager = new SessionManager({ store: mine, autoSaveIntervalMs: false });
    try {
      await manager.create({ id: 'dirty' });
      await manager.update('dirty', (session) => session.withVariable('note', 'local'));
      await other.append('dirty', [Message.user('theirs', { id: 't1' })]);
      // Dirty: the manager's view (with its change) is served; the save replays it on theirs.
      expect((await manager.load('dirty')).variables.note).toBe('local');
      const saved = await manager.save('dirty');
      expect(saved.variables.note).toBe('local');
      expect(saved.messages.map((message) => message.id)).toEqual(['t1']);
      expect((await other.load('dirty')).variables.note).toBe('local');
    } finally {
      await manager.close();
    }
  });

  if (!feed) {
    run("feed: refused, since this store's feed does not hear other writers", async ({ mine }) => {
      expect(() => new SessionManager({ store: mine, freshness: 'feed' })).toThrow(/coverage 'all'/);
    });
    return;
  }

  run(
    "feed: the change feed drops the cached copy after another writer's append and delete",
    async ({ mine, other }) => {
      const manager = new SessionManager({ store: mine, autoSaveIntervalMs: false, freshness: 'feed' });
      try {
        await manager.create({ id: 'watched' });
        const feedLive = Date.now() + FEED_WAIT_MS;
        while (mine.changes?.state !== 'live') {
          if (Date.now() > feedLive) throw new Error('the feed did not become live');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect((await manager.load('watched')).version).toBe(1);
        const first = await other.append('watched', [Message.user('one', { id: 'w1' })]);
        await eventuallyVersion(manager, 'watched', first.version);
        const second = await other.append('watched', [Message.user('two', { id: 'w2' })]);
        await eventuallyVersion(manager, 'watched', second.version);
        expect((await manager.load('watched')).messages.map((message) => message.id)).toEqual(['w1', 'w2']);
        await other.delete('watched');
        const end = Date.now() + FEED_WAIT_MS;
        for (;;) {
          const result = await manager.load('watched').catch((error: unknown) => error);
          if (ChatstateError.hasCode(result, 'NOT_FOUND')) break;
          if (Date.now() > end) throw new Error('the deleted session is still served');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await manager.close();
      }
    },
  );
}
