/**
 * The part of a session's history the page holds, by position: messages are fetched in chunks by
 * sequence range as the list scrolls to them, so opening a 100k-message session fetches what a
 * short one does. A position maps to a sequence number through the timeline's runs of sequence
 * numbers; before they arrive, the chunk right before a loaded one is fetched as "the last N
 * before its first seq", which needs no map.
 */
import type { Message } from './types.js';

/** Messages per chunk. */
export const CHUNK = 100;

/** The seq range of the API that gives one chunk. */
export interface ChunkRange {
  readonly afterSeq?: number;
  readonly beforeSeq?: number;
  readonly limit: number;
}

/** The held part of a history. */
export class MessageWindow {
  private messages = new Map<number, Message>();
  private tokens = new Map<number, number>();
  private byToolCall = new Map<string, number>();
  private results = new Map<string, Message>();
  private runs: Array<[number, number]> | undefined;
  private runStarts: number[] = [];
  private loading = new Set<number>();
  count: number;

  /** A history of `count` messages, none held yet. */
  constructor(count: number) {
    this.count = count;
  }

  /** The message at `index`, when held. */
  get(index: number): Message | undefined {
    return this.messages.get(index);
  }

  /** The tokens of the message at `index`, when the server told them. */
  tokensAt(index: number): number | undefined {
    return this.tokens.get(index);
  }

  /** The position of the assistant message that made tool call `id`, when held. */
  callIndex(id: string): number | undefined {
    return this.byToolCall.get(id);
  }

  /** The result of tool call `id`, when held. */
  resultOf(id: string): Message | undefined {
    return this.results.get(id);
  }

  /** The position of the message with sequence number `seq`, when the map (or a held message) tells. */
  indexOfSeq(seq: number): number | undefined {
    for (const [index, message] of this.messages) if (message.seq === seq) return index;
    if (this.runs === undefined) return undefined;
    for (let r = 0; r < this.runs.length; r++) {
      const [first, count] = this.runs[r] as [number, number];
      if (seq >= first && seq < first + count) return (this.runStarts[r] as number) + (seq - first);
    }
    return undefined;
  }

  /** Sets the map from positions to sequence numbers (`[firstSeq, count]` runs, oldest first). */
  setRuns(runs: ReadonlyArray<readonly [number, number]>): void {
    this.runs = runs.map(([seq, count]) => [seq, count]);
    this.runStarts = [];
    let start = 0;
    for (const [, count] of this.runs) {
      this.runStarts.push(start);
      start += count;
    }
  }

  /** The sequence number of the message at `index`, when known. */
  seqAt(index: number): number | undefined {
    const held = this.messages.get(index)?.seq;
    if (held !== undefined) return held;
    if (this.runs === undefined) return undefined;
    let low = 0;
    let high = this.runStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((this.runStarts[mid] as number) <= index) low = mid;
      else high = mid - 1;
    }
    const run = this.runs[low];
    const start = this.runStarts[low];
    if (run === undefined || start === undefined || index - start >= run[1]) return undefined;
    return run[0] + (index - start);
  }

  /** Holds `messages` from position `start` on, with the tokens of each (`tokenCounts[i]` counts `messages[i]`). */
  put(start: number, messages: readonly Message[], tokenCounts?: readonly number[]): void {
    messages.forEach((message, i) => {
      this.messages.set(start + i, message);
      const tokens = tokenCounts?.[i];
      if (tokens !== undefined) this.tokens.set(start + i, tokens);
      for (const call of message.toolCalls ?? []) this.byToolCall.set(call.id, start + i);
      if (message.toolCallId !== undefined) this.results.set(message.toolCallId, message);
    });
  }

  /** Adds messages appended after the newest held one (an event of the live stream); returns how many were new. */
  append(messages: readonly Message[], tokenCounts?: readonly number[]): number {
    const newest = this.seqAt(this.count - 1) ?? 0;
    const isFresh = (message: Message): boolean => message.seq > newest;
    const fresh = messages.filter(isFresh);
    if (fresh.length === 0) return 0;
    const start = this.count;
    this.count += fresh.length;
    this.put(
      start,
      fresh,
      tokenCounts?.filter((_, i) => isFresh(messages[i] as Message)),
    );
    if (this.runs !== undefined) {
      fresh.forEach((message, i) => {
        const tail = this.runs?.at(-1);
        if (tail !== undefined && tail[0] + tail[1] === message.seq) tail[1] += 1;
        else {
          this.runs?.push([message.seq, 1]);
          this.runStarts.push(start + i);
        }
      });
    }
    return fresh.length;
  }

  /** The range of the API that gives chunk `chunk`, when it can be named now. */
  rangeOf(chunk: number): ChunkRange | undefined {
    const start = chunk * CHUNK;
    const end = Math.min(this.count, start + CHUNK) - 1;
    if (start > end) return undefined;
    const limit = end - start + 1;
    // The newest chunk is the tail: no seq is needed.
    if (end === this.count - 1) return { limit };
    const first = this.seqAt(start);
    const after = this.seqAt(end + 1);
    if (after === undefined) return undefined;
    return first === undefined ? { beforeSeq: after, limit } : { afterSeq: first - 1, beforeSeq: after, limit };
  }

  /** Chunks of positions `from`…`to` not held and not being fetched. */
  missing(from: number, to: number): number[] {
    const chunks: number[] = [];
    for (let chunk = Math.floor(Math.max(0, from) / CHUNK); chunk * CHUNK <= Math.min(to, this.count - 1); chunk++) {
      if (this.loading.has(chunk)) continue;
      const start = chunk * CHUNK;
      const end = Math.min(this.count, start + CHUNK) - 1;
      if (!this.messages.has(start) || !this.messages.has(end)) chunks.push(chunk);
    }
    return chunks;
  }

  /** Marks chunk `chunk` as being fetched (or not). */
  setLoading(chunk: number, loading: boolean): void {
    if (loading) this.loading.add(chunk);
    else this.loading.delete(chunk);
  }
}
