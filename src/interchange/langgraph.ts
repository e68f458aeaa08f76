/**
 * The LangGraph importer (`import --from langgraph`): each thread of a LangGraph.js `SqliteSaver`
 * database (`@langchain/langgraph-checkpoint-sqlite`) as one session, from the thread's newest
 * root checkpoint. The database is opened read-only through SQLite, so what its `-wal` file holds
 * is read too. Subgraph namespaces are partial views and are not read; the writes pending on the
 * newest checkpoint (a step that finished after it, or an interrupt) are added and flagged.
 * @module
 */
import { ChatstateError, InvalidInputError, errorMessage, type ErrorCode } from '../errors.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import { materialize, sessionIdOr, sessionItem, type Draft } from './build.js';
import { uniqueMessageIds } from './import-ids.js';
import { isObject, parseJson } from './json-text.js';
import {
  FunctionCalls,
  decodeMessage,
  fallbackMessageId,
  serializedMessageId,
  type MessagePlace,
} from './langgraph-messages.js';
import { columnText, openSourceDatabase, sourceError, tableNames, type SourceDatabase } from './sqlite-source.js';
import { readTimestamp } from './timestamps.js';
import type { ImportItem, ImportOptions, ImportRepair, Importer } from './types.js';

const SYSTEM = 'langgraph';

/** Options of `langgraphImporter`. */
export interface LanggraphImporterOptions {
  /** The state channel holding the conversation (`MessagesAnnotation` names it `messages`). @default 'messages' */
  readonly channel?: string;
}

interface CheckpointRow {
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
class ThreadProblem extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function checkSerializer(type: unknown, what: string): void {
  if (type === null || type === undefined || type === 'json') return;
  const why =
    type === 'msgpack'
      ? 'it was written by a Python saver (msgpack), which chatstate cannot read'
      : `its serializer type ${JSON.stringify(type)} is not JSON`;
  throw new ThreadProblem('UNSUPPORTED', `${what}: ${why}`);
}

/** A JSON column parsed; `CORRUPT` when it is not UTF-8 JSON. */
function readJsonColumn(value: unknown, what: string): unknown {
  const text = columnText(value);
  if (text === undefined) throw new ThreadProblem('CORRUPT', `${what} is not UTF-8 text`);
  const parsed = parseJson(text);
  if (!parsed.ok) throw new ThreadProblem('CORRUPT', `${what} is damaged: ${parsed.problem.message}`);
  return parsed.value;
}

function isoOf(ts: unknown): string | undefined {
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
function firstSeen(db: SourceDatabase, threadId: string, channel: string): Map<string, string> {
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

/** The conversation's messages in the newest checkpoint, and whether they are the input of a run that never started. */
function listOf(
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
interface PendingWrites {
  readonly messages: unknown[];
  readonly interrupts: JsonValue[];
  readonly damaged: string[];
}

function pendingWrites(db: SourceDatabase, threadId: string, checkpointId: string, channel: string): PendingWrites {
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
function withPending(values: readonly unknown[], pending: readonly unknown[]): { value: unknown; pending: boolean }[] {
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

/** One thread read into a session, plus the problems of its damaged pending writes. */
function readThread(
  db: SourceDatabase,
  path: string,
  threadId: string,
  channel: string,
): { session: ImportItem; problems: ImportItem[] } {
  const row = db
    .prepare(
      `SELECT checkpoint_id, type, checkpoint FROM checkpoints
       WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
    )
    .get(threadId) as CheckpointRow | undefined;
  if (row === undefined)
    throw new ThreadProblem(
      'NOT_FOUND',
      `thread ${JSON.stringify(threadId)} has no root checkpoint (only subgraph ones)`,
    );
  const what = `checkpoint ${row.checkpoint_id} of thread ${JSON.stringify(threadId)}`;
  checkSerializer(row.type, what);
  const checkpoint = readJsonColumn(row.checkpoint, what);
  if (!isObject(checkpoint)) throw new ThreadProblem('CORRUPT', `${what} is not a JSON object`);
  const updatedAt = isoOf(checkpoint['ts']);
  if (updatedAt === undefined) throw new ThreadProblem('CORRUPT', `${what} has no valid ts`);
  const { values, input } = listOf(checkpoint, channel, what);
  const seen = firstSeen(db, threadId, channel);
  const hasWrites = tableNames(db).has('writes');
  const writes = hasWrites
    ? pendingWrites(db, threadId, row.checkpoint_id, channel)
    : { messages: [], interrupts: [], damaged: [] };
  const problems: ImportItem[] = writes.damaged.map((message) => ({
    kind: 'problem',
    code: 'CORRUPT',
    message,
    source: { path, record: threadId },
  }));

  const sessionId = sessionIdOr(threadId, threadId).id;
  const functionCalls = new FunctionCalls();
  const drafts: Draft[] = [];
  const repairs: ImportRepair[] = [];
  const unplaced: JsonValue[] = [];
  let pendingCount = 0;
  withPending(values, writes.messages).forEach((entry, index) => {
    if (entry.pending) pendingCount++;
    const flags: Record<string, JsonValue> = {};
    if (entry.pending) flags['pending'] = true;
    if (input) flags['input'] = true;
    const place: MessagePlace = {
      where: `thread ${JSON.stringify(threadId)}, ${channel}[${index}]${entry.pending ? ' (pending write)' : ''}`,
      fallbackId: fallbackMessageId(sessionId, index, entry.pending),
      timestampOf: (id) => (id === undefined ? undefined : seen.get(id)) ?? updatedAt,
      flags,
    };
    const result = decodeMessage(entry.value, place, functionCalls);
    repairs.push(...result.repairs);
    if (result.draft !== undefined) drafts.push(result.draft);
    if (result.unplaced !== undefined) unplaced.push(result.unplaced);
  });
  const built = materialize(drafts, SYSTEM, repairs);
  unplaced.push(...built.skipped);
  const unique = uniqueMessageIds(built.messages);
  repairs.push(...unique.repairs);

  const firstTs = [...seen.values()].sort()[0];
  const imported: Record<string, JsonValue> = {
    from: SYSTEM,
    threadId,
    checkpointId: row.checkpoint_id,
    channel,
    messageTimestamps: 'the ts of the first checkpoint holding each message',
  };
  if (input) imported['input'] = 'the newest checkpoint is the input of a run that never started';
  if (pendingCount > 0) imported['pendingWrites'] = pendingCount;
  const langgraph: Record<string, JsonValue> = {};
  if (writes.interrupts.length > 0) langgraph['interrupts'] = writes.interrupts;
  if (unplaced.length > 0) langgraph['unplaced'] = unplaced;
  const metadata: JsonObject = { imported, ...(Object.keys(langgraph).length > 0 ? { langgraph } : {}) };
  const fields = {
    id: sessionId,
    createdAt: firstTs !== undefined && firstTs < updatedAt ? firstTs : updatedAt,
    updatedAt,
    metadata,
  };
  return { session: sessionItem(fields, unique.messages, repairs, { path, record: threadId }), problems };
}

function problemOf(error: unknown, path: string, record: string): ImportItem {
  if (error instanceof ThreadProblem)
    return { kind: 'problem', code: error.code, message: error.message, source: { path, record } };
  if (ChatstateError.isInstance(error))
    return {
      kind: 'problem',
      code: error.code,
      message: `thread ${JSON.stringify(record)}: ${error.message}`,
      source: { path, record },
    };
  return {
    kind: 'problem',
    code: 'CORRUPT',
    message: `thread ${JSON.stringify(record)} could not be read: ${errorMessage(error)}`,
    source: { path, record },
  };
}

/** The LangGraph importer; `channel` names the state key holding the messages. */
export function langgraphImporter(options: LanggraphImporterOptions = {}): Importer {
  const channel = options.channel ?? 'messages';
  if (typeof channel !== 'string' || channel.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${SYSTEM}: channel must be a non-empty string`);
  return {
    system: SYSTEM,
    describe: 'a LangGraph.js SqliteSaver database file (each thread becomes a session)',
    async *read(path: string, readOptions: ImportOptions = {}): AsyncGenerator<ImportItem> {
      const db = await openSourceDatabase(path, SYSTEM);
      try {
        let threads: string[];
        try {
          if (!tableNames(db).has('checkpoints'))
            throw new InvalidInputError(
              'INVALID_ARGUMENT',
              `${SYSTEM}: ${path} is not a LangGraph SqliteSaver database (it has no checkpoints table)`,
              { details: { path } },
            );
          threads = (
            db.prepare('SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id').all() as {
              thread_id: unknown;
            }[]
          ).map((row) => String(row.thread_id));
        } catch (error) {
          throw sourceError(error, SYSTEM, path);
        }
        for (const threadId of threads) {
          if (readOptions.signal?.aborted === true) return;
          let read: ReturnType<typeof readThread>;
          try {
            read = readThread(db, path, threadId, channel);
          } catch (error) {
            yield problemOf(error, path, threadId);
            continue;
          }
          yield* read.problems;
          yield read.session;
        }
      } finally {
        db.close();
      }
    },
  };
}
