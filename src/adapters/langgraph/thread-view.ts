/**
 * A LangGraph thread as its graph sees it: the messages of its current checkpoint (what
 * `getState` holds), read from the conversation by sequence number, with what a viewer offers
 * beside them: the checkpoint's ancestors, the thread's other checkpoints and branches, and the
 * conversation's messages this checkpoint does not hold (replaced by an edit, or on another
 * branch). The conversation itself is an append log: after forks and edits it holds more than
 * any one checkpoint. Reads the store only: LangGraph is not loaded (the CLI and server use this).
 * @module
 */
import { ChatstateError, DataError, InvalidInputError, NotFoundError } from '../../errors.js';
import { isObject } from '../../interchange/json-text.js';
import { toLangChainSerialized } from '../../interchange/langgraph/messages.js';
import type { Message } from '../../message/message.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { listCheckpoints, type CheckpointSummary } from './checkpoint-list.js';
import { readList } from './message-list.js';
import { RecordIndex } from './record-index.js';
import type { CheckpointRecord } from './records.js';
import { countOf, gapsOf, lastOf } from './ranges.js';
import { threadOf, type ThreadOf } from './thread-of.js';
import { checkKey } from './thread-ids.js';

export type { CheckpointSummary } from './checkpoint-list.js';

/** The channel shown when a checkpoint has it (the saver's default messages channel). */
const DEFAULT_CHANNEL = 'messages';
/** Checkpoints listed by default. */
const DEFAULT_CHECKPOINTS = 20;
/** Messages the checkpoint does not hold, listed by default (the newest). */
const DEFAULT_ELSEWHERE = 50;
/** Most ancestors of the checkpoint shown that are followed. */
const MAX_PATH = 200;
/** Records remembered while one view is read. */
const INDEX_SIZE = 256;

/** Options of `readThreadView`. */
export interface ThreadViewOptions {
  /** Show this checkpoint instead of the thread's newest. */
  readonly checkpointId?: string;
  /** Only the last `tail` messages of the checkpoint's list. @default all */
  readonly tail?: number;
  /** Checkpoints listed, newest first. @default 20 */
  readonly checkpoints?: number;
  /** Messages the checkpoint does not hold, listed (the newest of them). @default 50 */
  readonly elsewhere?: number;
}

/** A conversation message the checkpoint shown does not hold. */
export interface ElsewhereMessage {
  readonly message: Message;
  /**
   * `replaced`: the checkpoint holds another message with its LangChain id (an edit, or the reducer
   * replaced it); `copy`: it holds the same message stored again (a list stored anew whole);
   * `other`: on another branch, or removed.
   */
  readonly kind: 'replaced' | 'copy' | 'other';
  /** The sequence number of the message that holds its LangChain id now (`replaced`, `copy`). */
  readonly now?: number;
}

/** A LangGraph thread at one checkpoint. */
export interface ThreadView {
  readonly threadId: string;
  /** The checkpoint namespace (`''`: the root graph). */
  readonly namespace: string;
  /** The conversation session (the append log of every message the thread ever had). */
  readonly conversation: string;
  /** The checkpoint-log session. */
  readonly log: string;
  /** The channel whose messages are shown (`messages` unless the thread keeps others only). */
  readonly channel?: string;
  /** The checkpoint shown; `undefined` before the thread's first checkpoint. */
  readonly checkpoint?: CheckpointSummary;
  /** The thread's newest checkpoint (the one `getState` reads without a `checkpoint_id`). */
  readonly latest?: string;
  /** The ancestors of the checkpoint shown, its parent first. */
  readonly path: readonly string[];
  /** `path` reaches the thread's first checkpoint. */
  readonly pathComplete: boolean;
  /** The messages of the checkpoint's channel, in order (the last `tail` of them when asked). */
  readonly messages: readonly Message[];
  /** Messages of the checkpoint's channel, all of them (`messages` may be its tail). */
  readonly messageCount: number;
  /** Messages the conversation holds: the checkpoint's, and all the others. */
  readonly logCount: number;
  /** The thread's checkpoints, newest first (bounded). */
  readonly checkpoints: readonly CheckpointSummary[];
  /** More checkpoints are older than those listed. */
  readonly moreCheckpoints: boolean;
  /** The conversation's messages the checkpoint does not hold. */
  readonly elsewhere: { readonly count: number; readonly messages: readonly ElsewhereMessage[] };
}

function positive(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `Thread view: ${what} must be a non-negative integer`);
  return value;
}

/** The LangChain id a stored message gives back to LangGraph (`undefined` when it has none). */
function langChainIdOf(message: Message): string | undefined {
  const serialized = toLangChainSerialized(message);
  const kwargs = isObject(serialized) ? serialized['kwargs'] : undefined;
  const id = isObject(kwargs) ? kwargs['id'] : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** The newest `count` messages of `conversation` with sequence numbers in `gaps` (increasing), oldest first. */
async function newestIn(
  store: SessionStore,
  conversation: string,
  gaps: ReadonlyArray<readonly [number, number]>,
  count: number,
): Promise<Message[]> {
  const found: Message[] = [];
  for (let index = gaps.length - 1; index >= 0 && found.length < count; index--) {
    const [first, last] = gaps[index] as readonly [number, number];
    const part = await store.readMessages(conversation, {
      afterSeq: first - 1,
      beforeSeq: last + 1,
      limit: count - found.length,
    });
    found.unshift(...part);
  }
  return found;
}

/** What each message the checkpoint does not hold is, against the messages it holds. */
function classify(others: readonly Message[], held: readonly Message[]): ElsewhereMessage[] {
  const byLangChainId = new Map<string, Message>();
  for (const message of held) {
    const id = langChainIdOf(message);
    if (id !== undefined) byLangChainId.set(id, message);
  }
  return others.map((message): ElsewhereMessage => {
    const id = langChainIdOf(message);
    const now = id === undefined ? undefined : byLangChainId.get(id);
    if (now === undefined) return { message, kind: 'other' };
    const same = JSON.stringify(toLangChainSerialized(now)) === JSON.stringify(toLangChainSerialized(message));
    return { message, kind: same ? 'copy' : 'replaced', now: now.seq ?? 0 };
  });
}

/** The record a view shows: the one asked for, else the newest; `NOT_FOUND` for a checkpoint the thread does not have. */
async function recordToShow(
  index: RecordIndex,
  thread: ThreadOf,
  newest: readonly CheckpointRecord[],
  checkpointId: string | undefined,
): Promise<CheckpointRecord | undefined> {
  if (checkpointId === undefined) return newest[0];
  const id = checkKey(checkpointId, 'checkpoint_id');
  const record = newest.find((candidate) => candidate.id === id) ?? (await index.find(thread, id));
  if (record === undefined)
    throw new NotFoundError(`No checkpoint ${id} in LangGraph thread ${thread.threadId} (${thread.conversation})`, {
      details: { sessionId: thread.conversation, checkpointId: id },
    });
  return record;
}

/**
 * The LangGraph thread session `id` belongs to (its conversation or its checkpoint log) at its
 * newest checkpoint, or at `options.checkpointId`; `undefined` when `id` is no LangGraph thread's.
 * `NOT_FOUND` when there is no session `id`; `CORRUPT`, naming the session, when a record or the
 * messages it names are damaged or gone.
 */
export async function readThreadView(
  store: SessionStore,
  id: string,
  options: ThreadViewOptions = {},
): Promise<ThreadView | undefined> {
  const checkpointLimit = positive(options.checkpoints, DEFAULT_CHECKPOINTS, 'checkpoints');
  const elsewhereLimit = positive(options.elsewhere, DEFAULT_ELSEWHERE, 'elsewhere');
  const tail = options.tail === undefined ? undefined : positive(options.tail, 0, 'tail');
  const asked = await store.summary(id);
  if (asked === undefined) throw new NotFoundError(`No session ${id}`, { details: { sessionId: id } });
  const thread = await threadOf(store, id);
  if (thread === undefined) return undefined;
  const row = id === thread.conversation ? asked : await store.summary(thread.conversation);
  if (row === undefined) return undefined;
  const index = new RecordIndex(store, INDEX_SIZE);
  const newest: CheckpointRecord[] = [];
  for await (const record of index.newestFirst(thread)) {
    newest.push(record);
    if (newest.length > checkpointLimit) break;
  }
  const record = await recordToShow(index, thread, newest, options.checkpointId);
  const base = {
    threadId: thread.threadId,
    namespace: thread.namespace,
    conversation: thread.conversation,
    log: thread.log,
  };
  if (record === undefined)
    return {
      ...base,
      path: [],
      pathComplete: true,
      messages: [],
      messageCount: 0,
      logCount: row.messageCount,
      checkpoints: [],
      moreCheckpoints: false,
      elsewhere: { count: row.messageCount, messages: [] },
    };
  const channels = Object.keys(record.messages).sort();
  const channel = channels.includes(DEFAULT_CHANNEL) ? DEFAULT_CHANNEL : channels[0];
  const ref = channel === undefined ? undefined : record.messages[channel];
  const listing = await listCheckpoints(index, thread, newest, record, {
    limit: checkpointLimit,
    maxPath: MAX_PATH,
    channel,
  });
  const ranges = ref?.ranges ?? [];
  const messageCount = countOf(ranges);
  let messages: Message[];
  try {
    const shown = tail === undefined ? ranges : lastOf(ranges, tail);
    const entries = await readList({ v: ref?.v ?? 0, ranges: shown }, (afterSeq, beforeSeq) =>
      store.readMessages(thread.conversation, { afterSeq, beforeSeq }),
    );
    messages = entries.map((entry) => entry.message);
  } catch (error) {
    if (!ChatstateError.hasCode(error, 'CORRUPT')) throw error;
    throw new DataError(
      'CORRUPT',
      `${(error as Error).message} (session ${thread.conversation}, checkpoint ${record.id})`,
      {
        cause: error,
        details: { sessionId: thread.conversation, checkpointId: record.id },
      },
    );
  }
  const [last] = await store.readMessages(thread.conversation, { limit: 1 });
  const gaps = gapsOf(ranges, last?.seq ?? 0);
  const others = elsewhereLimit === 0 ? [] : await newestIn(store, thread.conversation, gaps, elsewhereLimit);
  return {
    ...base,
    ...(channel === undefined ? {} : { channel }),
    checkpoint: listing.current,
    ...(newest[0] === undefined ? {} : { latest: newest[0].id }),
    path: listing.path,
    pathComplete: listing.pathComplete,
    messages,
    messageCount,
    logCount: row.messageCount,
    checkpoints: listing.checkpoints,
    moreCheckpoints: listing.more,
    elsewhere: { count: countOf(gaps), messages: classify(others, messages) },
  };
}
