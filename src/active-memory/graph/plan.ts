/**
 * What each write of the graph really adds, planned on the graph as it was read: an entity whose
 * name exists is passed over, as are relations and observations already there (and repeats within
 * the call). The plan is appended on the version it was planned on, so it is never applied to a
 * graph it was not planned for.
 * @module
 */
import { NotFoundError } from '../../errors.js';
import { relationKey, type GraphState } from './graph-state.js';
import type { EntityObservations, GraphAdditions, GraphEntity, GraphRelation } from './types.js';

/** Additions with nothing in them. */
export const NO_ADDITIONS: GraphAdditions = Object.freeze({ entities: [], observations: [], relations: [] });

/** True when `change` adds nothing. */
export function isEmpty(change: GraphAdditions): boolean {
  return change.entities.length === 0 && change.observations.length === 0 && change.relations.length === 0;
}

/** The entities that are new (the first of a repeated name), with their observations deduplicated. */
export function planEntities(state: GraphState, entities: readonly GraphEntity[]): GraphEntity[] {
  const seen = new Set<string>();
  const created: GraphEntity[] = [];
  for (const entity of entities) {
    if (state.hasEntity(entity.name) || seen.has(entity.name)) continue;
    seen.add(entity.name);
    created.push({ ...entity, observations: [...new Set(entity.observations)] });
  }
  return created;
}

/** The relations that are new (the first of repeats). */
export function planRelations(state: GraphState, relations: readonly GraphRelation[]): GraphRelation[] {
  const seen = new Set<string>();
  return relations.filter((relation) => {
    const key = relationKey(relation);
    if (state.hasRelation(relation) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The observations each entity does not have yet, one entry per entry given (empty when all are
 * there). `NOT_FOUND` naming the entity when one does not exist (nothing is added then), unless
 * `pending` (entities the same change creates) has it.
 */
export function planObservations(
  state: GraphState,
  additions: readonly EntityObservations[],
  pending: ReadonlyMap<string, Set<string>> = new Map(),
): EntityObservations[] {
  const added = new Map<string, Set<string>>();
  return additions.map(({ entityName, observations }) => {
    const creating = pending.get(entityName);
    if (!state.hasEntity(entityName) && creating === undefined)
      throw new NotFoundError(`Entity with name ${JSON.stringify(entityName)} not found`, {
        details: { entityName },
      });
    let already = added.get(entityName);
    if (already === undefined) {
      already = new Set();
      added.set(entityName, already);
    }
    const fresh: string[] = [];
    for (const observation of observations) {
      if (state.hasObservation(entityName, observation) || creating?.has(observation) || already.has(observation))
        continue;
      already.add(observation);
      fresh.push(observation);
    }
    return { entityName, observations: fresh };
  });
}

/** What merging `graph` into `state` adds: new entities, the observations existing ones lack, new relations. */
export function planMerge(
  state: GraphState,
  graph: { readonly entities: readonly GraphEntity[]; readonly relations: readonly GraphRelation[] },
): GraphAdditions {
  const entities = planEntities(state, coalesce(graph.entities));
  const creating = new Map(entities.map((entity) => [entity.name, new Set(entity.observations)]));
  const existing = coalesce(graph.entities).filter((entity) => state.hasEntity(entity.name));
  const observations = planObservations(
    state,
    existing.map((entity) => ({ entityName: entity.name, observations: entity.observations })),
    creating,
  ).filter((entry) => entry.observations.length > 0);
  return { entities, observations, relations: planRelations(state, graph.relations) };
}

/** One entity per name: a repeated name keeps its first type and gathers every observation (files of the reference server can repeat one). */
function coalesce(entities: readonly GraphEntity[]): GraphEntity[] {
  const byName = new Map<string, { entityType: string; observations: string[] }>();
  for (const entity of entities) {
    const known = byName.get(entity.name);
    if (known === undefined)
      byName.set(entity.name, { entityType: entity.entityType, observations: [...entity.observations] });
    else known.observations.push(...entity.observations);
  }
  return [...byName].map(([name, entity]) => ({ name, ...entity }));
}
