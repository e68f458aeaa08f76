/**
 * `Ranker`: recall's in-process ranking of one owner's messages, the same on every store.
 *
 * A query is scored over an inverted index of stemmed terms (`analyze`), in three steps:
 * 1. Okapi BM25 of the query's terms.
 * 2. Conversation: a message gets a share of the score of the message before it (a large share
 *    when that one asks a question: the answer often shares no word with the question asked
 *    later, "How long have you been married?" → "5 years already!"), a smaller share of the one
 *    after it, a share of the matching turns two away (in a dialogue, the same speaker going on:
 *    "The opening is tomorrow!" … "Nervous, but the opening will be great"), and a share of the best score in its
 *    session (a conversation about the topic).
 * 3. Boosts: a question asking when prefers messages that place things in time (read with their
 *    timestamps); a question naming a month, season or year prefers messages written in it; a
 *    message whose author (its participant name, or a transcript's leading "Name:") the question names is preferred — not
 *    when it names that author only as an owner ("Gina's store") beside another name.
 * A query term's lexical variants ("kids" for "children": `variants.ts`) count at a lower weight,
 * and so do the known words standing for a query word the index never saw (a typo, a short form,
 * two words run together: `near-words.ts`).
 * The weights were chosen on LoCoMo's development split and hold over a plateau around them
 * (`bench/recall-lab.ts`). Ties go to the newer message. Deterministic: no randomness, no model.
 *
 * Cost: indexing looks each word up in a `WordTable` straight from the scanned text (a word is
 * stemmed once per index), and only the first `MAX_INDEXED_CHARS` of a message are indexed; a
 * query writes scores into typed scratch arrays and keeps the best few in a bounded selection.
 * @module
 */
import { MAX_TERM_CHARS, NON_ASCII, forEachWord, tokenize } from '../text-index.js';
import { RECALL_STOPWORDS, analyze, stem } from './analyzer.js';
import {
  THIS_WORD,
  TIME_AFTER_THIS,
  TIME_WORD,
  inPeriodMonth,
  monthOf,
  timeIntent,
  timeWordFlags,
} from './time-intent.js';
import { nearWords } from './near-words.js';
import { variantsOf } from './variants.js';
import { HASH_START, WordTable, hashStep, hashWord } from './word-table.js';
import { Postings } from '../postings.js';

/** A message that opens with a name and a colon ("Gina: …"), as transcripts are written: the name is its author's. */
const AUTHOR = /^\s*(\p{Lu}[\p{L}\p{N}'-]{1,40}):\s/u;

/** A name followed by a possessive "'s" ("Gina's store"). */
const POSSESSIVE = /(\p{L}[\p{L}\p{N}-]*)['’]s\b/gu;

/** Characters of a message indexed: the head of a longer one (a large tool output) stands for it. */
export const MAX_INDEXED_CHARS = 8_192;

/** The knobs of the ranking (fixed in production; the bench's lab varies them). */
export interface RankingParams {
  readonly k1: number;
  readonly b: number;
  /** Share of the previous message's score a message gets (0: none). */
  readonly context: number;
  /** Share of the next message's score a message gets. */
  readonly contextBack: number;
  /** Share of the previous message's score a message gets when that message asks a question (in place of `context`). */
  readonly answer: number;
  /** Boost of a message that places something in time, for a question asking when. */
  readonly timeMention: number;
  /** Boost of a message written in the period a question names. */
  readonly period: number;
  /** Share of the best score of its session a message gets (0: none). */
  readonly session: number;
  /** Boost of a message whose author (its participant name or a leading "Name:") the query names. */
  readonly author: number;
  /** Share of a message's score passed two messages away, both ways: in a dialogue, the same speaker's turns around it. */
  readonly speaker: number;
  /** Weight of the known words standing for an unknown query word (a typo, a compound, an abbreviation; `nearWords`). */
  readonly near: number;
  /** Weight of a query term's lexical variants ("kids" for "children"; `variantsOf`), relative to the term's own. */
  readonly variant: number;
}

/** The ranking recall uses. */
export const DEFAULT_RANKING: RankingParams = Object.freeze({
  k1: 0.9,
  b: 0.4,
  context: 0.2,
  contextBack: 0.1,
  answer: 0.8,
  session: 0.3,
  timeMention: 0.5,
  period: 0.5,
  author: 0.7,
  variant: 0.5,
  speaker: 0.3,
  near: 0.8,
});

/** One match of `Ranker.search`. */
export interface RankedDoc {
  readonly docId: number;
  /** Score divided by the best match's: the best is 1, the rest in (0, 1]. */
  readonly score: number;
}

/** Where a new message sits: its conversation neighbour before it, and when it was written. */
export interface DocPlacement {
  /** The document just before this one in its session, if indexed. */
  readonly after?: number;
  /** Milliseconds since the epoch (NaN when unknown). */
  readonly timestampMs?: number;
  /** Who wrote it, when known (a participant's name); else a leading "Name:" of the text says. */
  readonly author?: string;
}

/**
 * A scratch score per document (or session label) and the ids written, cleared after each query.
 * Both are typed arrays kept across queries: a query over a large partition touches tens of
 * thousands of documents, and a fresh `number[]` per query was regrown (and collected) each time.
 */
class Scores {
  values = new Float64Array(1024);
  /** The ids whose value is not 0, in the order first written; `count` of them. */
  touched = new Int32Array(1024);
  count = 0;

  /** Makes room for ids below `size` (hot loops then index `values` and `touched` directly). */
  reserve(size: number): void {
    if (size <= this.values.length) return;
    const values = new Float64Array(size);
    values.set(this.values);
    this.values = values;
    const touched = new Int32Array(size);
    touched.set(this.touched.subarray(0, this.count));
    this.touched = touched;
  }

  add(docId: number, value: number): void {
    const values = this.values;
    if (values[docId] === 0) {
      // Full only if a zero was added (an id is listed again while its value stays 0).
      if (this.count === this.touched.length) this.widen();
      this.touched[this.count++] = docId;
    }
    values[docId] = (values[docId] as number) + value;
  }

  private widen(): void {
    const touched = new Int32Array(this.touched.length * 2);
    touched.set(this.touched);
    this.touched = touched;
  }

  clear(): void {
    const values = this.values;
    const touched = this.touched;
    for (let i = 0; i < this.count; i++) values[touched[i] as number] = 0;
    this.count = 0;
  }
}

/**
 * The best `limit` documents offered, best first, ties to the higher (newer) id: a sorted array of
 * the best so far (limit is small), and most documents fall below its last at one compare.
 */
class Top {
  readonly ids: number[] = [];
  readonly scores: number[] = [];
  private floor = -1;

  constructor(private readonly limit: number) {}

  offer(docId: number, score: number): void {
    const { ids, scores, limit } = this;
    if (ids.length === limit && score < this.floor) return;
    let i = ids.length;
    while (i > 0) {
      const otherScore = scores[i - 1] as number;
      if (score > otherScore || (score === otherScore && docId > (ids[i - 1] as number))) i -= 1;
      else break;
    }
    if (i >= limit) return;
    ids.splice(i, 0, docId);
    scores.splice(i, 0, score);
    if (ids.length > limit) {
      ids.length = limit;
      scores.length = limit;
    }
    this.floor = ids.length === limit ? (scores[limit - 1] as number) : -1;
  }
}

/** An index of one owner's messages, ranked as the module comment says. */
export class Ranker {
  private readonly terms = new Map<string, number>();
  /** Per word seen in a document: its term id (-1 for a stopword) and what it says about time; stemmed once per index. */
  private readonly table = new WordTable();
  /** Scratch of `add`: the postings lists of the document being added. */
  private readonly pending: Postings[] = [];
  private readonly postings: Postings[] = [];
  private lengths = new Uint32Array(1024);
  private removed = new Uint8Array(1024);
  private prev = new Int32Array(1024);
  private next = new Int32Array(1024);
  /** Per document, the month it was written (`monthOf`: a query naming a period reads it for every match). */
  private months = new Int32Array(1024);
  private timeWords = new Uint8Array(1024);
  private asks = new Uint8Array(1024);
  /** Per document, a label of its session (the id of the session's first document indexed). */
  private groups = new Uint32Array(1024);
  /** Per document, the term id + 1 of its author's name (`DocPlacement.author` or a leading "Name:"), 0 when none. */
  private authors = new Uint32Array(1024);
  /** Term ids that are some message's author (kept when the message goes: a name stays a name). */
  private readonly authorTerms = new Set<number>();
  private live = 0;
  private removals = 0;
  private removedSinceSweep = 0;
  private totalLength = 0;
  private readonly base = new Scores();
  private readonly final = new Scores();
  /** Per session label, the best score of its messages. */
  private readonly sessions = new Scores();

  constructor(
    readonly params: RankingParams = DEFAULT_RANKING,
    /** Words left out of documents and queries. @default RECALL_STOPWORDS */
    private readonly stopwords: ReadonlySet<string> = RECALL_STOPWORDS,
  ) {}

  /** Documents in the index. */
  get size(): number {
    return this.live;
  }

  /** Indexes `text` as document `docId` (a new id: ids are never reused); false when it has no terms. */
  add(docId: number, text: string, placement: DocPlacement = {}): boolean {
    // Only the head of a long text is indexed (a large tool output): indexing stays linear in a bounded size.
    const indexed = text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text;
    const lists = this.pending;
    const table = this.table;
    let length = 0;
    let time = false;
    let afterThis = false;
    const take = (entry: number): void => {
      const flags = table.flags[entry] as number;
      if ((flags & TIME_WORD) !== 0 || (afterThis && (flags & TIME_AFTER_THIS) !== 0)) time = true;
      afterThis = (flags & THIS_WORD) !== 0;
      const termId = table.values[entry] as number;
      if (termId < 0) return;
      const list = this.postings[termId] as Postings;
      if (list.pending === 0) lists.push(list);
      list.pending += 1;
      length += 1;
    };
    if (NON_ASCII.test(indexed)) {
      forEachWord(indexed, (word) => take(this.entry(word, 0, word.length, hashWord(word))));
    } else {
      // The words of `forEachWord`'s ASCII path, hashed while scanned: a known word costs no string.
      const lower = indexed.toLowerCase();
      let start = -1;
      let hash = HASH_START;
      for (let i = 0; i <= lower.length; i++) {
        const code = i < lower.length ? lower.charCodeAt(i) : 0;
        if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
          if (start < 0) {
            start = i;
            hash = HASH_START;
          }
          hash = hashStep(hash, code);
        } else if (start >= 0) {
          if (i - start >= 2 && i - start <= MAX_TERM_CHARS) take(this.entry(lower, start, i, hash));
          start = -1;
        }
      }
    }
    if (length === 0) return false;
    this.grow(docId);
    for (const list of lists) {
      list.push(docId, list.pending);
      list.pending = 0;
    }
    lists.length = 0;
    const author = placement.author ?? AUTHOR.exec(text)?.[1];
    const authorTerm = author === undefined ? undefined : analyze(author, this.stopwords)[0];
    // A name given beside the text may not be among its words: it still becomes a term, which the query can name.
    const authorId = authorTerm === undefined ? undefined : this.termId(authorTerm);
    this.authors[docId] = authorId === undefined ? 0 : authorId + 1;
    if (authorId !== undefined) this.authorTerms.add(authorId);
    this.lengths[docId] = length;
    this.months[docId] = monthOf(placement.timestampMs ?? Number.NaN);
    this.timeWords[docId] = time ? 1 : 0;
    this.asks[docId] = indexed.includes('?') ? 1 : 0;
    const after = placement.after;
    this.groups[docId] = docId;
    if (after !== undefined && after < this.lengths.length && this.lengths[after] !== 0 && this.removed[after] === 0) {
      this.groups[docId] = this.groups[after] as number;
      this.prev[docId] = after;
      this.next[docId] = this.next[after] as number;
      if (this.next[after] !== 0) this.prev[this.next[after] as number] = docId;
      this.next[after] = docId;
    }
    this.live += 1;
    this.totalLength += length;
    return true;
  }

  /** The word table entry of `text.slice(start, end)`, made when new. */
  private entry(text: string, start: number, end: number, hash: number): number {
    const entry = this.table.find(text, start, end, hash);
    if (entry >= 0) return entry;
    const word = text.slice(start, end);
    const termId = this.stopwords.has(word) ? -1 : this.termId(stem(word));
    return this.table.insert(word, hash, termId, timeWordFlags(word));
  }

  /** The id of `term`, made when new. */
  private termId(term: string): number {
    let termId = this.terms.get(term);
    if (termId === undefined) {
      termId = this.postings.length;
      this.terms.set(term, termId);
      const list = new Postings();
      list.compactedAt = this.removals;
      this.postings.push(list);
    }
    return termId;
  }

  /** Removes document `docId` (nothing when it is not indexed). */
  remove(docId: number): void {
    if (docId >= this.lengths.length || this.lengths[docId] === 0 || this.removed[docId] === 1) return;
    this.removed[docId] = 1;
    const before = this.prev[docId] as number;
    const after = this.next[docId] as number;
    if (before !== 0) this.next[before] = after;
    if (after !== 0) this.prev[after] = before;
    this.prev[docId] = 0;
    this.next[docId] = 0;
    this.live -= 1;
    this.totalLength -= this.lengths[docId] as number;
    this.removals += 1;
    this.removedSinceSweep += 1;
    if (this.removedSinceSweep > 1024 && this.removedSinceSweep > this.live) this.sweep();
  }

  /** The best `limit` documents for `query`, best first; empty when no query term is indexed. */
  search(query: string, limit: number, params: RankingParams = this.params): RankedDoc[] {
    if (this.live === 0 || limit < 1) return [];
    const known = (term: string): number[] => {
      const termId = this.terms.get(term);
      return termId === undefined ? [] : [termId];
    };
    const terms = [...new Set(analyze(query, this.stopwords))];
    const termIds = terms.flatMap(known);
    const variantIds =
      params.variant > 0
        ? [...new Set(terms.flatMap(variantsOf))].filter((term) => !terms.includes(term)).flatMap(known)
        : [];
    const nearIds = params.near > 0 ? this.nearTermIds(query, termIds) : [];
    if (termIds.length === 0 && variantIds.length === 0 && nearIds.length === 0) return [];
    const { base, final, sessions } = this;
    const size = this.lengths.length;
    base.reserve(size);
    final.reserve(size);
    sessions.reserve(size);
    try {
      for (const termId of termIds) this.scoreTerm(termId, 1, params);
      for (const termId of variantIds) this.scoreTerm(termId, params.variant, params);
      for (const termId of nearIds) this.scoreTerm(termId, params.near, params);
      // Context: a matching message passes a share of its score to matching messages beside it, and
      // to the next one whatever its words when it asks a question (that one may be the answer).
      const baseValues = base.values;
      const baseTouched = base.touched;
      const { prev, next, asks } = this;
      const { contextBack, answer, context, speaker } = params;
      for (let n = 0; n < base.count; n++) {
        const docId = baseTouched[n] as number;
        const score = baseValues[docId] as number;
        final.add(docId, score);
        const before = prev[docId] as number;
        const after = next[docId] as number;
        if (before !== 0 && contextBack > 0 && (baseValues[before] as number) > 0)
          final.add(before, contextBack * score);
        const asking = asks[docId] === 1;
        const forward = asking ? answer : context;
        if (after !== 0 && forward > 0 && (asking || (baseValues[after] as number) > 0))
          final.add(after, forward * score);
        // Two turns away in a dialogue is the same speaker going on (or the turn they went on from).
        if (speaker > 0) {
          const earlier = before === 0 ? 0 : (prev[before] as number);
          const later = after === 0 ? 0 : (next[after] as number);
          if (earlier !== 0 && (baseValues[earlier] as number) > 0) final.add(earlier, speaker * score);
          if (later !== 0 && (baseValues[later] as number) > 0) final.add(later, speaker * score);
        }
      }
      const values = final.values;
      const groups = this.groups;
      // A conversation that matches as a whole lends its messages a share of its best message's score.
      const bestOf = sessions.values;
      const touched = final.touched;
      const count = final.count;
      if (params.session > 0)
        for (let n = 0; n < count; n++) {
          const docId = touched[n] as number;
          const group = groups[docId] as number;
          const score = values[docId] as number;
          if (score > (bestOf[group] as number)) {
            if (bestOf[group] === 0) sessions.touched[sessions.count++] = group;
            bestOf[group] = score;
          }
        }
      const speakers = params.author > 0 ? this.speakersAsked(query, termIds) : new Set<number>();
      const intent = timeIntent(query);
      const when = intent.asksWhen && params.timeMention > 0;
      const period = intent.periods.length > 0 && params.period > 0;
      const { session: sessionShare, timeMention, author } = params;
      const { timeWords, months, authors } = this;
      // The boosts are applied as the best are picked, in one pass (no score is written back).
      const top = new Top(limit);
      for (let n = 0; n < count; n++) {
        const docId = touched[n] as number;
        let score = values[docId] as number;
        if (sessionShare > 0) score += sessionShare * (bestOf[groups[docId] as number] as number);
        let factor = 1;
        if (when && timeWords[docId] === 1) factor += timeMention;
        if (period && inPeriodMonth(months[docId] as number, intent.periods)) factor += params.period;
        if (authors[docId] !== 0 && speakers.has((authors[docId] as number) - 1)) factor += author;
        top.offer(docId, score * factor);
      }
      const bestScore = top.scores[0] as number;
      return top.ids.map((docId, i) => ({ docId, score: (top.scores[i] as number) / bestScore }));
    } finally {
      base.clear();
      final.clear();
      sessions.clear();
    }
  }

  /**
   * The authors whose messages `query` asks about: the authors it names, less those it names only
   * as an owner ("What did Jon say about Gina's store?" asks for Jon's words) while another remains.
   */
  private speakersAsked(query: string, termIds: readonly number[]): Set<number> {
    const named = termIds.filter((termId) => this.authorTerms.has(termId));
    if (named.length < 2) return new Set(named);
    const owners = new Set<number>();
    for (const [, name] of query.matchAll(POSSESSIVE))
      for (const term of analyze(name as string, this.stopwords)) {
        const termId = this.terms.get(term);
        if (termId !== undefined) owners.add(termId);
      }
    const speakers = named.filter((termId) => !owners.has(termId));
    return new Set(speakers.length > 0 ? speakers : named);
  }

  /** Term ids of the known words near the query's unknown words (`nearWords`), none of `exclude`. */
  private nearTermIds(query: string, exclude: readonly number[]): number[] {
    const unknown = tokenize(query, this.stopwords).filter((word) => !this.terms.has(stem(word)));
    if (unknown.length === 0) return [];
    const table = this.table;
    const termOf = (word: string): number => table.valueOf(word) ?? -1;
    const ids = new Set<number>();
    for (const word of unknown)
      for (const near of nearWords(word, table.held, (w) => termOf(w) >= 0)) {
        const termId = termOf(near);
        if (termId >= 0 && !exclude.includes(termId)) ids.add(termId);
      }
    return [...ids];
  }

  /** Adds BM25 of one term, times `weight`, to the base scores. */
  private scoreTerm(termId: number, weight: number, params: RankingParams): void {
    const list = this.postings[termId] as Postings;
    const frequency = list.compact(this.removed, this.removals);
    if (frequency === 0) return;
    const idf = this.idf(frequency);
    const averageLength = this.totalLength / this.live;
    const fixed = params.k1 * (1 - params.b);
    const perTerm = (params.k1 * params.b) / averageLength;
    const scale = weight * idf * (params.k1 + 1);
    for (let i = 0; i < list.length; i++) {
      const docId = list.docs[i] as number;
      const tf = list.freqs[i] as number;
      this.base.add(docId, (scale * tf) / (tf + fixed + perTerm * (this.lengths[docId] as number)));
    }
  }

  private idf(frequency: number): number {
    return Math.log(1 + (this.live - frequency + 0.5) / (frequency + 0.5));
  }

  private grow(docId: number): void {
    if (docId < this.lengths.length) return;
    let size = this.lengths.length;
    while (size <= docId) size *= 2;
    const widen = <T extends Uint32Array | Uint8Array | Int32Array | Float64Array>(
      old: T,
      make: (n: number) => T,
    ): T => {
      const array = make(size);
      array.set(old);
      return array;
    };
    this.lengths = widen(this.lengths, (n) => new Uint32Array(n));
    this.removed = widen(this.removed, (n) => new Uint8Array(n));
    this.prev = widen(this.prev, (n) => new Int32Array(n));
    this.next = widen(this.next, (n) => new Int32Array(n));
    this.months = widen(this.months, (n) => new Int32Array(n));
    this.timeWords = widen(this.timeWords, (n) => new Uint8Array(n));
    this.asks = widen(this.asks, (n) => new Uint8Array(n));
    this.groups = widen(this.groups, (n) => new Uint32Array(n));
    this.authors = widen(this.authors, (n) => new Uint32Array(n));
  }

  private sweep(): void {
    for (const list of this.postings) list.compact(this.removed, this.removals);
    this.removedSinceSweep = 0;
  }
}
