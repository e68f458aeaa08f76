/**
 * Where a thread's checkpoint records are and how they are found: each rides on a stored message
 * (`metadata.checkpoint`) — a checkpoint-log entry, or the last conversation message the put
 * appended — and the newest ones are remembered. Lookups by id binary-search both sessions.
 * @module
 */
import { ChatstateError } from '../../errors.js';
import { BoundedMap } from '../../internal/bounded-map.js';
import type { Message } from '../../message/message.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { withTail } from './ranges.js';
import { readRecord, type CheckpointRecord, type MessageRef } from './records.js';
import type { ThreadSessions } from './thread-ids.js';

/** Metadata key of the checkpoint record a log entry or a conversation message carries. */
export const RECORD_KEY = 'checkpoint';
/** Stored messages read at a time when walking a session backwards. */
const PAGE = 64;
/** Messages read around a binary search's probe to find one that carries a record. */
const PROBE = 16;

/** The records of a saver's threads: remembered, found by id, listed newest first. */
export class RecordIndex {
  private readonly records: BoundedMap<string, CheckpointRecord>;

  constructor(
    private readonly store: SessionStore,
    size: number,
  ) {
    this.records = new BoundedMap({ max: size });
  }

  /** Forgets the records of sessions whose ids start with `prefix`. */
  forgetPrefix(prefix: string): void {
    this.records.deleteWhere((key) => key.startsWith(prefix));
  }

  /** Remembers `record` (just written or read) and returns it. */
  remember(sessions: ThreadSessions, record: CheckpointRecord): CheckpointRecord {
    this.records.set(`${sessions.log}\n${record.id}`, record);
    return record;
  }

  /**
   * The record a stored message carries (`metadata.checkpoint`): a log entry, or the last message
   * a put appended to the conversation (its message list then ends with the `tail` messages up to
   * that one, resolved here); `undefined` for any other message.
   */
  recordOf(sessions: ThreadSessions, entry: Message): CheckpointRecord | undefined {
    const value = entry.metadata[RECORD_KEY];
    if (value === undefined) return undefined;
    const record = readRecord(value, `at ${entry.seq ?? '?'} of ${sessions.log}`) as CheckpointRecord;
    let resolved = record;
    if (Object.values(record.messages).some((ref) => ref.tail !== undefined)) {
      const seq = entry.seq ?? 0;
      const messages: Record<string, MessageRef> = {};
      for (const [channel, ref] of Object.entries(record.messages))
        messages[channel] =
          ref.tail === undefined ? ref : { v: ref.v, ranges: withTail(ref.ranges, seq - ref.tail + 1, seq) };
      resolved = { ...record, messages };
    }
    return this.remember(sessions, resolved);
  }

  private async lastSeq(session: string): Promise<number> {
    try {
      const [last] = await this.store.readMessages(session, { limit: 1 });
      return last?.seq ?? 0;
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return 0;
      throw error;
    }
  }

  /** The first record at or after `seq` within a few messages of `session`. */
  private async recordNear(
    sessions: ThreadSessions,
    session: string,
    seq: number,
  ): Promise<CheckpointRecord | undefined> {
    const window = await this.store.readMessages(session, { afterSeq: seq - 1, beforeSeq: seq + PROBE });
    for (const entry of window) {
      const record = this.recordOf(sessions, entry);
      if (record !== undefined) return record;
    }
    return undefined;
  }

  /**
   * The record of `checkpointId`: remembered; else found by binary search on the id in the log,
   * then in the conversation (LangGraph's ids are uuid6, ordered by time, so both are sorted by
   * id); else by a scan (ids not in put order, or one that is not there).
   */
  async find(sessions: ThreadSessions, checkpointId: string): Promise<CheckpointRecord | undefined> {
    const cached = this.records.get(`${sessions.log}\n${checkpointId}`);
    if (cached !== undefined) return cached;
    for (const session of [sessions.log, sessions.conversation]) {
      let low = 1;
      let high = await this.lastSeq(session);
      while (low <= high) {
        const middle = Math.floor((low + high) / 2);
        const record = await this.recordNear(sessions, session, middle);
        if (record === undefined) break;
        if (record.id === checkpointId) return record;
        if (record.id < checkpointId) low = middle + 1;
        else high = middle - 1;
      }
    }
    for await (const record of this.newestFirst(sessions)) if (record.id === checkpointId) return record;
    return undefined;
  }

  /** The records one session carries, newest first. */
  private async *recordsIn(sessions: ThreadSessions, session: string): AsyncGenerator<CheckpointRecord> {
    let beforeSeq: number | undefined;
    for (;;) {
      let page: Message[];
      try {
        page = await this.store.readMessages(session, {
          limit: PAGE,
          ...(beforeSeq === undefined ? {} : { beforeSeq }),
        });
      } catch (error) {
        if (ChatstateError.hasCode(error, 'NOT_FOUND')) return;
        throw error;
      }
      for (let index = page.length - 1; index >= 0; index--) {
        const record = this.recordOf(sessions, page[index] as Message);
        if (record !== undefined) yield record;
      }
      if (page.length < PAGE) return;
      beforeSeq = page[0]?.seq;
    }
  }

  /** Every record of a thread's namespace, newest (greatest id) first: the log's and the conversation's, merged. */
  async *newestFirst(sessions: ThreadSessions): AsyncGenerator<CheckpointRecord> {
    const sources = [this.recordsIn(sessions, sessions.log), this.recordsIn(sessions, sessions.conversation)];
    const heads = await Promise.all(sources.map((source) => source.next()));
    for (;;) {
      let pick = -1;
      heads.forEach((head, index) => {
        if (head.done === true) return;
        const best = pick < 0 ? undefined : (heads[pick] as IteratorYieldResult<CheckpointRecord>);
        if (best === undefined || head.value.id > best.value.id) pick = index;
      });
      if (pick < 0) return;
      const chosen = heads[pick] as IteratorYieldResult<CheckpointRecord>;
      yield chosen.value;
      heads[pick] = await (sources[pick] as AsyncGenerator<CheckpointRecord>).next();
    }
  }

  /** The newest record of a thread's namespace (greatest id), or `undefined` when it has none. */
  async latest(sessions: ThreadSessions): Promise<CheckpointRecord | undefined> {
    for await (const record of this.newestFirst(sessions)) return record;
    return undefined;
  }
}
