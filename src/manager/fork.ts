/**
 * Recording a fork on its source: after the fork is stored, the source's `metadata.forks` gets an
 * entry for it, written like any local change (compare-and-replace on the stored version, replayed
 * on a newer copy after a `CONFLICT`), so a concurrent writer's change is never overwritten.
 * @module
 */
import { ChatstateError, errorMessage, type ErrorCode } from '../errors.js';
import { withForkEntry, type ForkEntry } from '../session/fork-log.js';
import type { Session } from '../session/session.js';
import type { ManagedSessions, SessionUpdater } from './managed-sessions.js';

/** Options of `fork`. */
export interface ForkOptions {
  /** The last message the fork keeps (it and everything before it). */
  readonly atMessageId: string;
  /** Id of the fork. @default a new id */
  readonly id?: string;
}

/**
 * What `fork` did. The fork is always stored; `recorded` says whether its source's
 * `metadata.forks` names it too. When it does not, `error` says why (after retries): the fork
 * still points back by `metadata.forkedFrom`, only the source does not list it.
 */
export type ForkResult =
  | {
      /** The fork, as stored. */
      readonly session: Session;
      readonly recorded: true;
      /** The source as stored with the fork in its `metadata.forks`. */
      readonly source: Session;
    }
  | {
      /** The fork, as stored. */
      readonly session: Session;
      readonly recorded: false;
      /** Why the source could not be told (`CONFLICT` from a busy session, `UNAVAILABLE`, `NOT_FOUND`, …). */
      readonly error: ChatstateError;
    };

/** Tries at recording a fork; each try itself replays on a newer copy a few times after a `CONFLICT`. */
export const RECORD_ATTEMPTS = 3;

/** Failures another try may get past: a busy session, a store that could not be reached. */
const RETRYABLE: readonly ErrorCode[] = ['CONFLICT', 'UNAVAILABLE'];

/** Pause before try `attempt` (1-based) after a failure: a store that was unreachable gets a moment. */
function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
}

/**
 * Adds `entry` to the `metadata.forks` of session `sourceId` (with the source's local changes, if
 * any, in the same write), trying `RECORD_ATTEMPTS` times. Never throws: the outcome says.
 */
export async function recordFork(
  sessions: ManagedSessions,
  sourceId: string,
  entry: ForkEntry,
): Promise<{ recorded: true; source: Session } | { recorded: false; error: ChatstateError }> {
  const record: SessionUpdater = (session) => session.withMetadata(withForkEntry(session.metadata, entry));
  let failure: unknown;
  for (let attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
    if (attempt > 1) await pause(attempt - 1);
    try {
      const source = await sessions.locks.run(sourceId, async () => {
        const current = await sessions.entryOf(sourceId);
        return sessions.persist(current, 'fork', {
          session: await record(current.session),
          pending: [...current.pending, record],
        });
      });
      return { recorded: true, source };
    } catch (error) {
      failure = error;
      if (!ChatstateError.hasCode(error, ...RETRYABLE)) break;
    }
  }
  const error = ChatstateError.isInstance(failure)
    ? failure
    : new ChatstateError(
        'INTERNAL',
        `SessionManager: recording fork ${entry.sessionId} failed: ${errorMessage(failure)}`,
        {
          cause: failure,
          details: { sessionId: sourceId, forkId: entry.sessionId },
        },
      );
  return { recorded: false, error };
}
