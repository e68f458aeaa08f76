/**
 * The knowledge graph's data, as the reference MCP memory server shapes it: entities (a unique
 * name, a type, observations) and directed relations between entity names.
 * @module
 */

/** A node of the graph: a unique name, a type and its observations (one fact each), in the order they were added. */
export interface GraphEntity {
  readonly name: string;
  readonly entityType: string;
  readonly observations: readonly string[];
}

/** A directed edge, in active voice: `from` `relationType` `to`. */
export interface GraphRelation {
  readonly from: string;
  readonly to: string;
  readonly relationType: string;
}

/** Observations for one entity: what `add_observations` adds and `delete_observations` removes. */
export interface EntityObservations {
  readonly entityName: string;
  readonly observations: readonly string[];
}

/** A whole graph, or the part of it a query returns. */
export interface KnowledgeGraphData {
  readonly entities: readonly GraphEntity[];
  readonly relations: readonly GraphRelation[];
}

/**
 * What one stored change adds: new entities, new observations of existing ones, new relations.
 * Every write that only adds is one of these, appended; removals rewrite the graph instead.
 */
export interface GraphAdditions {
  readonly entities: readonly GraphEntity[];
  readonly observations: readonly EntityObservations[];
  readonly relations: readonly GraphRelation[];
}
