/**
 * `SessionManager.append`: messages land durably at the end of a session's chain — a session at
 * its boundary is continued first, and what an earlier link already holds is never stored again.
 * @module
 */
import type { Message } from '../message/message.js';
import type { Session } from '../session/session.js';
import { followChain } from './chain.js';
import { linkTarget } from './continuation.js';
import type { Entry, ManagedSessions } from './managed-sessions.js';

/** What `SessionManager.append` did. */
export interface ManagerAppendResult {
  /** The session the messages landed in, as the manager now holds it; after a continuation, the successor. */
  readonly session: Session;
  /** The messages added, with their sequence numbers. */
  readonly appended: readonly Message[];
  /** Ids of messages that were already stored (a retried append adds nothing). */
  readonly duplicates: readonly string[];
  /** The id passed to `append`, when the messages landed in a successor of it: use `session.id` from now on. */
  readonly continuedFrom?: string;
}

/** What an append needs from its manager. */
export interface AppendHost {
  readonly sessions: ManagedSessions;
  /** True when the session is at its boundary and continuing it helps. */
  continuable(session: Session): boolean;
  /** Continues the session of `entry` (whose lock the caller holds). */
  continueLocked(entry: Entry): Promise<Session>;
  /** Compaction after messages were appended to `entry` (whose lock the caller holds). */
  compactAppended(entry: Entry): Promise<void>;
}

/** One step of an append along a chain: done, or go on to `next` with what is left to add. */
type AppendStep =
  | { readonly next: string; readonly messages: readonly Message[]; readonly duplicates: readonly string[] }
  | { readonly done: ManagerAppendResult };

/** Appends `messages` (validated) at the end of the chain session `id` starts; each link is locked while it is visited. */
export async function appendAlongChain(
  host: AppendHost,
  id: string,
  messages: readonly Message[],
): Promise<ManagerAppendResult> {
  let left = messages;
  let duplicates: readonly string[] = [];
  const result = await followChain(id, async (link) => {
    const step = await host.sessions.locks.run(link, () => appendStep(host, link, left, duplicates));
    if ('next' in step) ({ messages: left, duplicates } = step);
    return step;
  });
  return result.session.id === id ? result : { ...result, continuedFrom: id };
}

async function appendStep(
  host: AppendHost,
  id: string,
  messages: readonly Message[],
  duplicates: readonly string[],
): Promise<AppendStep> {
  const entry = await host.sessions.entryOf(id);
  const next = linkTarget(entry.session, 'continuedTo');
  if (next !== undefined) return { next, ...notIn(entry.session, messages, duplicates) };
  if (messages.length === 0) return { done: { session: entry.session, appended: [], duplicates } };
  if (host.continuable(entry.session)) {
    const left = notIn(entry.session, messages, duplicates);
    // A retry of the append that filled this session is done: it must not land again in a successor.
    if (left.messages.length === 0)
      return { done: { session: entry.session, appended: [], duplicates: left.duplicates } };
    return { next: (await host.continueLocked(entry)).id, ...left };
  }
  const outcome = await host.sessions.append(entry, messages);
  if (outcome.appended.length > 0) await host.compactAppended(entry);
  return {
    done: { session: entry.session, appended: outcome.appended, duplicates: [...duplicates, ...outcome.duplicates] },
  };
}

/**
 * Splits `messages` into those `session` does not hold and the ids of those it does. An append
 * moving on along a chain leaves behind what already landed in an earlier link, so that a retry
 * never stores a message twice in one chain.
 */
function notIn(
  session: Session,
  messages: readonly Message[],
  duplicates: readonly string[],
): { messages: Message[]; duplicates: string[] } {
  const present = new Set(session.messages.map((message) => message.id));
  const left: Message[] = [];
  const known = [...duplicates];
  for (const message of messages) {
    if (present.has(message.id)) known.push(message.id);
    else left.push(message);
  }
  return { messages: left, duplicates: known };
}
