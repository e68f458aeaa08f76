/**
 * The `SessionManager` (Penguin): an LRU of sessions over a store, with dirty tracking, auto-save,
 * boundaries and automatic continuation, chain totals and forks, and the end of a turn
 * (`runTurn`: commit → compact → continue) that every caller running turns goes through.
 * @module
 */
export { SessionManager, type ForkOptions, type ForkResult } from './session-manager.js';
export type { ManagerAppendResult } from './append.js';
export type { SessionUpdater } from './managed-sessions.js';
export type { SessionChange } from './commit.js';
export type { TurnContext, TurnEnd, TurnOptions, TurnOutcome, TurnWork } from './turn.js';
export { compactAfterAnswer } from './compact-after-answer.js';
export type { ChainLink, ChainStats } from './chain.js';
export type { SessionManagerOptions } from './options.js';
export type { CacheFreshness } from './freshness.js';
export { continuationIndexOf, continuationMakesProgress, hasOpenToolExchange, successorOf } from './continuation.js';
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
