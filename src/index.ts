/**
 * chatstate: durable, compact, provider-valid conversation state for LLM agents.
 *
 * Values (`Message`, `Session`) are immutable; compaction keeps tool exchanges whole; provider
 * formats always emit histories the provider accepts; opaque state blobs are versioned and signed.
 * Subpaths (`chatstate/tokens`, `/compaction`, `/formats`, `/state`) export the same pieces alone.
 * @module
 */
export {
  ChatstateError,
  CollaboratorError,
  ConflictError,
  DataError,
  InvalidInputError,
  ModelError,
  NotFoundError,
  UnavailableError,
  UnsupportedError,
  ClosedError,
  type ChatstateErrorOptions,
  type UnavailableDetails,
  type ModelErrorDetails,
  type ErrorCode,
} from './errors.js';
export { ID_PATTERN, assertValidId, isValidId, newId } from './ids.js';
export { MAX_JSON_DEPTH, MAX_MESSAGE_CHARS, Message, type MessageExtras } from './message/message.js';
export {
  CATEGORIES,
  PROVIDERS,
  ROLES,
  type Category,
  type Content,
  type ContentPart,
  type FilePart,
  type ImagePart,
  type JsonObject,
  type JsonValue,
  type MessageInput,
  type ProviderName,
  type RawPart,
  type ReasoningPart,
  type Role,
  type TextPart,
  type ToolCall,
  type ToolCallInput,
} from './message/schema.js';
export { Session, type CompactOptions, type SessionCompaction, type SessionInit } from './session/session.js';
export { MessageLog, type MessageSequence } from './session/message-log.js';
export { SESSION_FORMAT_VERSION, type SessionJson, type SessionJSON } from './session/schema.js';
export type { HistoryStats } from './session/stats.js';
export { MAX_FORK_ENTRIES, forkLog, type ForkEntry } from './session/fork-log.js';
export type { FormatHistoryOptions } from './session/format-history.js';
export {
  tokens,
  type TokenCounter,
  type Usage,
  type RecordedUsage,
  type MessageWeights,
  type CreateCounterOptions,
  type OpenaiEncoding,
  type OpenAIEncoding,
} from './tokens/index.js';
export {
  compaction,
  type Archive,
  type CompactionInput,
  type CompactionRemoved,
  type CompactionResult,
  type Compactor,
  type PrunePolicy,
  type Strategy,
  type Summarizer,
  type SyncCompactor,
  type SyncPrunePolicy,
  type SyncStrategy,
  type Trigger,
} from './compaction/index.js';
export {
  formats,
  validate,
  type FormatWarning,
  type FromResult,
  type ProviderFormat,
  type WireProblem,
} from './formats/index.js';
export {
  appendToState,
  decodeState,
  encodeState,
  type AppendStateOptions,
  type AppendedState,
  type DecodeStateOptions,
  type DecodedState,
  type EncodeStateOptions,
  type StateKeyRing,
  type StateRejection,
  type StateRejectionReason,
} from './state/index.js';
export {
  createSessionStore,
  describeNotice,
  noticesOf,
  SESSION_KINDS,
  isSessionKind,
  type ListKinds,
  type RecoveryNotice,
  type AppendOptions,
  type AppendResult,
  type ForgetCounts,
  type ForgetReceipt,
  type ListCursor,
  type ListQuery,
  type MessageRange,
  type MessageRef,
  type PurgeOptions,
  type SaveOptions,
  type SessionStore,
  type SessionStoreOptions,
  type UserKeyStore,
  type SessionSummary,
  type SessionMark,
  type StoreDriver,
  type SessionDriver,
  type AnyStoreDriver,
  type PurgeDriver,
  type ForgetDriver,
  type ValueDriver,
  type TextSearchDriver,
  type MarksDriver,
  type ChangeFeedDriver,
  type ChangeEvent,
  type ChangeFeed,
  type ChangeKind,
  type ChangeListener,
  type SessionChangedEvent,
  type RecoveryNote,
  type TextSearchHit,
  type TextSearchQuery,
  type ValueOwner,
  type ValueStore,
} from './store/index.js';
export {
  openStore,
  registerStore,
  registeredSchemes,
  type OpenStoreOptions,
  type RegisterStoreOptions,
  type StoreLoader,
} from './stores/open-store.js';
export { memoryStore, type MemoryStoreOptions } from './stores/memory-store.js';
export { fileStore, type FileStoreOptions } from './stores/file/store.js';
export {
  SessionManager,
  type ForkOptions,
  type ForkResult,
  type ManagerAppendResult,
  type SessionManagerOptions,
  type SessionManagerEvents,
  type CacheFreshness,
  type TurnContext,
  type TurnEnd,
  type TurnOptions,
  type TurnOutcome,
  type TurnWork,
} from './manager/index.js';
export {
  aiSdkModel,
  anthropicModel,
  openaiChatModel,
  openaiResponsesModel,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type FinishReason,
  type ToolChoice,
  type ToolSpec,
  modelContextWindow,
  type ModelWindow,
} from './models/index.js';
// From the modules, not the active-memory barrel: the barrel also exports the recall index (which
// a handle loads on first recall) and the knowledge graph, which the root import does not load.
export { createSessionHandle } from './active-memory/session-handle.js';
export { KNOWLEDGE_PREFIX, knowledgeSessionId } from './active-memory/knowledge.js';
export { mergePatch } from './active-memory/merge-patch.js';
export {
  WORKING_MEMORY_PREFIX,
  WorkingMemory,
  workingMemorySessionId,
  type UpdateWorkingMemoryOptions,
  type WorkingMemoryOptions,
  type WorkingMemoryVersion,
} from './active-memory/working-memory.js';
export type { WorkingMemorySchema } from './active-memory/working-memory-schema.js';
export type {
  Embed,
  HistoryPage,
  RecallHit,
  RecallOptions,
  RememberOptions,
  Scope,
  SessionHandle,
} from './active-memory/types.js';
export {
  Conversation,
  StateTooLargeError,
  chatWithState,
  memoryTools,
  modelSummarizer,
  recommendedContext,
  type Agent,
  type ContextWindowOption,
  type ContextWindowOptions,
  type TurnFit,
  type ChatWithStateOptions,
  type ChatWithStateResult,
  type ConversationOptions,
  type SendOptions,
  type Tool,
  type ToolContext,
  type TurnResult,
} from './runtime/index.js';
