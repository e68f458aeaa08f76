/**
 * The `SessionManager` (Penguin): an LRU of sessions over a store, with dirty tracking, auto-save,
 * boundaries and automatic continuation, chain totals and forks.
 * @module
 */
export { SessionManager, type ForkOptions, type ManagerAppendResult } from './session-manager.js';
export type { SessionUpdater } from './managed-sessions.js';
export type { SessionChange } from './commit.js';
export type { ChainLink, ChainStats } from './chain.js';
export { MAX_TIMER_DELAY_MS, type SessionManagerOptions } from './options.js';
export {
  continuationIndexOf,
  continuationMakesProgress,
  hasOpenToolExchange,
  isTransitionMarker,
  successorOf,
} from './continuation.js';
export type {
  BackgroundOperation,
  CompactedEvent,
  ContinuedEvent,
  ManagerErrorContext,
  RecoveredEvent,
  SaveReason,
  SavedEvent,
  SessionManagerEvents,
} from './events.js';
