/**
 * Setting a field whose key is data (parsed JSON, a caller's record): defined, never assigned, so
 * a `"__proto__"` key stays a plain field instead of replacing the object's prototype (and being
 * lost, or polluting what the object inherits).
 * @module
 */

/** Sets `target[key]` to `value` as an own, enumerable, writable field, whatever `key` is. */
export function defineField(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
