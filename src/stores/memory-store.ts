/**
 * `memoryStore`: the factory, light enough for the package root; the driver (`memory-driver.ts`)
 * is imported on the store's first operation.
 * @module
 */
import { storeName } from '../store/driver-helpers.js';
import { lazyDriver, type DriverShape } from '../store/lazy-driver.js';
import { createSessionStore, type SessionStoreOptions } from '../store/session-store.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { MemoryDriverOptions } from './memory-driver.js';

/**
 * What every memory driver is, known before its module loads. Appends and range reads refuse
 * expired sessions themselves (the core reads no head first); records are kept as given (frozen)
 * and read back as the same objects (the core remembers their messages). Its change feed tells
 * every store over the same driver of each write.
 */
export const MEMORY_DRIVER_SHAPE = Object.freeze({
  capabilities: Object.freeze({ expiryInCommit: true, stableRecords: true, purgeByIdPrefix: true }),
  implements: Object.freeze(['purge', 'values', 'changeFeed', 'forget', 'tail', 'marks', 'readAt'] as const),
}) satisfies Omit<DriverShape, 'name'>;

/** Options of `memoryStore`: the core store options and the driver's. */
export interface MemoryStoreOptions extends SessionStoreOptions, MemoryDriverOptions {}

/** An in-memory `SessionStore`. */
export function memoryStore(options: MemoryStoreOptions = {}): SessionStore {
  const { name: given, ...core } = options;
  const name = storeName(given, 'memory');
  const driver = lazyDriver({ name, ...MEMORY_DRIVER_SHAPE }, async () =>
    (await import('./memory-driver.js')).memoryDriver({ name }),
  );
  return createSessionStore(driver, core);
}
