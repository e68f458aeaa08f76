/**
 * One LangGraph thread read into a session item: the newest root checkpoint's messages with the
 * pending writes applied, decoded, validated and paired, the session dated by its checkpoints and
 * carrying the thread's interrupts and whatever no message could hold.
 * @module
 */
import { ChatstateError, errorMessage } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { materialize, sessionIdOr, sessionItem, type Draft } from '../build.js';
import { uniqueMessageIds } from '../import-ids.js';
import { isObject } from '../json-text.js';
import { tableNames, type SourceDatabase } from '../sqlite-source.js';
import type { ImportItem, ImportRepair } from '../types.js';
import {
  ThreadProblem,
  checkSerializer,
  firstCheckpointTs,
  firstSeen,
  isoOf,
  listOf,
  pendingWrites,
  readJsonColumn,
  withPending,
  type CheckpointRow,
} from './checkpoints.js';
import { FunctionCalls } from './tool-calls.js';
import { decodeMessage, fallbackMessageId, type MessagePlace } from './messages.js';

const SYSTEM = 'langgraph';

/** One thread read into a session, plus the problems of its damaged pending writes. */
export function readThread(
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

  const firstTs = firstCheckpointTs(db, threadId);
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

/** A problem item for a thread that could not be read: its code kept, the thread named. */
export function problemOf(error: unknown, path: string, record: string): ImportItem {
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
