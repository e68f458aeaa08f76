/**
 * The store contract and its core: `SessionStore`, the dumb driver a backend implements (the
 * required `SessionDriver` primitives, and the `PurgeDriver`, `ValueDriver`, `TextSearchDriver` and
 * `ChangeFeedDriver` capabilities it may add), `createSessionStore` that turns a driver into a store with every
 * semantic rule applied, and the registry of URL schemes (`registerStore`). Writing a store for
 * another backend is one driver file, one `registerStore` call and a run of `chatstate/testing`.
 * @module
 */
export { createSessionStore, MAX_LIST_LIMIT, type SessionStoreOptions } from './session-store.js';
export {
  appendToHead,
  checkKeys,
  checkVersion,
  closedError,
  isAfterCursor,
  isExpired,
  noSessionError,
  rangeOf,
  withKind,
  sortAndPage,
  storeName,
} from './driver-helpers.js';
export {
  openRegisteredStore,
  registerStore,
  registeredSchemes,
  type OpenStoreOptions,
  type RegisterStoreOptions,
  type StoreLoader,
} from './registry.js';
export { RECORD_SCHEMA } from './codec.js';
export { SESSION_KINDS, isSessionKind, kindOfMetadata, type ListKinds } from './session-kind.js';
export { RECOVERY_KEY, describeNotice, noticesOf } from './recovery.js';
export type { AtRestKey } from './at-rest.js';
export type { UserKeyStore } from './user-key-store.js';
export type {
  ChangeCoverage,
  ChangeEvent,
  ChangeFeed,
  ChangeFeedDriver,
  ChangeFeedState,
  ChangeKind,
  ChangeListener,
  ChangesInterruptedEvent,
  ChangesResetEvent,
  DriverChange,
  DriverChangeSink,
  SessionChangedEvent,
} from './change-types.js';
export type {
  AnyStoreDriver,
  AppendCommit,
  AppendOutcome,
  DriverCapabilities,
  DriverForgetCounts,
  DriverForgetResult,
  DriverListQuery,
  ForgetDriver,
  ForgetTarget,
  DriverRange,
  HeadRecord,
  MarksDriver,
  MessageRecord,
  PendingMessage,
  PurgeDriver,
  ReadAtDriver,
  RecordRef,
  RecoveryNote,
  ReplaceCommit,
  SessionDriver,
  SessionMarkRecord,
  StoreDriver,
  TextSearchDriver,
  ValueDriver,
  ValueRecord,
} from './driver-types.js';
export type {
  AppendOptions,
  AppendResult,
  ForgetCounts,
  ForgetReceipt,
  ListCursor,
  ListQuery,
  MessageRange,
  MessageRef,
  PurgeOptions,
  RecoveryNotice,
  SaveOptions,
  SessionMark,
  SessionStore,
  SessionSummary,
  TextSearchHit,
  TextSearchQuery,
  ValueOwner,
  ValueStore,
} from './session-store-types.js';
export {
  MAX_SEARCH_LIMIT,
  MAX_VALUE_BYTES,
  MAX_VALUE_KEY_CHARS,
  VECTOR_KEY_PREFIX,
  forgetTarget,
  isUserNamespace,
  namespaceSession,
  valueNamespace,
} from './values.js';
export { onUserForgotten } from './forget.js';
