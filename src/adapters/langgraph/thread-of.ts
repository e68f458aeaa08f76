/**
 * Which LangGraph thread a session belongs to, told without LangGraph and without reading the
 * session: a conversation's checkpoint log (`<conversation>.cp`) holds the thread id and namespace
 * in its values, written when the saver created the pair.
 * @module
 */
import { DataError } from '../../errors.js';
import { isObject } from '../../interchange/json-text.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { keys } from './records.js';
import { LOG_SUFFIX, type ThreadSessions } from './thread-ids.js';

/** The two sessions of one (thread, namespace), and the thread and namespace themselves. */
export interface ThreadOf extends ThreadSessions {
  readonly threadId: string;
  /** The checkpoint namespace (`''` for the root graph; a subgraph's otherwise). */
  readonly namespace: string;
}

/**
 * The thread `id` is the conversation or the checkpoint log of, or `undefined` when it is neither
 * (any other session). `CORRUPT`, naming the log, when the log's thread value is damaged.
 */
export async function threadOf(store: SessionStore, id: string): Promise<ThreadOf | undefined> {
  // No conversation id ends with `.cp`: each of its parts starts with `r`, `b` or `h` (thread-ids.ts).
  const conversation = id.endsWith(LOG_SUFFIX) ? id.slice(0, -LOG_SUFFIX.length) : id;
  const log = `${conversation}${LOG_SUFFIX}`;
  const about = await store.values.get({ scope: 'session', sessionId: log }, keys.thread);
  if (about === undefined) return undefined;
  const threadId = isObject(about) ? about['threadId'] : undefined;
  const namespace = isObject(about) ? about['checkpointNs'] : undefined;
  if (typeof threadId !== 'string' || typeof namespace !== 'string')
    throw new DataError('CORRUPT', `LangGraph saver: the thread value of ${log} is damaged`, {
      details: { sessionId: log },
    });
  return { conversation, log, threadId, namespace };
}
