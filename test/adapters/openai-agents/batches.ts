/**
 * Consecutive batches of a list, for properties that feed items in pieces.
 * @module
 */

/** `items` cut into consecutive batches at `cuts` (positions taken modulo the length). */
export function batches<T>(items: readonly T[], cuts: readonly number[]): T[][] {
  const points = [...new Set(cuts.map((cut) => (items.length === 0 ? 0 : cut % items.length)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let start = 0;
  for (const point of [...points, items.length]) {
    if (point > start) out.push(items.slice(start, point));
    start = Math.max(start, point);
  }
  return out;
}
