/**
 * Deep freezing: chatstate values are immutable all the way down, not only at the top level.
 * @module
 */

/** Freezes `value` and everything reachable from it; returns it typed as deeply readonly. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) {
    deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}
