/**
 * `TopK`: the best `limit` items of a stream, kept in a bounded heap — O(n log limit) instead of
 * sorting everything, for recall over a hundred thousand scored messages.
 * @module
 */

/** The best `limit` items offered, by a total order (`compare(a, b) < 0` when `a` is better). */
export class TopK<T> {
  // A heap with the worst kept item at the root, so a better newcomer replaces it in O(log limit).
  private readonly heap: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** The worst item kept once `limit` are kept (what a newcomer must beat), else `undefined`. */
  get floor(): T | undefined {
    return this.heap.length < this.limit ? undefined : this.heap[0];
  }

  /** Keeps `item` if it is among the best `limit` so far. */
  offer(item: T): void {
    const heap = this.heap;
    if (this.limit < 1) return;
    if (heap.length < this.limit) {
      heap.push(item);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (this.compare(heap[parent] as T, heap[index] as T) >= 0) break;
        [heap[parent], heap[index]] = [heap[index] as T, heap[parent] as T];
        index = parent;
      }
      return;
    }
    if (this.compare(item, heap[0] as T) >= 0) return;
    heap[0] = item;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let worst = index;
      if (left < heap.length && this.compare(heap[left] as T, heap[worst] as T) > 0) worst = left;
      if (right < heap.length && this.compare(heap[right] as T, heap[worst] as T) > 0) worst = right;
      if (worst === index) return;
      [heap[worst], heap[index]] = [heap[index] as T, heap[worst] as T];
      index = worst;
    }
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }
}
