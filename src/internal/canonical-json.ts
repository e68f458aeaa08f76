/**
 * Canonical JSON text: one spelling for each JSON value, whatever order its keys were written in,
 * so equal text means equal data. Comparisons, shared-value keys and the openai-agents transaction
 * hash (kept in stored metadata, so its text must not change) all use this one writer.
 * @module
 */
import { InvalidInputError, errorMessage } from '../errors.js';
import { defineField } from './define-field.js';

/**
 * `value` as JSON text with the keys of every object in one fixed order (sorted; integer-like keys
 * first, in numeric order, as JavaScript orders an object's own keys). Otherwise as
 * `JSON.stringify`: `toJSON` is called, `undefined` and function members are left out, in arrays
 * they read as `null`, and so does a top-level value JSON cannot hold. A `"__proto__"` key (as
 * `JSON.parse` makes it) is written as the data it is. A cycle or a `bigint` is `INVALID_ARGUMENT`.
 */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(value, sortedMembers) ?? 'null';
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `canonicalJson: not a JSON value (${errorMessage(error)})`, {
      cause: error,
    });
  }
}

function sortedMembers(_key: string, member: unknown): unknown {
  if (typeof member !== 'object' || member === null || Array.isArray(member)) return member;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(member).sort()) defineField(sorted, key, (member as Record<string, unknown>)[key]);
  return sorted;
}
