/**
 * `Postings`: the documents containing one term and how often, as parallel growable typed arrays —
 * the inverted lists of both of recall's indexes (`text-index.ts`, `ranking/ranker.ts`).
 * @module
 */

/** The documents containing one term, and how often. */
export class Postings {
  docs = new Uint32Array(4);
  freqs = new Uint16Array(4);
  length = 0;
  /** The index's removal count when this list was last compacted: equal means nothing to drop. */
  compactedAt = 0;
  /** Occurrences in the document being added (0 between additions). */
  pending = 0;

  /** Adds `docId` with `freq` occurrences (capped at 65,535). */
  push(docId: number, freq: number): void {
    if (this.length === this.docs.length) {
      const docs = new Uint32Array(this.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const freqs = new Uint16Array(this.length * 2);
      freqs.set(this.freqs);
      this.freqs = freqs;
    }
    this.docs[this.length] = docId;
    this.freqs[this.length] = Math.min(freq, 0xffff);
    this.length += 1;
  }

  /** Drops the entries of removed documents (`removed[docId] === 1`), in place, unless none was removed since `removals`; returns how many are left. */
  compact(removed: Uint8Array, removals: number): number {
    if (this.compactedAt === removals) return this.length;
    this.compactedAt = removals;
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const docId = this.docs[i] as number;
      if (removed[docId] === 1) continue;
      this.docs[kept] = docId;
      this.freqs[kept] = this.freqs[i] as number;
      kept += 1;
    }
    this.length = kept;
    return kept;
  }
}
