/**
 * Input checks of the knowledge graph: names, types and observations are non-empty, well-formed
 * strings within their limits, and one call carries a bounded number of items. A bad input is a
 * typed `InvalidInputError` naming where it is (`entities[2].name`); nothing is written. Stored
 * changes are read back with the same checks, without the count limit (`max`).
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { isWellFormed } from '../../ids.js';
import type { EntityObservations, GraphEntity, GraphRelation } from './types.js';

/** Longest entity name, entity type or relation type, in UTF-16 code units. */
export const MAX_GRAPH_NAME_CHARS = 1024;
/** Longest observation, in UTF-16 code units. */
export const MAX_OBSERVATION_CHARS = 65_536;
/** Most items one call carries (entities, relations, names, or observations of one entity). */
export const MAX_GRAPH_ITEMS = 1000;

function invalid(message: string, path: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `${path}: ${message}`, { details: { path } });
}

function text(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string')
    throw invalid(`expected a string, got ${value === null ? 'null' : typeof value}`, path);
  if (value.length === 0) throw invalid('must not be empty', path);
  if (value.length > max) throw invalid(`is ${value.length} characters; the limit is ${max}`, path);
  // A lone surrogate has no UTF-8 form: the store would keep another string than the one given.
  if (!isWellFormed(value)) throw invalid('is not well-formed Unicode', path);
  return value;
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('expected an object', path);
  return value as Record<string, unknown>;
}

function list(value: unknown, path: string, max: number): readonly unknown[] {
  if (!Array.isArray(value)) throw invalid('expected an array', path);
  if (value.length > max) throw invalid(`holds ${value.length} items; the limit is ${max}`, path);
  return value;
}

/** A name, entity type or relation type. */
export function checkName(value: unknown, path: string): string {
  return text(value, path, MAX_GRAPH_NAME_CHARS);
}

/** Observations: an array of non-empty strings. */
export function checkObservations(value: unknown, path: string, max = MAX_GRAPH_ITEMS): string[] {
  return list(value, path, max).map((item, index) => text(item, `${path}[${index}]`, MAX_OBSERVATION_CHARS));
}

/** Entity names: an array of names. */
export function checkNames(value: unknown, path: string): string[] {
  return list(value, path, MAX_GRAPH_ITEMS).map((item, index) => checkName(item, `${path}[${index}]`));
}

/** Entities `{ name, entityType, observations }`. */
export function checkEntities(value: unknown, path = 'entities', max = MAX_GRAPH_ITEMS): GraphEntity[] {
  return list(value, path, max).map((item, index) => {
    const where = `${path}[${index}]`;
    const entity = record(item, where);
    return {
      name: checkName(entity.name, `${where}.name`),
      entityType: checkName(entity.entityType, `${where}.entityType`),
      observations: checkObservations(entity.observations ?? [], `${where}.observations`, max),
    };
  });
}

/** Relations `{ from, to, relationType }`. */
export function checkRelations(value: unknown, path = 'relations', max = MAX_GRAPH_ITEMS): GraphRelation[] {
  return list(value, path, max).map((item, index) => {
    const where = `${path}[${index}]`;
    const relation = record(item, where);
    return {
      from: checkName(relation.from, `${where}.from`),
      to: checkName(relation.to, `${where}.to`),
      relationType: checkName(relation.relationType, `${where}.relationType`),
    };
  });
}

/** Observations per entity, under `field` (`contents` for additions, `observations` for deletions). */
export function checkEntityObservations(
  value: unknown,
  path: string,
  field: 'contents' | 'observations',
  max = MAX_GRAPH_ITEMS,
): EntityObservations[] {
  return list(value, path, max).map((item, index) => {
    const where = `${path}[${index}]`;
    const entry = record(item, where);
    return {
      entityName: checkName(entry.entityName, `${where}.entityName`),
      observations: checkObservations(entry[field], `${where}.${field}`, max),
    };
  });
}
