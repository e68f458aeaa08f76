/**
 * Session boundaries and continuation (Penguin), as pure functions over immutable sessions: what a
 * successor carries, its transition marker, and the links of a chain.
 * @module
 */
import { ConflictError, DataError } from '../errors.js';
import { copyRange } from '../freeze.js';
import { isValidId } from '../ids.js';
import { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { COMPACTIONS_KEY } from '../session/compaction-log.js';
import { FORKS_KEY } from '../session/fork-log.js';
import { Session } from '../session/session.js';
import { RECOVERY_KEY } from '../store/recovery.js';

/** Metadata keys that describe a session's place among others; a successor or fork never inherits them. */
export const LINK_KEYS: ReadonlySet<string> = new Set([
  'continuedFrom',
  'continuedTo',
  'continuationIndex',
  'forkedFrom',
  'recoveredFrom',
]);

/** True for the transition marker a continuation adds (never carried into the next link). */
export function isTransitionMarker(message: Message): boolean {
  return message.metadata.transition === true;
}

/** Depth of `session` in its chain: 0 for a root, 1 for its successor, … (garbage in metadata counts as 0). */
export function continuationIndexOf(session: Session): number {
  const index = session.metadata.continuationIndex;
  return typeof index === 'number' && Number.isSafeInteger(index) && index >= 0 ? index : 0;
}

/** A string link of `metadata` (`continuedFrom`, `continuedTo`), or `undefined`. */
export function linkOf(session: Session, key: 'continuedFrom' | 'continuedTo'): string | undefined {
  const value = session.metadata[key];
  return typeof value === 'string' ? value : undefined;
}

/** The id a continuation link points to; a link that is not a valid id means the stored metadata is damaged (`CORRUPT`). */
export function linkTarget(session: Session, key: 'continuedFrom' | 'continuedTo'): string | undefined {
  return checkedLink(session.id, key, linkOf(session, key));
}

/** `target`, link `key` of session `id`, when it is absent or a valid id; else `CORRUPT` (damaged or hostile metadata). */
export function checkedLink(
  id: string,
  key: 'continuedFrom' | 'continuedTo',
  target: string | undefined,
): string | undefined {
  if (target !== undefined && !isValidId(target)) {
    throw new DataError('CORRUPT', `Session ${JSON.stringify(id)} has an invalid ${key} link`, {
      details: { id, key },
    });
  }
  return target;
}

/** The error for continuation links that loop back. */
export function chainCycle(id: string): DataError {
  return new DataError('CORRUPT', `The continuation links of session ${JSON.stringify(id)} form a cycle`, {
    details: { id },
  });
}

/** What a store's recovery note adds to a recovery session's metadata beside `recoveredFrom`. */
const RECOVERY_NOTE_KEYS: ReadonlySet<string> = new Set(['reason', 'keptAside']);

/**
 * The metadata a successor or fork inherits: everything but the links (and recovery notes and
 * notices, the compaction log and the fork log, which describe only their own session).
 */
export function inheritedMetadata(metadata: JsonObject): JsonObject {
  const recovery = metadata.recoveredFrom !== undefined;
  return Object.fromEntries(
    Object.entries(metadata).filter(
      ([key]) =>
        !LINK_KEYS.has(key) &&
        key !== RECOVERY_KEY &&
        key !== COMPACTIONS_KEY &&
        key !== FORKS_KEY &&
        !(recovery && RECOVERY_NOTE_KEYS.has(key)),
    ),
  );
}

/**
 * True while the newest assistant message still waits for some of its tool results: continuing
 * then would put the results in another session than their call, which no provider accepts.
 */
export function hasOpenToolExchange(session: Session): boolean {
  const answered = new Set<string>();
  for (let i = session.messages.length - 1; i >= 0; i--) {
    const message = session.messages[i] as Message;
    if (message.role === 'tool') {
      if (message.toolCallId !== undefined) answered.add(message.toolCallId);
      continue;
    }
    if (message.role === 'assistant' && message.toolCalls !== undefined)
      return message.toolCalls.some((call) => !answered.has(call.id));
    return false;
  }
  return false;
}

/**
 * True when continuing would leave something behind. A session made only of messages a successor
 * carries (system, context) would be continued by an equal session, at its boundary again: without
 * this check a small `maxMessagesPerSession` would continue forever.
 */
export function continuationMakesProgress(session: Session): boolean {
  return session.messages.some((message) => message.category === 'dialog' || message.category === 'tool_output');
}

/**
 * The successor of `source`: every system and context message once (new ids; earlier transition
 * markers are not carried, so they never pile up), one new transition marker, the same agent,
 * user and variables, and `continuedFrom` / `continuationIndex` (the depth in the chain).
 */
export function successorOf(source: Session): Session {
  const continuationIndex = continuationIndexOf(source) + 1;
  const carried = source.messages
    .filter(
      (message) => (message.category === 'system' || message.category === 'context') && !isTransitionMarker(message),
    )
    // New ids: a message id belongs to one session; `seq` is given again by the successor's store.
    .map((message) => Message.with(message, { id: undefined, seq: undefined }));
  const marker = Message.context(
    `This session continues session ${source.id} (link ${continuationIndex} of its chain); the earlier conversation is stored there.`,
    { metadata: { transition: true, continuedFrom: source.id } },
  );
  return Session.create({
    ...(source.agentId === undefined ? {} : { agentId: source.agentId }),
    ...(source.userId === undefined ? {} : { userId: source.userId }),
    variables: source.variables,
    metadata: { ...inheritedMetadata(source.metadata), continuedFrom: source.id, continuationIndex },
    messages: [...carried, marker],
  });
}

/** `source` linked to its successor; throws `CONFLICT` when it was already continued (a chain never branches). */
export function linkToSuccessor(source: Session, successorId: string): Session {
  const existing = linkOf(source, 'continuedTo');
  if (existing !== undefined && existing !== successorId) {
    throw new ConflictError(
      `Session ${JSON.stringify(source.id)} was already continued to ${JSON.stringify(existing)}`,
      {
        details: { id: source.id, continuedTo: existing },
      },
    );
  }
  return existing === successorId ? source : source.withMetadata({ continuedTo: successorId });
}

/** A fork of `source` holding its history up to and including message `index`. */
export function forkOf(source: Session, index: number, options: { id?: string }): Session {
  const at = source.messages[index] as Message;
  return Session.create({
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(source.agentId === undefined ? {} : { agentId: source.agentId }),
    ...(source.userId === undefined ? {} : { userId: source.userId }),
    variables: source.variables,
    metadata: {
      ...inheritedMetadata(source.metadata),
      // The sequence number is the same in the fork: a link can open the source at that message.
      forkedFrom: { sessionId: source.id, messageId: at.id, ...(at.seq === undefined ? {} : { seq: at.seq }) },
    },
    // The same frozen messages (ids and seq kept: the fork's store numbers after them).
    messages: copyRange(source.messages, 0, index + 1),
  });
}
