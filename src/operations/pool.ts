/**
 * Bounded concurrency over an async source: at most `limit` items are in flight, and the next
 * item is pulled only when a slot frees, so memory stays bounded however long the source is.
 * @module
 */

/**
 * Applies `work` to each item of `source`, at most `limit` at a time, yielding results in the
 * source's order (a slow item holds back at most `limit - 1` finished ones). Stops pulling when
 * `signal` aborts; the first error of `work` ends the iteration with that error.
 */
export async function* mapOrdered<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  limit: number,
  work: (item: T) => Promise<R>,
  signal?: AbortSignal,
): AsyncGenerator<R> {
  const iterator = (
    Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : (source as Iterable<T>)[Symbol.iterator]()
  ) as AsyncIterator<T> | Iterator<T>;
  const window: Array<Promise<R>> = [];
  let done = false;
  try {
    for (;;) {
      while (!done && window.length < limit && signal?.aborted !== true) {
        const next = await iterator.next();
        if (next.done === true) done = true;
        else {
          const running = work(next.value);
          // Observed now so an early failure is not reported as unhandled while an earlier item runs.
          running.catch(() => undefined);
          window.push(running);
        }
      }
      const first = window.shift();
      if (first === undefined) return;
      yield await first;
    }
  } finally {
    if (!done) await iterator.return?.();
    // Work already started finishes before the caller goes on (it may close the store next).
    await Promise.allSettled(window);
  }
}
