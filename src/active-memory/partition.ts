/**
 * One owner's share of the recall index: the indexed messages of one user's sessions (or of one
 * user-less session), kept in step with the store incrementally. Each owner has a partition of
 * its own, so one user's words never even shape another user's scores (BM25's document
 * frequencies are per partition).
 * @module
 */
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';
import type { SessionStore, SessionSummary } from '../store/session-store-types.js';
import { eachLimited, readAfter } from './read-after.js';
import { Ranker, type RankedDoc } from './ranking/ranker.js';
import { EMBED_BATCH, chunkPrefix, decodeChunk, embedTexts, encodeChunks } from './vectors.js';
import type { Embed } from './types.js';
import { VectorMatrix, type MatrixScan } from './vector-matrix.js';
import { isNotRecalled } from './not-recalled.js';

/** Sessions brought up to date at once. */
const SYNC_CONCURRENCY = 8;
/**
 * Messages indexed between two yields to the event loop: a first recall indexes a user's whole
 * history, and a long synchronous stretch would stall the process's other work (a server store's
 * connection and command timers fire late and fail requests that were answered in time).
 */
const INDEX_SLICE = 256;

/** An indexed message. */
export interface IndexedDoc {
  readonly sessionId: string;
  readonly seq: number;
  readonly messageId: string;
}

/** The vectors a recall wants: whose `embed`, under which stored id, of how many dimensions. */
export interface VectorSpace {
  readonly embed: Embed;
  readonly embedId: string;
  readonly dimensions: number;
}

/** What is known of a session's stored state when it is synced (from `list`); absent for a single session. */
type SessionMark = Pick<SessionSummary, 'id' | 'version' | 'messageCount' | 'tokenCount' | 'createdAt'>;

interface SessionState {
  createdAt: string | undefined;
  /** Version last synced; -1 forces a full re-index (a hit showed the session was rewritten). */
  version: number;
  tokenCount: number;
  lastSeq: number;
  /** Messages read, with or without text: compared with the stored count to notice rewrites. */
  count: number;
  readonly docs: Map<number, number>;
  /** The vector space whose stored chunks were loaded for this session. */
  vectorsLoaded: string | undefined;
  /** True while every document has a vector of that space (cleared when one is added). */
  vectorsComplete: boolean;
  /** The document of the session's last indexed message: the next one's conversation neighbour. */
  lastDoc: number | undefined;
}

/** The indexed messages of one owner. */
export class Partition {
  /** The text ranking of this owner's messages. */
  readonly text: Ranker;
  readonly docs = new Map<number, IndexedDoc>();
  /** Unit embeddings in the partition's vector space, by document id, once computed or loaded. */
  private readonly vectors = new VectorMatrix();
  private readonly sessions = new Map<string, SessionState>();
  private nextDocId = 1;
  private space: string | undefined;

  constructor(
    readonly key: string,
    private readonly store: SessionStore,
    stopwords?: ReadonlySet<string>,
  ) {
    this.text = new Ranker(undefined, stopwords);
  }

  /** Indexed messages. */
  get size(): number {
    return this.docs.size;
  }

  /** Forces a full re-index of `sessionId` at the next sync (a hit no longer matched the store). */
  markStale(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state !== undefined) state.version = -1;
  }

  /**
   * Brings the partition in step with the store. `marks` lists the owner's sessions as `list`
   * reported them (sessions missing from it are dropped: deleted, expired or given to another user);
   * a bare id is a single session checked by a tail read.
   */
  async sync(marks: readonly SessionMark[] | string, space?: VectorSpace): Promise<void> {
    if (space !== undefined) this.useSpace(space);
    if (typeof marks === 'string') {
      for (const id of this.sessions.keys()) if (id !== marks) this.drop(id);
      await this.syncSession(marks, undefined, space);
      return;
    }
    const listed = new Set(marks.map((mark) => mark.id));
    for (const id of [...this.sessions.keys()]) if (!listed.has(id)) this.drop(id);
    await eachLimited(marks, SYNC_CONCURRENCY, (mark) => this.syncSession(mark.id, mark, space));
  }

  /**
   * True when syncing `marks` would change nothing the text search reads: the same sessions, each
   * indexed at the version and creation the store gives (no session marked stale).
   */
  isCurrent(marks: readonly SessionMark[]): boolean {
    if (marks.length !== this.sessions.size) return false;
    for (const mark of marks) {
      const state = this.sessions.get(mark.id);
      if (state === undefined || state.version !== mark.version || state.createdAt !== mark.createdAt) return false;
    }
    return true;
  }

  /** The best `limit` text matches, with their documents. */
  searchText(query: string, limit: number): Array<{ docId: number; doc: IndexedDoc; score: number }> {
    const matches: RankedDoc[] = this.text.search(query, limit);
    return matches.flatMap((match) => {
      const doc = this.docs.get(match.docId);
      return doc === undefined ? [] : [{ docId: match.docId, doc, score: match.score }];
    });
  }

  /**
   * Compares the unit vector `query` with every document's vector (`VectorMatrix.scan`): the `limit`
   * most similar by document id, and the distribution of all the similarities. `undefined` when no
   * document has a vector of the query's length.
   */
  searchVectors(query: Float32Array, limit: number): MatrixScan | undefined {
    if (this.vectors.size === 0 || this.vectors.dimensions !== query.length) return undefined;
    return this.vectors.scan(query, limit);
  }

  private useSpace(space: VectorSpace): void {
    const name = chunkPrefix(space.embedId, space.dimensions);
    if (this.space === name) return;
    // Another model's vectors cannot be compared with this one's: forget them all.
    this.space = name;
    this.vectors.clear();
    for (const state of this.sessions.values()) {
      state.vectorsLoaded = undefined;
      state.vectorsComplete = false;
    }
  }

  private drop(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state === undefined) return;
    for (const docId of state.docs.values()) {
      this.docs.delete(docId);
      this.text.remove(docId);
      this.vectors.delete(docId);
    }
    this.sessions.delete(sessionId);
  }

  private async syncSession(id: string, mark: SessionMark | undefined, space: VectorSpace | undefined): Promise<void> {
    let state = this.sessions.get(id);
    const rewritten =
      state === undefined ||
      state.version === -1 ||
      (mark !== undefined && (mark.createdAt !== state.createdAt || mark.version < state.version));
    if (!rewritten && state !== undefined && mark !== undefined && mark.version === state.version) {
      if (space !== undefined) await this.syncVectors(id, state, space, []);
      return;
    }
    let read = state === undefined || rewritten ? undefined : await readAfter(this.store, id, state.lastSeq);
    if (state !== undefined && read !== undefined && mark !== undefined) {
      const count = state.count + read.length;
      // Messages removed or edited in place (compaction): the increment does not add up to the store's count.
      if (count !== mark.messageCount || (read.length === 0 && mark.tokenCount !== state.tokenCount)) read = undefined;
    }
    if (read === undefined) {
      const reused = this.vectorsOf(state);
      this.drop(id);
      const all = await readAfter(this.store, id, 0);
      if (all === undefined) return;
      state = this.newState(id, mark);
      await this.index(id, state, all, reused);
      read = all;
    } else if (state !== undefined) {
      await this.index(id, state, read, new Map());
    }
    if (state === undefined) return;
    if (mark !== undefined) {
      state.version = mark.version;
      state.tokenCount = mark.tokenCount;
    }
    if (space !== undefined) await this.syncVectors(id, state, space, read);
  }

  private newState(id: string, mark: SessionMark | undefined): SessionState {
    const state: SessionState = {
      createdAt: mark?.createdAt,
      version: mark?.version ?? 0,
      tokenCount: mark?.tokenCount ?? 0,
      lastSeq: 0,
      count: 0,
      docs: new Map(),
      vectorsLoaded: undefined,
      vectorsComplete: false,
      lastDoc: undefined,
    };
    this.sessions.set(id, state);
    return state;
  }

  /** Vectors of a session about to be re-indexed, by seq and message id, so that unchanged messages keep theirs. */
  private vectorsOf(state: SessionState | undefined): Map<string, Float32Array> {
    const vectors = new Map<string, Float32Array>();
    for (const docId of state?.docs.values() ?? []) {
      const doc = this.docs.get(docId);
      const vector = this.vectors.copy(docId);
      if (doc !== undefined && vector !== undefined) vectors.set(`${doc.seq}:${doc.messageId}`, vector);
    }
    return vectors;
  }

  /** Indexes `messages` of session `id`, yielding to the event loop every `INDEX_SLICE` messages. */
  private async index(
    id: string,
    state: SessionState,
    messages: readonly Message[],
    vectors: ReadonlyMap<string, Float32Array>,
  ): Promise<void> {
    for (const [position, message] of messages.entries()) {
      if (position > 0 && position % INDEX_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const seq = message.seq ?? 0;
      state.count += 1;
      state.lastSeq = Math.max(state.lastSeq, seq);
      const text = Message.text(message);
      if (text.trim().length === 0 || state.docs.has(seq) || isNotRecalled(message)) continue;
      const docId = this.nextDocId++;
      const doc: IndexedDoc = { sessionId: id, seq, messageId: message.id };
      const vector = vectors.get(`${seq}:${message.id}`);
      if (vector !== undefined) this.vectors.set(docId, vector);
      else state.vectorsComplete = false;
      this.docs.set(docId, doc);
      state.docs.set(seq, docId);
      if (
        this.text.add(docId, text, {
          timestampMs: Date.parse(message.timestamp),
          ...(state.lastDoc === undefined ? {} : { after: state.lastDoc }),
          // A participant's name is who wrote the message (on a tool result, `name` is the tool's).
          ...(message.name === undefined || message.role === 'tool' ? {} : { author: message.name }),
        })
      )
        state.lastDoc = docId;
    }
  }

  /**
   * Gives every document of session `id` a vector: loads the stored chunks once per process,
   * embeds what they lack (from `read` when it holds the text, else re-read), and stores the new ones.
   */
  private async syncVectors(
    id: string,
    state: SessionState,
    space: VectorSpace,
    read: readonly Message[],
  ): Promise<void> {
    const prefix = chunkPrefix(space.embedId, space.dimensions);
    if (state.vectorsLoaded === prefix && state.vectorsComplete) return;
    const owner = { scope: 'session', sessionId: id } as const;
    if (state.vectorsLoaded !== prefix) {
      const stored = await this.store.values.getAll(owner);
      const unused: Record<string, undefined> = {};
      for (const [key, value] of Object.entries(stored)) {
        if (!key.startsWith(prefix)) continue;
        const chunk = decodeChunk(key, value, space.dimensions);
        let used = false;
        chunk?.seqs.forEach((seq, index) => {
          const docId = state.docs.get(seq) ?? 0;
          if (this.docs.get(docId)?.messageId !== chunk.ids[index]) return;
          this.vectors.set(docId, chunk.vectors[index] as Float32Array);
          used = true;
        });
        // A chunk none of whose messages is left (a rewritten session) only takes room.
        if (!used) unused[key] = undefined;
      }
      if (Object.keys(unused).length > 0) await this.storeVectors(id, unused);
      state.vectorsLoaded = prefix;
    }
    const missing = [...state.docs.values()]
      .filter((docId) => !this.vectors.has(docId))
      .map((docId) => ({ docId, doc: this.docs.get(docId) as IndexedDoc }));
    if (missing.length > 0) await this.embedMissing(id, state, space, read, missing);
    state.vectorsComplete = true;
  }

  private async embedMissing(
    id: string,
    state: SessionState,
    space: VectorSpace,
    read: readonly Message[],
    missing: Array<{ docId: number; doc: IndexedDoc }>,
  ): Promise<void> {
    missing.sort((a, b) => a.doc.seq - b.doc.seq);
    const texts = new Map(read.map((message) => [message.seq ?? 0, message]));
    if (missing.some(({ doc }) => !texts.has(doc.seq))) {
      for (const message of (await readAfter(this.store, id, (missing[0] as { doc: IndexedDoc }).doc.seq - 1)) ?? [])
        texts.set(message.seq ?? 0, message);
    }
    const embedded: Array<{ seq: number; id: string; vector: Float32Array }> = [];
    const ready = missing.filter(({ doc }) => texts.get(doc.seq)?.id === doc.messageId);
    for (let start = 0; start < ready.length; start += EMBED_BATCH) {
      const batch = ready.slice(start, start + EMBED_BATCH);
      const vectors = await embedTexts(
        space.embed,
        batch.map(({ doc }) => Message.text(texts.get(doc.seq) as Message)),
        space.dimensions,
      );
      batch.forEach(({ docId, doc }, index) => {
        const vector = vectors[index] as Float32Array;
        // The session may have been dropped while `embed` ran: its documents take no vector then.
        if (this.docs.get(docId) === doc) this.vectors.set(docId, vector);
        embedded.push({ seq: doc.seq, id: doc.messageId, vector });
      });
    }
    if (embedded.length > 0)
      await this.storeVectors(
        id,
        encodeChunks(chunkPrefix(space.embedId, space.dimensions), space.dimensions, embedded),
      );
    // A message whose text could not be read again (the session changed meanwhile) is embedded at the next sync.
    if (ready.length < missing.length) state.version = -1;
  }

  /** Writes (or deletes) stored chunks of session `id`; a session deleted meanwhile needs none. */
  private async storeVectors(id: string, entries: Readonly<Record<string, JsonValue | undefined>>): Promise<void> {
    try {
      await this.store.values.set({ scope: 'session', sessionId: id }, entries);
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'NOT_FOUND')) throw error;
    }
  }
}
