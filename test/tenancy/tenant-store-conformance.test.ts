/**
 * A tenant's view of a store is a store: the whole conformance kit runs against `tenantStore`
 * over the memory store and over SQLite (files to inspect, full-text search), with another
 * tenant's session of the same id and user beside it in the same store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Session } from '../../src/session/session.js';
import { createSessionStore } from '../../src/store/session-store.js';
import type { StoreDriver } from '../../src/store/driver-types.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryDriver } from '../../src/stores/memory.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { runStoreConformance } from '../../src/testing/index.js';

const drivers = new WeakMap<SessionStore, StoreDriver>();

/** The view of tenant `acme`; a new store also holds a session of tenant `other` (same id, same user). */
async function view(
  driver: StoreDriver,
  options: Parameters<typeof createSessionStore>[1],
  fresh: boolean,
): Promise<SessionStore> {
  const store = createSessionStore(driver, options);
  if (fresh) {
    const neighbour = tenantStore(store, { tenant: 'other' });
    await neighbour.save(Session.create({ id: 'neighbour', userId: 'user-alice' }));
  }
  const scoped = tenantStore(store, { tenant: 'acme' });
  drivers.set(scoped, driver);
  return scoped;
}

runStoreConformance({
  name: 'tenant view (memory)',
  create: (options) => view(memoryDriver(), options, true),
  async reopen(store, options) {
    const driver = drivers.get(store);
    if (driver === undefined) throw new Error('reopen: not a store of this suite');
    return view(driver, options, false);
  },
  skip: {
    'cross-process': 'the memory store lives in one process',
  },
  capabilities: { changeFeed: 'all' },
});

/** The store under each SQLite view, and its file. */
const under = new WeakMap<SessionStore, { store: SessionStore; file: string }>();

async function sqliteView(file: string, options: Parameters<typeof sqliteStore>[1], fresh: boolean) {
  const store = await sqliteStore(file, options);
  if (fresh)
    await tenantStore(store, { tenant: 'other' }).save(Session.create({ id: 'neighbour', userId: 'user-alice' }));
  const scoped = tenantStore(store, { tenant: 'acme' });
  under.set(scoped, { store, file });
  return scoped;
}

function underOf(view: SessionStore): { store: SessionStore; file: string } {
  const found = under.get(view);
  if (found === undefined) throw new Error('not a view this suite created');
  return found;
}

runStoreConformance({
  name: 'tenant view (sqlite)',
  create: (options) =>
    sqliteView(join(mkdtempSync(join(tmpdir(), 'chatstate-tenant-conformance-')), 'sessions.db'), options, true),
  async destroy(view) {
    const { store, file } = underOf(view);
    await view.close();
    await store.close();
    rmSync(dirname(file), { recursive: true, force: true });
  },
  reopen: (view, options) => sqliteView(underOf(view).file, options, false),
  capabilities: { textSearch: true },
  directory: (view) => dirname(underOf(view).file),
  skip: { 'cross-process': "the kit's child processes open the store's URL, not a tenant's view" },
});
