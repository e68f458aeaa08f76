/**
 * What a LangGraph `SqliteSaver` database holds for one thread, read with SQL: the newest root
 * checkpoint's message list (or the input of a run that never started), when each message first
 * appeared, and the writes pending on that checkpoint. Rows are read as bytes or text (the saver
 * writes BLOBs; other writers TEXT) and parsed as JSON, never revived.
 * @module
 */
import type { ErrorCode } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import { isObject, parseJson } from '../json-text.js';
import { columnText, type SourceDatabase } from '../sqlite-source.js';
import { readTimestamp } from '../timestamps.js';
import { serializedMessageId } from './forms.js';

/** The columns of a checkpoint row the importer reads. */
export interface CheckpointRow {
  readonly checkpoint_id: string;
  readonly type: unknown;
  readonly checkpoint: unknown;
}

interface WriteRow {
  readonly task_id: string;
  readonly idx: number;
  readonly channel: string;
  readonly type: unknown;
  readonly value: unknown;
}

/** A part of the thread refused: its code and why. */
export class ThreadProblem extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Refuses a row another serializer wrote (`msgpack` from Python savers) with UNSUPPORTED. */
export function checkSerializer(type: unknown, what: string): void {
  if (type === null || type === undefined || type === 'json') return;
  const why =
    type === 'msgpack'
      ? 'it was written by a Python saver (msgpack), which chatstate cannot read'
      : `its serializer type ${JSON.stringify(type)} is not JSON`;
  throw new ThreadProblem('UNSUPPORTED', `${what}: ${why}`);
}

/** A JSON column parsed; `CORRUPT` when it is not UTF-8 JSON. */
export function readJsonColumn(value: unknown, what: string): unknown {
  const text = columnText(value);
  if (text === undefined) throw new ThreadProblem('CORRUPT', `${what} is not UTF-8 text`);
  const parsed = parseJson(text);
  if (!parsed.ok) throw new ThreadProblem('CORRUPT', `${what} is damaged: ${parsed.problem.message}`);
  return parsed.value;
}

/** A checkpoint `ts` (ISO, UTC) checked and normalized; undefined when it is not one. */
export function isoOf(ts: unknown): string | undefined {
  return typeof ts === 'string' ? readTimestamp(ts, 'UTC')?.iso : undefined;
}

// `$.channel_values."<channel>"`: the channel named as a JSON path key, whatever its characters.
function channelPath(channel: string): string {
  return `$.channel_values.${JSON.stringify(channel)}`;
}

/**
 * When each message first appeared: the `ts` of the first root checkpoint whose list holds its id.
 * LangGraph keeps no per-message time, and a checkpoint holds the whole list, so SQLite's JSON
 * functions walk them without loading each into JavaScript. Damaged checkpoints are left out.
 */
export function firstSeen(db: SourceDatabase, threadId: string, channel: string): Map<string, string> {
  const idOf = (path: string) =>
    `CASE WHEN json_type(m.value, '${path}') = 'text' THEN json_extract(m.value, '${path}') END`;
  const rows = db
    .prepare(
      `SELECT id, ts, MIN(checkpoint_id) AS first FROM (
         SELECT COALESCE(${idOf('$.kwargs.id')}, ${idOf('$.data.id')}, ${idOf('$.id')}) AS id,
                json_extract(c.body, '$.ts') AS ts, c.checkpoint_id AS checkpoint_id
         FROM (SELECT checkpoint_id, CAST(checkpoint AS TEXT) AS body FROM checkpoints
               WHERE thread_id = ? AND checkpoint_ns = '' AND (type IS NULL OR type = 'json')
                 AND json_valid(CAST(checkpoint AS TEXT))) AS c,
              json_each(c.body, ?) AS m
       ) WHERE id IS NOT NULL GROUP BY id`,
    )
    .all(threadId, channelPath(channel)) as { id: string; ts: unknown }[];
  const seen = new Map<string, string>();
  for (const row of rows) {
    const iso = isoOf(row.ts);
    if (iso !== undefined) seen.set(row.id, iso);
  }
  return seen;
}

/** The `ts` of the thread's first root checkpoint that can be read: when the conversation began. */
export function firstCheckpointTs(db: SourceDatabase, threadId: string): string | undefined {
  const row = db
    .prepare(
      `SELECT json_extract(CAST(checkpoint AS TEXT), '$.ts') AS ts FROM checkpoints
       WHERE thread_id = ? AND checkpoint_ns = '' AND (type IS NULL OR type = 'json')
         AND json_valid(CAST(checkpoint AS TEXT))
       ORDER BY checkpoint_id ASC LIMIT 1`,
    )
    .get(threadId) as { ts: unknown } | undefined;
  return isoOf(row?.ts);
}

/** The conversation's messages in the newest checkpoint, and whether they are the input of a run that never started. */
export function listOf(
  checkpoint: Record<string, unknown>,
  channel: string,
  what: string,
): { values: unknown[]; input: boolean } {
  const channels = checkpoint['channel_values'];
  if (!isObject(channels)) throw new ThreadProblem('CORRUPT', `${what} has no channel_values object`);
  const list = channels[channel];
  if (list !== undefined && !Array.isArray(list))
    throw new ThreadProblem(
      'INVALID_ARGUMENT',
      `${what}: channel ${JSON.stringify(channel)} is not a list of messages`,
    );
  if (Array.isArray(list) && list.length > 0) return { values: list, input: false };
  // The input checkpoint (step -1): the run's input waits in `__start__` until the first step.
  const start = channels['__start__'];
  const input = isObject(start) ? start[channel] : undefined;
  if (input !== undefined) return { values: Array.isArray(input) ? input : [input], input: true };
  if (list === undefined)
    throw new ThreadProblem(
      'NOT_FOUND',
      `${what} has no ${JSON.stringify(channel)} channel (a custom state names its own: set the channel option)`,
    );
  return { values: [], input: false };
}

/** A LangGraph thread's pending writes on its newest checkpoint: messages to add, interrupts, and damaged rows. */
export interface PendingWrites {
  readonly messages: unknown[];
  readonly interrupts: JsonValue[];
  readonly damaged: string[];
}

/** The pending writes of the thread's newest root checkpoint on the conversation channel, and its interrupts. */
export function pendingWrites(
  db: SourceDatabase,
  threadId: string,
  checkpointId: string,
  channel: string,
): PendingWrites {
  const found: PendingWrites = { messages: [], interrupts: [], damaged: [] };
  const rows = db
    .prepare(
      `SELECT task_id, idx, channel, type, value FROM writes
       WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ? AND channel IN (?, '__interrupt__')
       ORDER BY task_id, idx`,
    )
    .all(threadId, checkpointId, channel) as WriteRow[];
  for (const row of rows) {
    const what = `the pending write ${row.task_id}/${row.idx} (${row.channel})`;
    try {
      checkSerializer(row.type, what);
      const value = readJsonColumn(row.value, what);
      if (row.channel === channel) found.messages.push(...(Array.isArray(value) ? (value as unknown[]) : [value]));
      else found.interrupts.push(value as JsonValue);
    } catch (error) {
      if (!(error instanceof ThreadProblem)) throw error;
      found.damaged.push(error.message);
    }
  }
  return found;
}

/** The newest list with the pending messages applied as the `messages` reducer does: a known id replaces, a new one appends. */
export function withPending(
  values: readonly unknown[],
  pending: readonly unknown[],
): { value: unknown; pending: boolean }[] {
  const merged = values.map((value) => ({ value, pending: false }));
  const index = new Map<string, number>();
  merged.forEach((entry, at) => {
    const id = serializedMessageId(entry.value);
    if (id !== undefined) index.set(id, at);
  });
  for (const value of pending) {
    const id = serializedMessageId(value);
    const at = id === undefined ? undefined : index.get(id);
    if (at === undefined) {
      if (id !== undefined) index.set(id, merged.length);
      merged.push({ value, pending: true });
    } else merged[at] = { value, pending: true };
  }
  return merged;
}
