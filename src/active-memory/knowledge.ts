/**
 * Knowledge about a user (`remember`): `context` messages marked `metadata.knowledge = true` in
 * a per-user session that `recall` searches like any other of the user's sessions.
 * @module
 */
import { createHash } from 'node:crypto';
import { ChatstateError, ConflictError, DataError, NotFoundError } from '../errors.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import { SESSION_KINDS } from '../store/session-kind.js';
import { checkFactId, factIndex, factMetadata, requireFact } from './knowledge-lifecycle.js';
import type { RecallHit, RememberOptions } from './types.js';

/** Session ids starting with this are reserved for knowledge sessions: a turn may not create one. */
export const KNOWLEDGE_PREFIX = 'knowledge-';

/**
 * The id of `userId`'s knowledge session: a SHA-256 of the user id, so any user id (however long
 * or hostile) gives a valid session id, and no user id can name another user's knowledge session.
 */
export function knowledgeSessionId(userId: string): string {
  return `${KNOWLEDGE_PREFIX}${createHash('sha256').update('chatstate.knowledge\0').update(userId, 'utf8').digest('hex')}`;
}

/** Session ids starting with this are reserved for knowledge graphs (`KnowledgeGraph`): a turn may not create one. */
export const KNOWLEDGE_GRAPH_PREFIX = 'memory-graph-';

/**
 * The session id of `userId`'s knowledge graph, derived as the knowledge session's is. Kept here,
 * beside it, so that the runtime, which reserves both prefixes, does not load the graph.
 */
export function knowledgeGraphSessionId(userId: string): string {
  return `${KNOWLEDGE_GRAPH_PREFIX}${createHash('sha256').update('chatstate.knowledge-graph\0').update(userId, 'utf8').digest('hex')}`;
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
      session = await store.save(Session.create({ id, userId, metadata: { chatstate: SESSION_KINDS.knowledge } }), {
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
export async function rememberFor(
  store: SessionStore,
  userId: string,
  text: string,
  options: RememberOptions = {},
): Promise<RecallHit> {
  const id = knowledgeSessionId(userId);
  const metadata = factMetadata(options);
  await ensureKnowledgeSession(store, userId, id);
  // A correction must name a fact of this user: a dangling one would hide nothing and mislead.
  if (typeof metadata.supersedes === 'string')
    requireFact(await factIndex(store, id), metadata.supersedes, 'remember: supersedes');
  const message = Message.context(text, { metadata });
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
    validFrom: typeof metadata.validFrom === 'string' ? metadata.validFrom : stored.timestamp,
    ...(typeof metadata.supersedes === 'string' ? { supersedes: metadata.supersedes } : {}),
    ...(Array.isArray(metadata.tags) ? { tags: metadata.tags as string[] } : {}),
  });
}

/**
 * Saves the knowledge session once more, unchanged. A store that keeps the state before a rewrite
 * as its crash backup (the file store: the previous snapshot and its journals) still holds the
 * forgotten text after the first save; after the second, its backup is the state without it.
 * When another writer came in between, its write stands and the backup clears at the next rewrite.
 */
async function settle(store: SessionStore, saved: Session): Promise<void> {
  try {
    await store.save(saved, { expectedVersion: saved.version });
  } catch (error) {
    if (!ChatstateError.hasCode(error, 'CONFLICT', 'NOT_FOUND')) throw error;
  }
}

/** Attempts of `forgetFor` when other writers keep changing the knowledge session. */
const FORGET_ATTEMPTS = 5;

/**
 * Deletes fact `factId` from `userId`'s knowledge: the knowledge session is saved again without
 * its message (compare-and-replace on its version), so its text is gone from the store, not
 * hidden. `NOT_FOUND` when the user has no such fact.
 */
export async function forgetFor(store: SessionStore, userId: string, factId: string): Promise<void> {
  const fact = checkFactId(factId);
  const id = knowledgeSessionId(userId);
  for (let attempt = 1; ; attempt += 1) {
    const session = await store.get(id);
    if (
      session?.userId !== userId ||
      !session.messages.some((message) => message.id === fact && message.metadata.knowledge === true)
    )
      throw new NotFoundError(`forget: this user has no fact ${JSON.stringify(fact)}`, { details: { id: fact } });
    try {
      const saved = await store.save(session.withMessages(session.messages.filter((message) => message.id !== fact)), {
        expectedVersion: session.version,
        erase: true,
      });
      await settle(store, saved);
      return;
    } catch (error) {
      // A fact remembered meanwhile: forget on the newest version, so that it is kept.
      if (!ChatstateError.hasCode(error, 'CONFLICT') || attempt >= FORGET_ATTEMPTS) {
        if (ChatstateError.hasCode(error, 'CONFLICT'))
          throw new ConflictError(`forget: the knowledge kept changing; try again`, { cause: error });
        throw error;
      }
    }
  }
}
