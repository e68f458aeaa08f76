/**
 * Canonical JSON text: object keys sorted at every depth, so two values that hold the same data
 * compare equal as strings whatever order their keys were written in.
 * @module
 */

/** `value` as JSON text with sorted keys (`undefined` members are left out, as `JSON.stringify` does). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (typeof member !== 'object' || member === null || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    // defineProperty keeps a key named "__proto__" a plain key of the copy.
    for (const key of Object.keys(member).sort())
      Object.defineProperty(sorted, key, {
        value: (member as Record<string, unknown>)[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return sorted;
  });
}
