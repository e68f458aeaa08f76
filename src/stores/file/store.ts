/**
 * `fileStore`: the factory, light enough for the package root. It checks its options at once and
 * imports the driver (`driver.ts`, the whole file store) on the store's first operation.
 * @module
 */
import { lazyDriver } from '../../store/lazy-driver.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { FILE_DRIVER_SHAPE, fileDriverSettings, type FileDriverOptions } from './options.js';

/** Options of `fileStore`: the core store options and the driver's. */
export type FileStoreOptions = SessionStoreOptions & FileDriverOptions;

/** A `SessionStore` in `directory` (created when first written): chatstate's embedded default. */
export function fileStore(directory: string, options: FileStoreOptions = {}): SessionStore {
  const { name } = fileDriverSettings(directory, options);
  const driver = lazyDriver({ name, ...FILE_DRIVER_SHAPE }, async () =>
    (await import('./driver.js')).fileDriver(directory, options),
  );
  return createSessionStore(driver, options);
}
