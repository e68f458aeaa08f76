/**
 * The conversation runtime: `Conversation` (a turn over a store: load → model and tools → one
 * atomic append → compaction after the answer), `chatWithState` for callers that keep an opaque
 * state, `modelSummarizer` for `compaction.summarize`, and `memoryTools` (`recall`, `remember`).
 * @module
 */
export { Conversation } from './conversation.js';
export type { ConversationOptions } from './conversation-options.js';
export {
  StateTooLargeError,
  chatWithState,
  type ChatWithStateOptions,
  type ChatWithStateResult,
} from './chat-with-state.js';
export { modelSummarizer, DEFAULT_SUMMARY_PROMPT, type ModelSummarizerOptions } from './summarizer.js';
export { memoryTools } from './memory-tools.js';
export { UPDATE_WORKING_MEMORY, workingMemoryTool } from './working-memory-tool.js';
export { contextWindow, steppedWindow, type ContextView, type WindowMarks } from './context-window.js';
export {
  recommendedContext,
  type ContextWindowOption,
  type ContextWindowOptions,
  type RecommendedContext,
} from './context-options.js';
export { ModelLimits, type KnownLimit, type LimitSource } from './model-limits.js';
export type { TurnFit } from './request-fit.js';
export type { TurnInput } from './turn-input.js';
export type { MemoryFactory, TurnMemoryContext } from './turn-memory.js';
export type { ToolErrorKind } from './run-tools.js';
export type { Agent, SendOptions, Tool, ToolContext, TurnCompactor, TurnResult } from './types.js';
