/**
 * Knowledge about a user (`remember`): `context` messages marked `metadata.knowledge = true` in
 * a per-user session that `recall` searches like any other of the user's sessions.
 * @module
 */
import { createHash } from 'node:crypto';
import { ChatstateError, DataError } from '../errors.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { RecallHit } from './types.js';

/** Session ids starting with this are reserved for knowledge sessions: a turn may not create one. */
export const KNOWLEDGE_PREFIX = 'knowledge-';

/**
 * The id of `userId`'s knowledge session: a SHA-256 of the user id, so any user id (however long
 * or hostile) gives a valid session id, and no user id can name another user's knowledge session.
 */
export function knowledgeSessionId(userId: string): string {
  return `${KNOWLEDGE_PREFIX}${createHash('sha256').update('chatstate.knowledge\0').update(userId, 'utf8').digest('hex')}`;
}

// Knowledge sessions found to belong to their user, per store: checked once per process.
const verified = new WeakMap<SessionStore, Set<string>>();

/**
 * Makes sure `userId`'s knowledge session exists and is theirs. A session under that id owned by
 * someone else (made by hand, since the id is derived) is refused with `CORRUPT`: appending to it
 * would hand this user's knowledge to its owner.
 */
async function ensureKnowledgeSession(store: SessionStore, userId: string, id: string): Promise<void> {
  let seen = verified.get(store);
  if (seen === undefined) {
    seen = new Set();
    verified.set(store, seen);
  }
  if (seen.has(id)) return;
  let session = await store.get(id);
  if (session === undefined) {
    try {
      session = await store.save(Session.create({ id, userId, metadata: { chatstate: 'knowledge' } }), {
        expectedVersion: 0,
      });
    } catch (error) {
      // Another process created it first: check that one.
      if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
      session = await store.load(id);
    }
  }
  if (session.userId !== userId) {
    throw new DataError(
      'CORRUPT',
      `${store.name}: session ${id} should hold this user's knowledge but belongs to another owner; it was left untouched`,
      {
        details: { sessionId: id },
      },
    );
  }
  seen.add(id);
}

/** Appends `text` to `userId`'s knowledge; returns it as `recall` would report it. */
export async function rememberFor(store: SessionStore, userId: string, text: string): Promise<RecallHit> {
  const id = knowledgeSessionId(userId);
  await ensureKnowledgeSession(store, userId, id);
  const message = Message.context(text, { metadata: { knowledge: true } });
  let result;
  try {
    result = await store.append(id, [message]);
  } catch (error) {
    // Deleted since it was checked: check (and create) it again, once.
    if (!ChatstateError.hasCode(error, 'NOT_FOUND')) throw error;
    verified.get(store)?.delete(id);
    await ensureKnowledgeSession(store, userId, id);
    result = await store.append(id, [message]);
  }
  const stored = result.appended[0] ?? message;
  return Object.freeze({
    sessionId: id,
    messageId: stored.id,
    seq: stored.seq ?? 0,
    score: 1,
    text,
    source: 'knowledge',
    timestamp: stored.timestamp,
  });
}
