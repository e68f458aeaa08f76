/**
 * Active memory (Coreason's `SessionHandle`): history pages, scoped values, knowledge and recall
 * over any store.
 * @module
 */
export {
  createSessionHandle,
  type HandleWorkingMemoryOptions,
  type SessionAccessor,
  type SessionHandleOptions,
} from './session-handle.js';
export {
  DEFAULT_WORKING_MEMORY_BYTES,
  WORKING_MEMORY_PREFIX,
  WorkingMemory,
  workingMemorySessionId,
  type UpdateWorkingMemoryOptions,
  type WorkingMemoryHistoryOptions,
  type WorkingMemoryHistoryPage,
  type WorkingMemoryOptions,
  type WorkingMemoryVersion,
} from './working-memory.js';
export type { JsonSchema, WorkingMemorySchema } from './working-memory-schema.js';
export { mergePatch } from './merge-patch.js';
export { RecallIndex, recallIndexFor, type RecallIndexOptions, type RecallRequest } from './recall-index.js';
export { TextIndex, type TextIndexOptions, type TextMatch } from './text-index.js';
export { KNOWLEDGE_PREFIX, knowledgeSessionId } from './knowledge.js';
export {
  KNOWLEDGE_GRAPH_PREFIX,
  KnowledgeGraph,
  MAX_GRAPH_ITEMS,
  MAX_GRAPH_NAME_CHARS,
  MAX_OBSERVATION_CHARS,
  knowledgeGraphSessionId,
  type EntityObservations,
  type GraphEntity,
  type GraphMergeReport,
  type GraphRelation,
  type KnowledgeGraphData,
  type KnowledgeGraphOptions,
} from './graph/index.js';
export { MAX_KEY_CHARS, MAX_VALUE_BYTES, MAX_RECALL_K, MAX_HISTORY_LIMIT, MAX_QUERY_CHARS } from './checks.js';
export type {
  Embed,
  GetValueOptions,
  HistoryOptions,
  HistoryPage,
  RecallHit,
  RecallOptions,
  RememberOptions,
  Scope,
  SessionHandle,
  StoreValueOptions,
} from './types.js';
