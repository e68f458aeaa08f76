/**
 * The memory store against the conformance suite. `memoryStore(options)` is
 * `createSessionStore(memoryDriver(), options)`; the suite builds it from those two parts so that
 * `reopen` can put a second store (other keys) over the same driver.
 */
import { createSessionStore } from '../../src/store/session-store.js';
import type { SessionStore, StoreDriver } from '../../src/store/types.js';
import { memoryDriver, memoryStore } from '../../src/stores/memory.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { describe, expect, it } from 'vitest';

const drivers = new WeakMap<SessionStore, StoreDriver>();

runStoreConformance({
  name: 'memory',
  async create(options) {
    const driver = memoryDriver();
    const store = createSessionStore(driver, options);
    drivers.set(store, driver);
    return store;
  },
  async reopen(store, options) {
    const driver = drivers.get(store);
    if (driver === undefined) throw new Error('reopen: not a store of this suite');
    const second = createSessionStore(driver, options);
    drivers.set(second, driver);
    return second;
  },
  skip: { 'cross-process': 'the memory store lives in one process' },
});

describe('memoryStore', () => {
  it('is the core store over a memory driver, named "memory"', async () => {
    const store = memoryStore();
    expect(store.name).toBe('memory');
    expect(await store.list()).toEqual([]);
    await store.close();
  });
});
