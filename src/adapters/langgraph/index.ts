/**
 * `chatstate/langgraph`: a LangGraph checkpoint saver (`BaseCheckpointSaver`) over any chatstate
 * store. A thread's messages channel becomes a chatstate conversation (append-only, readable by
 * the CLI and the web browser); each put stores only what changed.
 * @module
 */
export { ChatstateSaver } from './saver.js';
export type { ChatstateSaverOptions, SaverCompaction } from './options.js';
export type { ThreadSessions } from './thread-ids.js';
