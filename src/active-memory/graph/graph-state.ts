/**
 * The graph in memory while a change is planned: entities by name (in insertion order, with their
 * observations deduplicated) and relations by their three fields. Folding the stored changes in
 * order gives the graph; planning a write reads it and says what the write really adds.
 * @module
 */
import type { EntityObservations, GraphAdditions, GraphEntity, GraphRelation, KnowledgeGraphData } from './types.js';

interface EntityNode {
  readonly entityType: string;
  readonly observations: Set<string>;
}

/** The key of a relation: its three fields, unambiguous whatever they hold. */
export function relationKey(relation: GraphRelation): string {
  return JSON.stringify([relation.from, relation.to, relation.relationType]);
}

/** A mutable graph (see the module comment). */
export class GraphState {
  private readonly entities = new Map<string, EntityNode>();
  private readonly relations = new Map<string, GraphRelation>();

  /** How many entities and relations it holds. */
  get size(): { readonly entities: number; readonly relations: number } {
    return { entities: this.entities.size, relations: this.relations.size };
  }

  hasEntity(name: string): boolean {
    return this.entities.has(name);
  }

  hasObservation(entityName: string, observation: string): boolean {
    return this.entities.get(entityName)?.observations.has(observation) === true;
  }

  hasRelation(relation: GraphRelation): boolean {
    return this.relations.has(relationKey(relation));
  }

  /** Applies stored additions: what is already there is left as it is (a change is never applied twice anyway). */
  apply(change: GraphAdditions): void {
    for (const entity of change.entities) {
      if (this.entities.has(entity.name)) continue;
      this.entities.set(entity.name, { entityType: entity.entityType, observations: new Set(entity.observations) });
    }
    for (const { entityName, observations } of change.observations) {
      const node = this.entities.get(entityName);
      if (node === undefined) continue;
      for (const observation of observations) node.observations.add(observation);
    }
    for (const relation of change.relations) {
      const key = relationKey(relation);
      if (!this.relations.has(key)) this.relations.set(key, relation);
    }
  }

  /** Removes entities and every relation from or to them; true when something was removed. */
  deleteEntities(names: readonly string[]): boolean {
    const gone = new Set(names.filter((name) => this.entities.delete(name)));
    if (gone.size === 0) return false;
    for (const [key, relation] of this.relations)
      if (gone.has(relation.from) || gone.has(relation.to)) this.relations.delete(key);
    return true;
  }

  /** Removes observations of entities (an entity that does not exist is passed over); true when something was removed. */
  deleteObservations(deletions: readonly EntityObservations[]): boolean {
    let removed = false;
    for (const { entityName, observations } of deletions) {
      const node = this.entities.get(entityName);
      if (node === undefined) continue;
      for (const observation of observations) removed = node.observations.delete(observation) || removed;
    }
    return removed;
  }

  /** Removes relations; true when something was removed. */
  deleteRelations(relations: readonly GraphRelation[]): boolean {
    let removed = false;
    for (const relation of relations) removed = this.relations.delete(relationKey(relation)) || removed;
    return removed;
  }

  /** The graph as plain data, entities and relations in the order they were added. */
  data(): KnowledgeGraphData {
    return Object.freeze({
      entities: Object.freeze([...this.entities].map(([name, node]) => entityOf(name, node))),
      relations: Object.freeze([...this.relations.values()].map((relation) => Object.freeze({ ...relation }))),
    });
  }

  /** The entities `keep` accepts, and the relations between two of them. */
  subgraph(keep: (entity: GraphEntity) => boolean): KnowledgeGraphData {
    const entities = [...this.entities].map(([name, node]) => entityOf(name, node)).filter(keep);
    const names = new Set(entities.map((entity) => entity.name));
    const relations = [...this.relations.values()].filter(
      (relation) => names.has(relation.from) && names.has(relation.to),
    );
    return Object.freeze({
      entities: Object.freeze(entities),
      relations: Object.freeze(relations.map((relation) => Object.freeze({ ...relation }))),
    });
  }
}

function entityOf(name: string, node: EntityNode): GraphEntity {
  return Object.freeze({ name, entityType: node.entityType, observations: Object.freeze([...node.observations]) });
}
