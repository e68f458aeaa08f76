/**
 * A small seeded PRNG for the benchmark corpus: the same seed always gives the same history, so
 * figures from two runs (or two machines) are measured on the same text.
 * @module
 */
import { seededRandom } from '../test/support/seeded-random.js';

/** A deterministic random source (mulberry32: fast, 32-bit state, good enough for test data). */
export class Random {
  /** A float in [0, 1). */
  readonly next: () => number;

  /** A generator seeded with `seed` (any integer). */
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick() needs a non-empty array');
    return item;
  }

  /** An element chosen by weight: `[[value, weight], …]`. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of choices) total += weight;
    let roll = this.next() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = choices[choices.length - 1];
    if (last === undefined) throw new Error('weighted() needs a non-empty array');
    return last[0];
  }

  /** `length` characters drawn from `alphabet`. */
  chars(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}
