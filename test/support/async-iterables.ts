/** Async iterables in tests: drain one into an array, or make one from an array. */

/** Every item of `items`, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** `values` as an async iterable (what importers and operations read from). */
export async function* each<T>(values: readonly T[]): AsyncIterable<T> {
  yield* values;
}
