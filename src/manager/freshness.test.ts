/**
 * The manager's cache against another writer of the same data, for the embedded stores: two
 * store objects over one memory driver, one directory (file store), one SQLite file. The server
 * stores run the same scenario against real servers (test/stores/postgres-manager-freshness.test.ts,
 * test/stores/redis-manager-freshness.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { createSessionStore } from '../store/session-store.js';
import type { SessionStore } from '../store/session-store-types.js';
import { memoryStore } from '../stores/memory.js';
import { SessionManager } from './session-manager.js';
import { Freshness } from './freshness.js';
import { wrappedStore } from '../../test/support/wrapped-store.js';
import { fileStore } from '../stores/file/store.js';
import { memoryDriver } from '../stores/memory.js';
import { sqliteStore } from '../stores/sqlite/index.js';
import { managerFreshnessTests } from '../../test/support/manager-freshness.js';

describe('SessionManager freshness across store objects', () => {
  managerFreshnessTests(
    'memory (two stores over one driver)',
    async () => {
      const driver = memoryDriver();
      return { mine: createSessionStore(driver), other: createSessionStore(driver) };
    },
    async ({ mine }) => mine.close(),
    true,
  );

  const dirs = new Map<object, string>();
  managerFreshnessTests(
    'file (two stores over one directory)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chatstate-freshness-'));
      const stores = { mine: fileStore(dir), other: fileStore(dir) };
      dirs.set(stores, dir);
      return stores;
    },
    async (stores) => {
      await stores.mine.close();
      await stores.other.close();
      rmSync(dirs.get(stores) as string, { recursive: true, force: true });
    },
    false,
  );

  managerFreshnessTests(
    'sqlite (two stores over one file)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chatstate-freshness-'));
      const file = join(dir, 'sessions.db');
      const stores = { mine: await sqliteStore(file), other: await sqliteStore(file) };
      dirs.set(stores, dir);
      return stores;
    },
    async (stores) => {
      await stores.mine.close();
      await stores.other.close();
      rmSync(dirs.get(stores) as string, { recursive: true, force: true });
    },
    false,
  );
});

describe('SessionManager freshness: what each mode reads', () => {
  /** A memory store whose head reads (`summary`) are counted. */
  function counted(): { store: SessionStore; heads: () => number } {
    const inner = memoryStore();
    let heads = 0;
    const store = wrappedStore(inner, {
      summary: (id) => {
        heads += 1;
        return inner.summary(id);
      },
    });
    return { store, heads: () => heads };
  }

  it('revalidate reads one head per access of a cached session, and no messages', async () => {
    const { store, heads } = counted();
    const manager = new SessionManager({ store, autoSaveIntervalMs: false });
    await manager.create({ id: 'c' });
    const before = heads();
    for (let i = 0; i < 5; i++) await manager.load('c');
    expect(heads() - before).toBe(5);
    await manager.close();
    await store.close();
  });

  it('feed reads no head while the feed has told no change, and one after a change', async () => {
    const { store, heads } = counted();
    const manager = new SessionManager({ store, autoSaveIntervalMs: false, freshness: 'feed' });
    await manager.create({ id: 'c' });
    // The memory driver's feed is live at once.
    expect(store.changes?.state).toBe('live');
    const before = heads();
    for (let i = 0; i < 5; i++) await manager.load('c');
    expect(heads()).toBe(before);
    // Another writer of the same store (not through the manager): told, so the next load checks.
    await store.append('c', [Message.user('elsewhere', { id: 'e' })]);
    expect((await manager.load('c')).messages.map((message) => message.id)).toEqual(['e']);
    expect(heads()).toBe(before + 1);
    await manager.close();
    await store.close();
  });

  it("the manager's own writes do not make its cache read heads in feed mode", async () => {
    const { store, heads } = counted();
    const manager = new SessionManager({ store, autoSaveIntervalMs: false, freshness: 'feed' });
    await manager.create({ id: 'own' });
    const before = heads();
    await manager.append('own', Message.user('one', { id: 'one' }));
    await manager.update('own', (session) => session.withVariable('k', 1));
    await manager.save('own');
    await manager.load('own');
    expect(heads()).toBe(before);
    await manager.close();
    await store.close();
  });
});

describe('Freshness marks', () => {
  it('past its bound the oldest mark goes, and every entry confirmed before is read again', async () => {
    const driver = memoryDriver();
    const mine = createSessionStore(driver);
    const other = createSessionStore(driver);
    const freshness = new Freshness(mine, 'feed');
    expect(mine.changes?.state).toBe('live');
    await other.save(Session.create({ id: 'x' }));
    const confirmed = freshness.now();
    await other.append('x', [Message.user('elsewhere')]);
    // Told that x changed: the entry holding version 1 is not served unread.
    expect(freshness.trusted('x', 1, confirmed)).toBe(false);
    // 10,000 other sessions change: x's mark is forgotten, and with it what it told.
    for (let index = 0; index < 10_000; index++) await other.save(Session.create({ id: `s${index}` }));
    expect(freshness.trusted('x', 1, confirmed)).toBe(false);
    // Confirmed again, x is trusted as long as no change is told.
    const again = freshness.now();
    expect(freshness.trusted('x', 2, again)).toBe(true);
    freshness.close();
    await mine.close();
    await other.close();
  });
});
