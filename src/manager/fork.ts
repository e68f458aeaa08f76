/**
 * A fork on its source: after the fork is stored, the source's `metadata.forks` gets an entry for
 * it, and after the fork is deleted the entry leaves. Both are written like any local change
 * (compare-and-replace on the stored version, replayed on a newer copy after a `CONFLICT`), so a
 * concurrent writer's change is never overwritten.
 * @module
 */
import { ChatstateError, errorMessage, type ErrorCode } from '../errors.js';
import { forkLog, withForkEntry, withoutForkEntry, type ForkEntry } from '../session/fork-log.js';
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
 * Runs `write` (one locked write of a source's fork log) up to `RECORD_ATTEMPTS` times while it
 * fails with a retryable error. Never throws: a failure is returned as a chatstate error (`what`
 * says what was being written, for an error that is not one).
 */
async function withRetries<T>(
  write: () => Promise<T>,
  what: string,
  details: Readonly<Record<string, string>>,
): Promise<{ ok: true; value: T } | { ok: false; error: ChatstateError }> {
  let failure: unknown;
  for (let attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
    if (attempt > 1) await pause(attempt - 1);
    try {
      return { ok: true, value: await write() };
    } catch (error) {
      failure = error;
      if (!ChatstateError.hasCode(error, ...RETRYABLE)) break;
    }
  }
  const error = ChatstateError.isInstance(failure)
    ? failure
    : new ChatstateError('INTERNAL', `SessionManager: ${what} failed: ${errorMessage(failure)}`, {
        cause: failure,
        details,
      });
  return { ok: false, error };
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
  const outcome = await withRetries(
    () =>
      sessions.locks.run(sourceId, async () => {
        const current = await sessions.entryOf(sourceId);
        return sessions.persist(current, 'fork', {
          session: await record(current.session),
          pending: [...current.pending, record],
        });
      }),
    `recording fork ${entry.sessionId}`,
    { sessionId: sourceId, forkId: entry.sessionId },
  );
  return outcome.ok ? { recorded: true, source: outcome.value } : { recorded: false, error: outcome.error };
}

/**
 * What `unrecordFork` did: `unlinked` with the source as stored, `absent` when there was nothing
 * to change (the source is gone, or its log does not name the fork), or `failed` with why.
 */
export type UnrecordOutcome =
  | { readonly outcome: 'unlinked'; readonly source: Session }
  | { readonly outcome: 'absent' }
  | { readonly outcome: 'failed'; readonly error: ChatstateError };

/**
 * Removes fork `forkId` from the `metadata.forks` of session `sourceId` (with the source's local
 * changes, if any, in the same write), trying `RECORD_ATTEMPTS` times. A source that is gone, or
 * that does not list the fork, is left alone. Never throws: the outcome says.
 */
export async function unrecordFork(
  sessions: ManagedSessions,
  sourceId: string,
  forkId: string,
): Promise<UnrecordOutcome> {
  const unrecord: SessionUpdater = (session) => {
    const metadata = withoutForkEntry(session.metadata, forkId);
    // Replayed on a newer copy that no longer lists the fork: nothing to change there.
    return metadata === session.metadata ? session : session.withMetadata(metadata);
  };
  const outcome = await withRetries(
    () =>
      sessions.locks.run(sourceId, async (): Promise<Session | undefined> => {
        try {
          const current = await sessions.entryOf(sourceId);
          if (!forkLog(current.session.metadata).some((entry) => entry.sessionId === forkId)) return undefined;
          return await sessions.persist(current, 'fork-deleted', {
            session: await unrecord(current.session),
            pending: [...current.pending, unrecord],
          });
        } catch (error) {
          // The source is gone (before, or while the write was replayed on a newer copy): no log left to mend.
          if (ChatstateError.hasCode(error, 'NOT_FOUND')) return undefined;
          throw error;
        }
      }),
    `removing deleted fork ${forkId} from ${sourceId}`,
    { sessionId: sourceId, forkId },
  );
  if (!outcome.ok) return { outcome: 'failed', error: outcome.error };
  return outcome.value === undefined ? { outcome: 'absent' } : { outcome: 'unlinked', source: outcome.value };
}
