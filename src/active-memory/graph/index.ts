/**
 * The knowledge graph of active memory: entities, relations and observations (the reference MCP
 * memory server's model) kept in a per-user session, safe for any number of writers.
 * @module
 */
export {
  KNOWLEDGE_GRAPH_PREFIX,
  KnowledgeGraph,
  knowledgeGraphSessionId,
  type GraphMergeReport,
  type KnowledgeGraphOptions,
} from './knowledge-graph.js';
export { MAX_GRAPH_ITEMS, MAX_GRAPH_NAME_CHARS, MAX_OBSERVATION_CHARS } from './checks.js';
export type { EntityObservations, GraphEntity, GraphRelation, KnowledgeGraphData } from './types.js';
