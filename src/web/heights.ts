/**
 * Row heights of a virtualized list as a Fenwick tree: the offset of any row and the row at any
 * offset in O(log n), and a measured height changed in O(log n). A 100k-row list costs what a
 * 1k-row one does to scroll.
 */
export class Heights {
  private tree: Float64Array;
  private values: Float64Array;
  private size: number;
  private readonly estimate: number;

  /** `count` rows, each `estimate` pixels tall until measured. */
  constructor(count: number, estimate: number) {
    this.estimate = estimate;
    this.size = 0;
    this.values = new Float64Array(0);
    this.tree = new Float64Array(1);
    this.resize(count);
  }

  /** Rows. */
  get count(): number {
    return this.size;
  }

  /** Grows (or shrinks) to `count` rows; new rows get the estimate. */
  resize(count: number): void {
    const values = new Float64Array(count);
    values.set(this.values.subarray(0, Math.min(count, this.size)));
    for (let i = this.size; i < count; i++) values[i] = this.estimate;
    this.values = values;
    this.size = count;
    // Built in O(n): each node adds itself to its parent once.
    const tree = new Float64Array(count + 1);
    for (let i = 1; i <= count; i++) {
      tree[i] = (tree[i] as number) + (values[i - 1] as number);
      const parent = i + (i & -i);
      if (parent <= count) tree[parent] = (tree[parent] as number) + (tree[i] as number);
    }
    this.tree = tree;
  }

  /** Height of row `index`. */
  get(index: number): number {
    return this.values[index] ?? this.estimate;
  }

  /** Sets row `index`'s height; returns the change. */
  set(index: number, height: number): number {
    const delta = height - (this.values[index] as number);
    if (delta === 0 || index < 0 || index >= this.size) return 0;
    this.values[index] = height;
    for (let i = index + 1; i <= this.size; i += i & -i) this.tree[i] = (this.tree[i] as number) + delta;
    return delta;
  }

  /** Pixels above row `index` (the total for `index === count`). */
  offsetOf(index: number): number {
    let sum = 0;
    for (let i = Math.min(index, this.size); i > 0; i -= i & -i) sum += this.tree[i] as number;
    return sum;
  }

  /** Total height. */
  total(): number {
    return this.offsetOf(this.size);
  }

  /** The row at `offset` pixels from the top (clamped to the rows there are). */
  indexAt(offset: number): number {
    if (this.size === 0) return 0;
    let position = 0;
    let remaining = offset;
    let step = 1;
    while (step * 2 <= this.size) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = position + step;
      if (next <= this.size && (this.tree[next] as number) <= remaining) {
        position = next;
        remaining -= this.tree[next] as number;
      }
    }
    return Math.min(position, this.size - 1);
  }
}
