/**
 * The manager's cache against another writer of the same data, for the embedded stores: two
 * store objects over one memory driver, one directory (file store), one SQLite file. The server
 * stores run the same scenario against real servers (test/stores/postgres-manager-freshness.test.ts,
 * test/stores/redis-manager-freshness.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { createSessionStore } from '../store/session-store.js';
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
