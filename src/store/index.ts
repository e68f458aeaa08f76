/**
 * The store contract and its core: `SessionStore`, the dumb `StoreDriver` a backend implements,
 * and `createSessionStore` that turns a driver into a store with every semantic rule applied.
 * Writing a store for another backend is one driver file plus a run of `chatstate/testing`.
 * @module
 */
export { createSessionStore, MAX_LIST_LIMIT, type SessionStoreOptions } from './session-store.js';
export { appendToHead, checkVersion, rangeOf, sortAndPage } from './driver-helpers.js';
export { RECORD_SCHEMA } from './codec.js';
export { RECOVERY_KEY, describeNotice, noticesOf } from './recovery.js';
export type { AtRestKey } from './at-rest.js';
export type {
  AppendCommit,
  AppendOptions,
  AppendOutcome,
  AppendResult,
  DriverCapabilities,
  DriverRange,
  HeadRecord,
  ListQuery,
  MessageRange,
  MessageRecord,
  PendingMessage,
  RecoveryNote,
  RecoveryNotice,
  ReplaceCommit,
  SaveOptions,
  SessionStore,
  SessionSummary,
  StoreDriver,
  TextSearchHit,
  TextSearchQuery,
  ValueOwner,
  ValueRecord,
  ValueStore,
} from './types.js';
export { MAX_SEARCH_LIMIT, MAX_VALUE_BYTES, MAX_VALUE_KEY_CHARS, namespaceSession, valueNamespace } from './values.js';
