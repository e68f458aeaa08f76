/**
 * The file store against the conformance suite: every store is a fresh temporary directory,
 * removed after its test; `reopen` opens a second store on the same directory, and child
 * processes open it by its `file:` URL after importing the built-in stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { directoryBackup } from '../support/backups.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';

const directories = new WeakMap<SessionStore, string>();

function directoryOf(store: SessionStore): string {
  const directory = directories.get(store);
  if (directory === undefined) throw new Error('not a store this suite created');
  return directory;
}

runStoreConformance({
  name: 'file',
  async create(options) {
    const directory = mkdtempSync(join(tmpdir(), 'chatstate-file-conformance-'));
    const store = fileStore(directory, options);
    directories.set(store, directory);
    return store;
  },
  async destroy(store) {
    await store.close();
    rmSync(directoryOf(store), { recursive: true, force: true });
  },
  async reopen(store, options) {
    const second = fileStore(directoryOf(store), options);
    directories.set(second, directoryOf(store));
    return second;
  },
  crossProcess: { url: (store) => `file:${directoryOf(store)}`, register: BUILT_IN_STORES },
  directory: directoryOf,
  backup: async (store) => directoryBackup(directoryOf(store), async (copy, options) => fileStore(copy, options)),
});
