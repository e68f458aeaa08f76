/**
 * `WordTable`: the words an index has seen, looked up straight from the text being indexed (a
 * span and its hash, computed while scanning), so that indexing a known word allocates no string
 * and hashes it once. A `Map<string, …>` costs a string slice and V8's own hashing per word: over
 * 100k messages (8M words) that was most of the index build.
 * @module
 */

/** FNV-1a offset basis: the hash of the empty word. */
export const HASH_START = 0x811c9dc5 | 0;

/** The running hash of a word after one more character `code`. */
export function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, 0x01000193);
}

/** The hash of `word` (what scanning it character by character gives). */
export function hashWord(word: string): number {
  let hash = HASH_START;
  for (let i = 0; i < word.length; i++) hash = hashStep(hash, word.charCodeAt(i));
  return hash;
}

/** An open-addressing hash table from words to an integer and a byte of flags each. */
export class WordTable {
  private readonly words: string[] = [];
  /** Per entry: its value. */
  values = new Int32Array(64);
  /** Per entry: its flags. */
  flags = new Uint8Array(64);
  /** Per slot: entry + 1 (0: empty), and the entry's hash. */
  private slots = new Int32Array(128);
  private hashes = new Int32Array(128);

  /** Words held. */
  get size(): number {
    return this.words.length;
  }

  /** The words held, in the order they were inserted (an entry is its index). */
  get held(): readonly string[] {
    return this.words;
  }

  /** The value of `word`, or undefined when it is not held. */
  valueOf(word: string): number | undefined {
    const entry = this.find(word, 0, word.length, hashWord(word));
    return entry < 0 ? undefined : this.values[entry];
  }

  /** The entry of the word `text.slice(start, end)` whose hash is `hash`, or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = (this.slots[slot] as number) - 1;
      if (entry < 0) return -1;
      if (this.hashes[slot] !== hash) continue;
      const word = this.words[entry] as string;
      if (word.length !== length) continue;
      let same = true;
      for (let i = 0; i < length && same; i++) same = word.charCodeAt(i) === text.charCodeAt(start + i);
      if (same) return entry;
    }
  }

  /** Adds `word` (not held yet) with its `hash`, `value` and `flags`; returns its entry. */
  insert(word: string, hash: number, value: number, flags: number): number {
    if ((this.words.length + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    const entry = this.words.length;
    this.words.push(word);
    if (entry === this.values.length) {
      const values = new Int32Array(entry * 2);
      values.set(this.values);
      this.values = values;
      const bytes = new Uint8Array(entry * 2);
      bytes.set(this.flags);
      this.flags = bytes;
    }
    this.values[entry] = value;
    this.flags[entry] = flags;
    this.place(entry, hash);
    return entry;
  }

  private place(entry: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
    this.hashes[slot] = hash;
  }

  private rehash(size: number): void {
    const slots = this.slots;
    const hashes = this.hashes;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    for (let slot = 0; slot < slots.length; slot++) {
      const entry = (slots[slot] as number) - 1;
      if (entry >= 0) this.place(entry, hashes[slot] as number);
    }
  }
}
