/**
 * `SessionManager.commit`: stores what a turn changed — new messages and the session's new state —
 * only if the session is still the one the turn read. The model answered that session, so its
 * answer must not land on a session someone changed meanwhile.
 * @module
 */
import { ChatstateError, ConflictError, InvalidInputError } from '../errors.js';
import { Message } from '../message/message.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import { MessageLog } from '../session/message-log.js';
import { Session, sessionJson } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { RecordedUsage } from '../tokens/usage.js';
import type { SaveReason } from './events.js';
import type { Entry, ManagedSessions } from './managed-sessions.js';

/** What a commit changes; a field left out keeps the session's value. */
export interface SessionChange {
  /** Messages appended after the session's (after `history`, when given), in order. */
  readonly messages: ReadonlyArray<Message>;
  /** Replaces the session's messages (a compaction): the commit is then one compare-and-replace. */
  readonly history?: ReadonlyArray<Message>;
  /** The session's variables after the commit. */
  readonly variables?: Readonly<Record<string, JsonValue>>;
  /** The session's metadata after the commit. */
  readonly metadata?: JsonObject;
  /** The usage measured by the last model call, tied to the first `messageCount` messages (`null` removes it). */
  readonly lastUsage?: RecordedUsage | null;
  /** The agent the session is assigned to after the commit. */
  readonly agentId?: string;
}

function changedMeanwhile(id: string, why: string): ConflictError {
  return new ConflictError(`SessionManager: session ${JSON.stringify(id)} ${why}; nothing was stored`, {
    details: { id },
  });
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `SessionManager.commit: ${message}`);
}

/** A checked change: its messages validated, and the session `base` becomes without them (cheap: no messages are copied). */
export interface CheckedChange {
  readonly messages: readonly Message[];
  /** The replacing history, validated. */
  readonly history?: readonly Message[];
  /** `base` with the new owner and state, at `base`'s version and with `base`'s messages. */
  readonly head: Session;
  /** True when the change gives variables, metadata or usage (else the stored state stays as it is). */
  readonly stateChanged: boolean;
}

/**
 * Checks `change` against `base` before anything is written: the messages, and the state through
 * `Session.fromJSON` (the rules every stored session follows). Throws `INVALID_ARGUMENT`,
 * `INVALID_MESSAGE` or `INVALID_SESSION`.
 */
export function checkChange(base: unknown, change: unknown): CheckedChange {
  if (!Session.is(base)) throw invalid('base must be a Session');
  if (typeof change !== 'object' || change === null || !Array.isArray((change as SessionChange).messages)) {
    throw invalid('the change must be an object with a messages array');
  }
  const { messages, history, variables, metadata, lastUsage, agentId } = change as SessionChange;
  if (history !== undefined && !Array.isArray(history)) throw invalid('history must be an array of messages');
  const checked = messages.map((message) => Message.from(message));
  const replaced = history?.map((message) => Message.from(message));
  const ids = new Set([...(replaced ?? []), ...checked].map((message) => message.id));
  if (ids.size !== checked.length + (replaced?.length ?? 0)) throw invalid('the messages must have distinct ids');
  const stateChanged = variables !== undefined || metadata !== undefined || lastUsage !== undefined;
  if (!stateChanged && agentId === undefined)
    return { messages: checked, ...(replaced === undefined ? {} : { history: replaced }), head: base, stateChanged };
  // Validated on a copy without messages: the same checks a stored session passes, for the cost of
  // its state alone (`toJSON` would build the whole history's array).
  const head = Session.fromJSON({
    ...sessionJson(base, []),
    ...(variables === undefined ? {} : { variables }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(agentId === undefined ? {} : { agentId }),
    ...(lastUsage === null ? { lastUsage: undefined } : lastUsage !== undefined ? { lastUsage } : {}),
  });
  return {
    messages: checked,
    ...(replaced === undefined ? {} : { history: replaced }),
    head,
    stateChanged,
  };
}

/** `head`'s owner and state over `messages` (already `Message` values), at `version`. */
function sessionOf(head: Session, messages: MessageLog, version: number): Session {
  return head.withStored({ messages, version });
}

/** The cached entry of `id`, or `undefined` when the store has no such session. */
async function entryOrNone(sessions: ManagedSessions, id: string): Promise<Entry | undefined> {
  try {
    return await sessions.entryOf(id);
  } catch (error) {
    if (ChatstateError.hasCode(error, 'NOT_FOUND')) return undefined;
    throw error;
  }
}

/**
 * Makes sure the entry still holds `base` as stored: local changes of the entry that `base` already
 * contains are written first. Throws `CONFLICT` when the session changed since `base`.
 */
async function settle(sessions: ManagedSessions, entry: Entry, base: Session): Promise<void> {
  const id = base.id;
  if (entry.session !== base) {
    // The same stored version read again (the entry was evicted and reloaded) is still `base`.
    const same =
      entry.pending.length === 0 && entry.storedVersion === base.version && entry.session.version === base.version;
    if (!same) throw changedMeanwhile(id, `changed since version ${base.version}`);
    return;
  }
  if (entry.pending.length === 0) return;
  const stored = await sessions.persist(entry, 'save');
  // A save that had to be replayed on another writer's version holds more than `base` did.
  if (stored.version !== base.version || stored.messages.length !== base.messages.length)
    throw changedMeanwhile(id, 'was changed by another writer');
}

/** What `commitChange` needs from its manager besides the cache. */
export interface CommitContext {
  readonly sessions: ManagedSessions;
  readonly store: SessionStore;
  /** Reports a whole-session write (the manager's `saved` event). */
  readonly saved: (session: Session, reason: SaveReason) => void;
}

/** Stores `change` (checked by `checkChange`) over `base`; the caller holds the session's lock. */
export async function commitChange(context: CommitContext, base: Session, change: CheckedChange): Promise<Session> {
  const { sessions, store } = context;
  const { head, messages } = change;
  const id = base.id;
  const entry = await entryOrNone(sessions, id);
  // A stored session is never at version 0: version 0 is a session made by Session.create.
  if (entry === undefined) {
    if (base.version !== 0) throw changedMeanwhile(id, 'was deleted');
    const created = await store.save(sessionOf(head, base.history.append(messages), base.version + 1), {
      expectedVersion: 0,
    });
    sessions.adopt(created);
    context.saved(created, 'create');
    return created;
  }
  if (base.version === 0) throw changedMeanwhile(id, 'was created by another writer');
  await settle(sessions, entry, base);
  const expectedVersion = entry.storedVersion;
  const current = entry.session;
  try {
    if (change.history !== undefined || head.agentId !== current.agentId || head.userId !== current.userId) {
      // A new history, or owner columns (not part of an append's state): one compare-and-replace.
      const saved = await store.save(
        sessionOf(
          head,
          (change.history === undefined ? current.history : MessageLog.of(change.history)).append(messages),
          current.version + 1,
        ),
        { expectedVersion },
      );
      sessions.adopt(saved);
      context.saved(saved, 'save');
      return saved;
    }
    const state = {
      metadata: head.metadata,
      variables: head.variables,
      ...(head.lastUsage === undefined ? {} : { lastUsage: head.lastUsage }),
    };
    const outcome = await store.append(
      id,
      messages,
      change.stateChanged ? { expectedVersion, state } : { expectedVersion },
    );
    if (outcome.appended.length === 0) return current;
    // Messages alone: `append` is the stored session (the history log is shared, not copied or validated again).
    const appended = change.stateChanged ? undefined : current.append(...outcome.appended);
    const stored =
      appended?.version === outcome.version
        ? appended
        : sessionOf(head, current.history.append(outcome.appended), outcome.version);
    sessions.adopt(stored);
    return stored;
  } catch (error) {
    // The cached copy is stale (another writer) or gone: the next load reads the store again.
    if (ChatstateError.hasCode(error, 'CONFLICT', 'NOT_FOUND')) sessions.drop(id);
    throw error;
  }
}
