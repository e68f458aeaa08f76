/**
 * The SQLite store against the conformance suite: every store is a fresh database file in its own
 * temporary directory, removed after its test; `reopen` opens a second connection on the same
 * file, and child processes open it by its `sqlite:` URL after importing the built-in stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { directoryBackup } from '../support/backups.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';

const files = new WeakMap<SessionStore, string>();

function fileOf(store: SessionStore): string {
  const file = files.get(store);
  if (file === undefined) throw new Error('not a store this suite created');
  return file;
}

runStoreConformance({
  name: 'sqlite',
  async create(options) {
    const file = join(mkdtempSync(join(tmpdir(), 'chatstate-sqlite-conformance-')), 'sessions.db');
    const store = await sqliteStore(file, options);
    files.set(store, file);
    return store;
  },
  async destroy(store) {
    await store.close();
    rmSync(dirname(fileOf(store)), { recursive: true, force: true });
  },
  async reopen(store, options) {
    const second = await sqliteStore(fileOf(store), options);
    files.set(second, fileOf(store));
    return second;
  },
  crossProcess: { url: (store) => `sqlite:${fileOf(store)}`, register: BUILT_IN_STORES },
  capabilities: { textSearch: true },
  directory: (store) => dirname(fileOf(store)),
  backup: async (store) =>
    directoryBackup(dirname(fileOf(store)), async (copy, options) => sqliteStore(join(copy, 'sessions.db'), options)),
  // A second connection writes what no store writes (a negative version), as a hand edit would.
  async damage(store, id) {
    const db = new Database(fileOf(store));
    try {
      db.prepare('UPDATE sessions SET version = -1 WHERE id = ?').run(id);
    } finally {
      db.close();
    }
  },
});
