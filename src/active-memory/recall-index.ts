/**
 * `RecallIndex`: what `recall` searches, shared by every handle on one store in a process.
 *
 * Every store ranks with the same in-process `Ranker` (stemmed BM25 with conversation context and
 * time; see its module), built lazily from `readMessages` and kept up to date incrementally. The
 * SQL stores' own full-text search (`store.searchText`: SQLite FTS5, Postgres) is not used for
 * recall: its ranking cannot read a message's neighbours or timestamp, re-ranking its top results
 * would still miss an answer that shares no word with the question, and one ranker makes every
 * store answer alike. The cost is memory in process (the index of the owners searched recently,
 * bounded by `maxDocuments`) and reading an owner's messages once per process.
 *
 * With an `embed` function, every indexed message also gets an embedding (stored beside the
 * session's messages, cached here in one matrix per owner), and the text scores are fused with the
 * similarities that stand out from chance (`fuseRankings`).
 *
 * Isolation: each owner (a user, or a user-less session) has a partition of its own, filled only
 * from `list({ userId })` (or the one session).
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { KeyedLock } from '../internal/keyed-lock.js';
import { Message } from '../message/message.js';
import type { SessionMark, SessionStore } from '../store/session-store-types.js';
import { marksByListing } from '../store/marks.js';
import { readEachAt } from '../store/message-refs.js';
import { onUserForgotten } from '../store/forget.js';
import { checkEmbedId } from './checks.js';
import { Partition, type IndexedDoc, type VectorSpace } from './partition.js';
import { FUSED_CANDIDATES, fuseRankings } from './ranking/fusion.js';
import type { TextIndexOptions } from './text-index.js';
import type { Embed, RecallHit } from './types.js';
import { embedTexts } from './vectors.js';

/** Options of `RecallIndex`. */
export interface RecallIndexOptions {
  /** Stopwords of the in-process text index (`false` keeps every word). @default RECALL_STOPWORDS (English function words and the words questions are made of) */
  readonly stopwords?: TextIndexOptions['stopwords'];
  /** Most messages kept indexed in process; the least recently searched owners are dropped first. @default 2_000_000 */
  readonly maxDocuments?: number;
}

/** One search of `RecallIndex.recall`. */
export interface RecallRequest {
  readonly query: string;
  readonly k: number;
  readonly threshold: number;
  /** Whose sessions to search; without it, only `sessionId`. */
  readonly userId?: string;
  readonly sessionId: string;
  /** The user's knowledge session: its messages marked `knowledge` are reported as such. */
  readonly knowledgeSessionId?: string;
  readonly embed?: Embed;
  /** Names the embedding model; stored vectors of another id are not used. @default 'default' */
  readonly embedId?: string;
  /** Leaves out messages it refuses (a hit it refuses does not count toward `k`): lifecycle filters such as `asOf`. */
  readonly keep?: (sessionId: string, message: Message) => boolean;
  /** Text candidates ranked at least (raise it with `keep`, so that enough are left). @default k × 2 + 5 */
  readonly candidates?: number;
}

interface Candidate {
  /** The partition's document id. */
  readonly docId: number;
  readonly sessionId: string;
  readonly seq: number;
  readonly messageId: string;
  readonly score: number;
}

/** Text candidates a request ranks. */
function candidateCount(request: RecallRequest): number {
  return Math.max(request.k * 2 + 5, request.candidates ?? 0);
}

/** Higher score first; among equal scores the later message (stable across runs). */
function byScore(a: Candidate, b: Candidate): number {
  return b.score - a.score || b.seq - a.seq || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);
}

/** The recall index of one store (see the module comment). */
export class RecallIndex {
  private readonly partitions = new Map<string, Partition>();
  // Syncs of one partition never interleave.
  private readonly locks = new KeyedLock();
  private readonly maxDocuments: number;

  constructor(
    /** The store this index reads (a handle on another store refuses it). */
    readonly store: SessionStore,
    private readonly options: RecallIndexOptions = {},
  ) {
    this.maxDocuments = options.maxDocuments ?? 2_000_000;
    if (!Number.isInteger(this.maxDocuments) || this.maxDocuments < 1) {
      throw new InvalidInputError('INVALID_ARGUMENT', 'RecallIndex maxDocuments must be a positive integer');
    }
  }

  /** Messages indexed in process, over every owner. */
  get size(): number {
    let total = 0;
    for (const partition of this.partitions.values()) total += partition.size;
    return total;
  }

  /** Drops what is held in process for `userId` (or everything): it is rebuilt from the store when next searched. */
  forget(userId?: string): void {
    if (userId === undefined) this.partitions.clear();
    else this.partitions.delete(`user:${userId}`);
  }

  /** The best `k` messages for `request`, best first, each scoring at least `threshold`. */
  async recall(request: RecallRequest): Promise<RecallHit[]> {
    const embedId = checkEmbedId(request.embedId);
    if (request.query.trim().length === 0) return [];
    // The query is embedded once, before any lock: its dimensions name the vector space.
    const queryVector = request.embed === undefined ? undefined : (await embedTexts(request.embed, [request.query]))[0];
    const space: VectorSpace | undefined =
      request.embed === undefined || queryVector === undefined
        ? undefined
        : { embed: request.embed, embedId, dimensions: queryVector.length };
    const key = request.userId === undefined ? `session:${request.sessionId}` : `user:${request.userId}`;
    return this.locks.run(key, async () => {
      const partition = this.partition(key);
      for (let attempt = 0; ; attempt += 1) {
        const text =
          attempt === 0 && space === undefined && request.userId !== undefined
            ? await this.searchWhileListing(partition, request, request.userId)
            : (await this.sync(partition, request, space), this.textCandidates(partition, request, space));
        const candidates =
          space === undefined || queryVector === undefined ? text : this.fuse(partition, text, queryVector, request);
        const stale = new Set<string>();
        const hits = await this.hydrate(candidates, request, stale);
        // A hit that no longer matched the store: that session changed in place; re-index it and search again once.
        if (stale.size === 0 || attempt === 1) return hits;
        for (const sessionId of stale) partition.markStale(sessionId);
      }
    });
  }

  private partition(key: string): Partition {
    let partition = this.partitions.get(key);
    if (partition === undefined) {
      const { stopwords } = this.options;
      partition = new Partition(key, this.store, stopwords === false ? new Set() : stopwords);
    }
    // Most recently used last: eviction takes from the front.
    this.partitions.delete(key);
    this.partitions.set(key, partition);
    return partition;
  }

  /**
   * A text-only recall over a user's sessions: the search runs on what is indexed while the store
   * answers for the marks (its round trip hidden behind the CPU of the search), and is kept when
   * the marks show nothing changed — the common case; otherwise the index syncs and searches again.
   * Either way the ranking is the one a sync before the search gives.
   */
  private async searchWhileListing(partition: Partition, request: RecallRequest, userId: string): Promise<Candidate[]> {
    const listing = this.marks(userId);
    // Settled here too, so that a failing listing is never unhandled while the search runs.
    listing.catch(() => undefined);
    // One turn of the event loop lets a pooled client take the query and send it before the search holds the thread.
    await new Promise((resolve) => setImmediate(resolve));
    const early = partition.size === 0 ? undefined : this.textCandidates(partition, request, undefined);
    const marks = liveMarks(await listing);
    if (early !== undefined && partition.isCurrent(marks)) return early;
    await partition.sync(marks, undefined);
    this.evict(partition);
    return this.textCandidates(partition, request, undefined);
  }

  private async sync(partition: Partition, request: RecallRequest, space: VectorSpace | undefined): Promise<void> {
    if (request.userId === undefined) {
      await partition.sync(request.sessionId, space);
    } else {
      await partition.sync(liveMarks(await this.marks(request.userId)), space);
    }
    this.evict(partition);
  }

  /**
   * The marks of the user's sessions: the store's `marks` (one light call where the backend has
   * one), else the listing, page by page.
   */
  private async marks(userId: string): Promise<SessionMark[]> {
    const store = this.store;
    return store.marks === undefined ? marksByListing((query) => store.list(query), userId) : store.marks(userId);
  }

  /** Drops the least recently used partitions while more than `maxDocuments` messages are held. */
  private evict(current: Partition): void {
    let total = this.size;
    for (const [key, partition] of this.partitions) {
      if (total <= this.maxDocuments) return;
      if (partition === current) continue;
      total -= partition.size;
      this.partitions.delete(key);
    }
  }

  private textCandidates(partition: Partition, request: RecallRequest, space: VectorSpace | undefined): Candidate[] {
    const limit = space === undefined ? candidateCount(request) : Math.max(FUSED_CANDIDATES, candidateCount(request));
    return partition.searchText(request.query, limit).map(({ docId, doc, score }) => ({ docId, ...doc, score }));
  }

  /**
   * The text candidates fused with the messages most similar to the query (`fuseRankings`), best
   * first. Without a vector to compare, the text ranking alone.
   */
  private fuse(
    partition: Partition,
    text: readonly Candidate[],
    query: Float32Array,
    request: RecallRequest,
  ): readonly Candidate[] {
    const want = Math.max(text.length, candidateCount(request));
    const scan = partition.searchVectors(query, Math.max(FUSED_CANDIDATES, candidateCount(request)));
    if (scan === undefined) return text;
    const fused = fuseRankings({
      text: text.map((candidate) => ({ id: candidate.docId, score: candidate.score })),
      nearest: scan.nearest,
      similarity: scan.similarity,
      stats: scan,
    });
    return fused
      .map(({ id, score }) => ({ docId: id, ...(partition.docs.get(id) as IndexedDoc), score }))
      .sort(byScore)
      .slice(0, want);
  }

  /**
   * Reads the best candidates' messages (their current text, never a cached copy) until `k` hits
   * are found. A candidate whose message is gone or has another id marks its session in `stale`.
   */
  private async hydrate(
    candidates: readonly Candidate[],
    request: RecallRequest,
    stale: Set<string> | undefined,
  ): Promise<RecallHit[]> {
    const eligible = candidates.filter((candidate) => candidate.score >= request.threshold && candidate.score > 0);
    const hits: RecallHit[] = [];
    let next = 0;
    while (hits.length < request.k && next < eligible.length) {
      const batch = eligible.slice(next, next + (request.k - hits.length));
      next += batch.length;
      const read = await this.read(batch);
      batch.forEach((candidate, index) => {
        const message = read[index];
        if (message === undefined || message.id !== candidate.messageId) {
          stale?.add(candidate.sessionId);
          return;
        }
        if (request.keep !== undefined && !request.keep(candidate.sessionId, message)) return;
        const knowledge = candidate.sessionId === request.knowledgeSessionId && message.metadata.knowledge === true;
        hits.push(
          Object.freeze({
            sessionId: candidate.sessionId,
            messageId: message.id,
            seq: candidate.seq,
            score: candidate.score,
            text: Message.text(message),
            source: knowledge ? 'knowledge' : 'message',
            timestamp: message.timestamp,
          }),
        );
      });
    }
    return hits;
  }

  /** The candidates' messages: in one call where the store has `readMessagesAt`, else one `readMessages` each. */
  private async read(candidates: readonly Candidate[]): Promise<Array<Message | undefined>> {
    const store = this.store;
    const refs = candidates.map(({ sessionId, seq }) => ({ sessionId, seq }));
    if (store.readMessagesAt !== undefined) return store.readMessagesAt(refs);
    return readEachAt(refs, (id, range) => store.readMessages(id, range));
  }
}

/** The marks of the sessions recall can read, one per id: a damaged session cannot be read (listing and reading it say why). */
function liveMarks(marks: readonly SessionMark[]): SessionMark[] {
  const sessions = new Map<string, SessionMark>();
  for (const mark of marks) if (mark.damaged === undefined) sessions.set(mark.id, mark);
  return [...sessions.values()];
}

// One index per store per process, so that every handle on a store shares what was indexed.
const shared = new WeakMap<SessionStore, RecallIndex>();

/** The process-wide `RecallIndex` of `store` (made on first use). */
export function recallIndexFor(store: SessionStore): RecallIndex {
  let index = shared.get(store);
  if (index === undefined) {
    index = new RecallIndex(store);
    shared.set(store, index);
    // A forgotten user's partition goes with them (issue 23): what it held is counted as dropped.
    const forgetting = index;
    onUserForgotten(store, (userId) => {
      const before = forgetting.size;
      forgetting.forget(userId);
      return before - forgetting.size;
    });
  }
  return index;
}
