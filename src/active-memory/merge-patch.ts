/**
 * JSON Merge Patch (RFC 7396): how `update_working_memory` changes a document. A patch object sets
 * its members, `null` deletes one, and any other value (an array included) replaces the target.
 * @module
 */
import { deepFreeze } from '../freeze.js';
import { defineField } from '../internal/define-field.js';
import type { JsonObject, JsonValue } from '../message/schema.js';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `target` with `patch` applied (RFC 7396 §2), as a new deep-frozen value; neither input is changed. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  return deepFreeze(apply(target, patch));
}

function apply(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return patch;
  const result: Record<string, JsonValue> = {};
  // Members are defined, never assigned: a `"__proto__"` member is data, as it is in JSON.
  if (isObject(target)) for (const key of Object.keys(target)) defineField(result, key, target[key]);
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    if (value === null) delete result[key];
    else defineField(result, key, apply(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
