/**
 * `chatstate/stores/memory`: the in-memory store, for tests and short-lived processes.
 * @module
 */
export { memoryStore, type MemoryStoreOptions } from './memory-store.js';
export { memoryDriver, type MemoryDriverOptions } from './memory-driver.js';
