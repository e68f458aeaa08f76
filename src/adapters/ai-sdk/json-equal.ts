/**
 * Equality of JSON values, key order aside: of two checked values (`jsonEqual`), and of a caller's
 * value with a checked one (`readsAs`), which answers without copying the caller's value only
 * what `readJson` would have read from it.
 * @module
 */
import { types } from 'node:util';
import type { JsonObject, JsonValue } from '../../message/schema.js';

/** True when two checked JSON values (`readJson` copies, or values decoded from a store) hold the same data. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++)
      if (!jsonEqual(a[index] as JsonValue, b[index] as JsonValue)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  // Checked values hold own data fields only, so indexing reads them (an own "__proto__" field included).
  const left = a as JsonObject;
  const right = b as JsonObject;
  for (const key of keys)
    if (!Object.hasOwn(right, key) || !jsonEqual(left[key] as JsonValue, right[key] as JsonValue)) return false;
  return true;
}

/**
 * True when `readJson(value, { omitUndefined: true })` would read `json` (key order aside): the
 * caller's value is plain data equal to it. False for anything else — a difference, or a value
 * `readJson` would refuse or coerce (a getter, a Proxy, a `Date`, a symbol key): such a value is
 * read in full by the caller. It walks `json`'s finite shape, so a cycle or a deep value in
 * `value` stops at `json`'s depth, and it never calls a getter.
 */
export function readsAs(value: unknown, json: JsonValue): boolean {
  if (typeof json !== 'object' || json === null) return value === json;
  if (typeof value !== 'object' || value === null || types.isProxy(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(json)) {
    if (!Array.isArray(value) || prototype !== Array.prototype) return false;
    const items = value as readonly unknown[];
    if (items.length !== json.length) return false;
    for (let index = 0; index < items.length; index++)
      if (!readsAs(items[index], json[index] as JsonValue)) return false;
    return true;
  }
  if (Array.isArray(value) || (prototype !== Object.prototype && prototype !== null)) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  const object = json as JsonObject;
  let fields = 0;
  for (const key of Object.keys(value)) {
    // The descriptor, not the property: a getter is not data, and is not called.
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) return false;
    const item: unknown = descriptor.value;
    // `readJson` leaves out a field set to `undefined` (`omitUndefined`), as `JSON.stringify` does.
    if (item === undefined) continue;
    fields += 1;
    if (!Object.hasOwn(object, key) || !readsAs(item, object[key] as JsonValue)) return false;
  }
  return fields === Object.keys(object).length;
}
