/**
 * `BoundedMap`: a map that keeps at most a set number of entries and forgets the oldest to make
 * room — the one shape of every small in-process cache and memo (views, marks, key checks, echoes
 * of changes, loaded versions, saver records). "Oldest" is by the last write, or by the last use
 * when reads renew too (least recently used).
 * @module
 */
import { InvalidInputError } from '../errors.js';

/** Options of a `BoundedMap`. */
export interface BoundedMapOptions<K, V> {
  /** Most entries kept: a `set` of a new key beyond it forgets the oldest entry. */
  readonly max: number;
  /**
   * What makes an entry the newest again: `'set'` (writing it; reads do not count, so the entry
   * written longest ago goes first) or `'use'` (a `get` that finds it too: least recently used
   * goes first). @default 'set'
   */
  readonly renew?: 'set' | 'use';
  /** Told of each entry forgotten to make room (not of `delete` or `clear`). */
  readonly onEvict?: (key: K, value: V) => void;
}

/** A map of at most `max` entries, the oldest forgotten first (see `BoundedMapOptions.renew`). */
export class BoundedMap<K, V> {
  // A Map iterates in insertion order: re-inserting an entry makes it the newest, the first is the oldest.
  private readonly entries = new Map<K, V>();
  private readonly max: number;
  private readonly renewOnGet: boolean;
  private readonly onEvict: ((key: K, value: V) => void) | undefined;

  constructor(options: BoundedMapOptions<K, V>) {
    if (!Number.isSafeInteger(options.max) || options.max < 1)
      throw new InvalidInputError('INVALID_ARGUMENT', `BoundedMap: max must be a positive integer, got ${options.max}`);
    this.max = options.max;
    this.renewOnGet = options.renew === 'use';
    this.onEvict = options.onEvict;
  }

  /** Entries held now. */
  get size(): number {
    return this.entries.size;
  }

  /** The value of `key` (made the newest entry when reads renew), or `undefined`. */
  get(key: K): V | undefined {
    if (!this.renewOnGet || !this.entries.has(key)) return this.entries.get(key);
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** True when `key` is held (never renews it). */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets `key` as the newest entry, forgetting the oldest past `max`. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) {
      const [oldest, forgotten] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldest);
      this.onEvict?.(oldest, forgotten);
    }
    return this;
  }

  /** Forgets `key`; true when it was held. */
  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Forgets every entry for which `test` is true; returns how many. */
  deleteWhere(test: (key: K, value: V) => boolean): number {
    let deleted = 0;
    for (const [key, value] of [...this.entries]) if (test(key, value) && this.entries.delete(key)) deleted += 1;
    return deleted;
  }

  /** Forgets every entry. */
  clear(): void {
    this.entries.clear();
  }

  /** The keys, oldest first. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }
}
