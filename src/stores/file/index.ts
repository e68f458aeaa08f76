/**
 * `chatstate/stores/file`: the file store, chatstate's embedded default (see `driver.ts` for how
 * it keeps sessions and why they survive a crash).
 * @module
 */
export { fileStore, type FileStoreOptions } from './store.js';
export { fileDriver } from './driver.js';
export { filePathFromUrl } from './file-url.js';
export type { FileDriverOptions } from './options.js';
export type { DamageReport } from './session-repair.js';
