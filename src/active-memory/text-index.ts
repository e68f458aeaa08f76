/**
 * A plain in-process BM25 index over message text (recall itself ranks with `ranking/ranker.ts`,
 * which adds stemming and conversation context; this one is kept for callers and as the baseline).
 *
 * Terms are runs of letters and digits, lowercased (NFKC first for non-ASCII text), without
 * stemming; one-character terms, terms longer than 64 characters (hashes, base64) and, by
 * default, common English stopwords are left out. Documents are added and removed one by one;
 * postings of removed documents are dropped lazily (a term's list when a query reads it, every
 * list once removed documents outnumber live ones), so removal is O(1).
 * @module
 */
import { Postings } from './postings.js';

/** Common English words that carry no meaning for recall (left out of documents and queries). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its ' +
    'me my no not of on or our she so than that the their them then there these they this to too us was we were what when ' +
    'where which who whom why will with would you your yours ours'
  ).split(' '),
);

const TERM = /[\p{L}\p{N}]+/gu;
/** Longest word indexed: longer runs are hashes or base64, not words. */
export const MAX_TERM_CHARS = 64;
/** Text that needs the Unicode path of `forEachWord`. */
export const NON_ASCII = /[^ -~\t\n\r]/;

/**
 * Calls `visit` with each word of `text` in order (with repeats): runs of letters and digits,
 * lowercased (NFKC first for non-ASCII text), 2 to 64 characters long; no stopword is left out.
 */
export function forEachWord(text: string, visit: (word: string) => void): void {
  if (NON_ASCII.test(text)) {
    for (const match of text.normalize('NFKC').toLowerCase().matchAll(TERM))
      if (match[0].length >= 2 && match[0].length <= MAX_TERM_CHARS) visit(match[0]);
    return;
  }
  // ASCII text (most of what agents exchange): a plain scan, several times faster than the Unicode regex.
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const code = i < lower.length ? lower.charCodeAt(i) : 0;
    const word = (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= 2 && i - start <= MAX_TERM_CHARS) visit(lower.slice(start, i));
      start = -1;
    }
  }
}

/** The terms of `text`, in order (with repeats), lowercased, without `stopwords`. */
export function tokenize(text: string, stopwords: ReadonlySet<string> = ENGLISH_STOPWORDS): string[] {
  const terms: string[] = [];
  forEachWord(text, (word) => {
    if (!stopwords.has(word)) terms.push(word);
  });
  return terms;
}

/** Options of `TextIndex`. */
export interface TextIndexOptions {
  /** Words left out of documents and queries; `false` keeps every word. @default ENGLISH_STOPWORDS */
  readonly stopwords?: ReadonlySet<string> | false;
  /** BM25 term-frequency saturation. @default 1.2 */
  readonly k1?: number;
  /** BM25 length normalization. @default 0.75 */
  readonly b?: number;
}

/** One match of `TextIndex.search`. */
export interface TextMatch {
  readonly docId: number;
  /** BM25 score divided by the best match's: the best is 1, the rest in (0, 1]. */
  readonly score: number;
}

/** A min-heap of the best `limit` (docId, score) pairs seen. */
function topScores(docIds: readonly number[], scores: Float64Array, limit: number): TextMatch[] {
  const heap: number[] = [];
  const better = (a: number, b: number): boolean =>
    (scores[a] as number) > (scores[b] as number) || (scores[a] === scores[b] && a > b);
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && better(heap[smallest] as number, heap[left] as number)) smallest = left;
      if (right < heap.length && better(heap[smallest] as number, heap[right] as number)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest] as number, heap[i] as number];
      i = smallest;
    }
  };
  for (const docId of docIds) {
    if (heap.length < limit) {
      heap.push(docId);
      // Sift up the new leaf.
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent] as number, heap[i] as number)) break;
        [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
        i = parent;
      }
    } else if (better(docId, heap[0] as number)) {
      heap[0] = docId;
      siftDown(0);
    }
  }
  // Newer documents (higher ids) first among equal scores: the more recent message wins a tie.
  heap.sort((a, b) => (better(a, b) ? -1 : 1));
  const best = scores[heap[0] as number] ?? 0;
  return heap.map((docId) => ({ docId, score: (scores[docId] as number) / best }));
}

/** A BM25 index of documents identified by caller-chosen integer ids. */
export class TextIndex {
  private readonly stopwords: ReadonlySet<string>;
  private readonly k1: number;
  private readonly b: number;
  private readonly postings = new Map<string, Postings>();
  // Per document id: its length in terms (0 = absent), and whether it was removed.
  private lengths = new Uint32Array(1024);
  private removed = new Uint8Array(1024);
  private live = 0;
  private removedSinceSweep = 0;
  private removals = 0;
  private totalLength = 0;
  private scores = new Float64Array(0);

  constructor(options: TextIndexOptions = {}) {
    this.stopwords = options.stopwords === false ? new Set() : (options.stopwords ?? ENGLISH_STOPWORDS);
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
  }

  /** Documents in the index. */
  get size(): number {
    return this.live;
  }

  /** The query or document terms of `text`, under this index's stopwords. */
  terms(text: string): string[] {
    return tokenize(text, this.stopwords);
  }

  /** Indexes `text` as document `docId` (a new id: ids are never reused); false when it has no terms. */
  add(docId: number, text: string): boolean {
    const terms = this.terms(text);
    if (terms.length === 0) return false;
    this.grow(docId);
    // Term frequencies are counted on the postings lists themselves: one map lookup per term, no map per document.
    const lists: Postings[] = [];
    for (const term of terms) {
      let list = this.postings.get(term);
      if (list === undefined) {
        list = new Postings();
        list.compactedAt = this.removals;
        this.postings.set(term, list);
      }
      if (list.pending === 0) lists.push(list);
      list.pending += 1;
    }
    for (const list of lists) {
      list.push(docId, list.pending);
      list.pending = 0;
    }
    this.lengths[docId] = terms.length;
    this.live += 1;
    this.totalLength += terms.length;
    return true;
  }

  /** Removes document `docId` (nothing when it is not indexed). */
  remove(docId: number): void {
    if (docId >= this.lengths.length || this.lengths[docId] === 0 || this.removed[docId] === 1) return;
    this.removed[docId] = 1;
    this.live -= 1;
    this.totalLength -= this.lengths[docId] as number;
    this.removedSinceSweep += 1;
    this.removals += 1;
    if (this.removedSinceSweep > 1024 && this.removedSinceSweep > this.live) this.sweep();
  }

  /** The best `limit` documents for `query`, best first; empty when no query term is indexed. */
  search(query: string, limit: number): TextMatch[] {
    const terms = [...new Set(this.terms(query))];
    if (terms.length === 0 || this.live === 0 || limit < 1) return [];
    if (this.scores.length < this.lengths.length) this.scores = new Float64Array(this.lengths.length);
    const scores = this.scores;
    const touched: number[] = [];
    const averageLength = this.totalLength / this.live;
    try {
      for (const term of terms) {
        const list = this.postings.get(term);
        if (list === undefined) continue;
        const frequency = list.compact(this.removed, this.removals);
        if (frequency === 0) {
          this.postings.delete(term);
          continue;
        }
        const idf = Math.log(1 + (this.live - frequency + 0.5) / (frequency + 0.5));
        const fixed = this.k1 * (1 - this.b);
        const perTerm = (this.k1 * this.b) / averageLength;
        for (let i = 0; i < list.length; i++) {
          const docId = list.docs[i] as number;
          const tf = list.freqs[i] as number;
          const norm = fixed + perTerm * (this.lengths[docId] as number);
          if (scores[docId] === 0) touched.push(docId);
          scores[docId] = (scores[docId] as number) + (idf * tf * (this.k1 + 1)) / (tf + norm);
        }
      }
      return touched.length === 0 ? [] : topScores(touched, scores, limit);
    } finally {
      // The score buffer is reused by the next query: clear only what this one wrote.
      for (const docId of touched) scores[docId] = 0;
    }
  }

  private grow(docId: number): void {
    if (docId < this.lengths.length) return;
    let size = this.lengths.length;
    while (size <= docId) size *= 2;
    const lengths = new Uint32Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const removed = new Uint8Array(size);
    removed.set(this.removed);
    this.removed = removed;
  }

  /** Drops every removed document's postings (amortized: runs once removals outnumber live documents). */
  private sweep(): void {
    for (const [term, list] of this.postings)
      if (list.compact(this.removed, this.removals) === 0) this.postings.delete(term);
    this.removedSinceSweep = 0;
  }
}
