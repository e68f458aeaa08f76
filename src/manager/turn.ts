/**
 * `SessionManager.runTurn`: the one place a turn ends, for every caller that runs turns (the
 * `Conversation`, the server). A turn runs on the end of the chain of the id it was given; the
 * caller's work (the model call and its tools) returns what it changed; that change is committed
 * only if the session is still the one the work read, compacted after the final answer, and the
 * session is continued once the turn filled it.
 * @module
 */
import type { CompactionResult, Compactor, Strategy } from '../compaction/types.js';
import { ChatstateError, InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/counter.js';
import { followChain } from './chain.js';
import { checkChange, type CheckedChange, type SessionChange } from './commit.js';
import { compactSession, unchangedBy } from './compact-after-answer.js';
import { linkTarget } from './continuation.js';
import { isCounter, isStrategy } from './options.js';

/** Options of `SessionManager.runTurn`. */
export interface TurnOptions {
  /**
   * The user the session belongs to: a new session is created for this user; an existing one (and
   * each link of its chain) must already be this user's (`INVALID_ARGUMENT` otherwise).
   */
  readonly userId?: string;
  /** Compacts the session after the turn's final answer. @default the manager's `compactor` */
  readonly compactor?: Compactor | Strategy;
  /** Counter for the compaction. @default the manager's `counter` */
  readonly counter?: TokenCounter;
  /** Reaches a summarizer: an abort while it runs ends the compaction (reported, nothing changed), never the stored turn. */
  readonly signal?: AbortSignal;
  /** Continues the session once the turn filled it to `maxMessagesPerSession`; later turns run in the successor. @default false */
  readonly continueAtBoundary?: boolean;
}

/** What the work of a turn can ask while it runs. */
export interface TurnContext {
  /**
   * The session `base` continues (owner-checked), where a turn that filled it was stored: a retry
   * of that turn must be answered from there. `undefined` when there is none.
   */
  predecessor(): Promise<Session | undefined>;
}

/** What the work of a turn returns: a value for its caller and, unless the turn stores nothing (a retry answered from the store), the change. */
export interface TurnOutcome<T> {
  readonly value: T;
  readonly change?: SessionChange;
}

/** The caller's part of a turn (the model call and its tools), run on `base`; what it throws fails the turn, storing nothing. */
export type TurnWork<T> = (base: Session, context: TurnContext) => Promise<TurnOutcome<T>>;

/** What `SessionManager.runTurn` did. */
export interface TurnEnd<T> {
  /** The work's `value`. */
  readonly value: T;
  /** The session the work ran on: the end of the chain of the id given, or a new session (version 0, not stored yet). */
  readonly base: Session;
  /** The session as the turn's commit stored it, before any compaction; `base` when the work stored nothing. */
  readonly committed: Session;
  /** The session as stored when the turn ended (compacted when a compaction was stored). */
  readonly session: Session;
  /** The messages of the work's change as stored (with their sequence numbers); empty when it stored nothing. */
  readonly messages: readonly Message[];
  /** The compaction after the final answer, when one ran. When it failed, or another writer came first, `error` says why. */
  readonly compaction?: CompactionResult;
  /** The id given, when the turn ran in a successor of it: use `session.id` from now on. */
  readonly continuedFrom?: string;
  /** The successor the session was continued to once the turn filled it (`continueAtBoundary`). */
  readonly continuedTo?: string;
}

/** The options with defaults filled, checked. */
export interface ResolvedTurnOptions {
  readonly userId: string | undefined;
  readonly compactor: Compactor | Strategy | undefined;
  readonly counter: TokenCounter;
  readonly signal: AbortSignal | undefined;
  readonly continueAtBoundary: boolean;
}

/** What a turn needs from its manager; each call takes the session's lock itself. */
export interface TurnHost {
  /** The managed session `id` (cached, else loaded); `NOT_FOUND` when there is none. */
  load(id: string): Promise<Session>;
  /** Stores `change` over `base`, only if the session is still `base` (`SessionManager.commit`). */
  commit(base: Session, change: CheckedChange): Promise<Session>;
  /** Continues session `id` when it is at its boundary and continuing helps; the successor's id, else `undefined`. */
  continueIfFull(id: string): Promise<string | undefined>;
  /** Reports a stored compaction (the `compacted` event). */
  compacted(sessionId: string, result: CompactionResult): void;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `SessionManager.runTurn: ${message}`);
}

/** Checks `options` and fills defaults from the manager's; throws `INVALID_ARGUMENT`. */
export function resolveTurnOptions(
  options: unknown,
  defaults: { readonly compactor: Compactor | Strategy | undefined; readonly counter: TokenCounter },
): ResolvedTurnOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  const { userId, compactor, counter, signal, continueAtBoundary } = options as TurnOptions;
  if (userId !== undefined && (typeof userId !== 'string' || userId.length === 0 || userId.length > 256))
    throw invalid('userId must be a non-empty string of at most 256 characters');
  if (compactor !== undefined && !isStrategy(compactor)) throw invalid('compactor must be a Compactor or a Strategy');
  if (counter !== undefined && !isCounter(counter)) throw invalid('counter must be a TokenCounter');
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw invalid('signal must be an AbortSignal');
  if (continueAtBoundary !== undefined && typeof continueAtBoundary !== 'boolean')
    throw invalid('continueAtBoundary must be a boolean');
  return {
    userId,
    compactor: compactor ?? defaults.compactor,
    counter: counter ?? defaults.counter,
    signal,
    continueAtBoundary: continueAtBoundary ?? false,
  };
}

/** Runs one turn (the caller holds the turn lock of `sessionId`): find its session, run `work`, commit, compact, continue. */
export async function runTurnOn<T>(
  host: TurnHost,
  sessionId: string,
  work: TurnWork<T>,
  options: ResolvedTurnOptions,
): Promise<TurnEnd<T>> {
  const base = await turnBase(host, sessionId, options.userId);
  const outcome: unknown = await work(base, { predecessor: () => predecessorOf(host, base, options.userId) });
  if (typeof outcome !== 'object' || outcome === null)
    throw invalid('the work must return an object { value, change? }');
  const { value, change } = outcome as TurnOutcome<T>;
  const continuedFrom = base.id === sessionId ? {} : { continuedFrom: sessionId };
  if (change === undefined) return { value, base, committed: base, session: base, messages: [], ...continuedFrom };
  const checked = checkChange(base, change);
  const committed = await host.commit(base, checked);
  const { session, compaction } = await compactStored(host, committed, options);
  const continuedTo = options.continueAtBoundary ? await continueWhenFull(host, session) : undefined;
  return {
    value,
    base,
    committed,
    session,
    messages: storedMessages(committed, checked.messages),
    ...(compaction === undefined ? {} : { compaction }),
    ...continuedFrom,
    ...(continuedTo === undefined ? {} : { continuedTo }),
  };
}

/** `session`, when it is `userId`'s (or no user is named); `INVALID_ARGUMENT` otherwise. */
function owned(session: Session, userId: string | undefined): Session {
  // Without this check a caller could run a turn (and its memory tools) on someone else's session.
  if (userId !== undefined && session.userId !== userId)
    throw invalid(`session ${JSON.stringify(session.id)} does not belong to this user`);
  return session;
}

/**
 * The newest session of `sessionId`'s continuation chain (the session itself when it was never
 * continued), or a new one; `CORRUPT` for links that loop or point nowhere valid.
 */
async function turnBase(host: TurnHost, sessionId: string, userId: string | undefined): Promise<Session> {
  return followChain<Session>(sessionId, async (link) => {
    let session: Session;
    try {
      session = owned(await host.load(link), userId);
    } catch (error) {
      // Only the id given may be new; a link to a session that is gone stays an error.
      if (link === sessionId && ChatstateError.hasCode(error, 'NOT_FOUND'))
        return { done: Session.create({ id: sessionId, ...(userId === undefined ? {} : { userId }) }) };
      throw error;
    }
    const next = linkTarget(session, 'continuedTo');
    return next === undefined ? { done: session } : { next };
  });
}

async function predecessorOf(host: TurnHost, base: Session, userId: string | undefined): Promise<Session | undefined> {
  const previous = linkTarget(base, 'continuedFrom');
  if (previous === undefined) return undefined;
  try {
    return owned(await host.load(previous), userId);
  } catch (error) {
    if (ChatstateError.hasCode(error, 'NOT_FOUND')) return undefined;
    throw error;
  }
}

/** The turn's messages as stored (with their sequence numbers), or as given when the store held some of them already. */
function storedMessages(committed: Session, messages: readonly Message[]): readonly Message[] {
  const stored = committed.history;
  const last = messages.at(-1);
  return last !== undefined && stored.at(-1)?.id === last.id ? stored.slice(stored.length - messages.length) : messages;
}

/**
 * goaitools: the compaction after a final answer runs on the stored turn and is stored with
 * `expectedVersion`. Its failure never fails the turn (whose messages are stored): the report says
 * why and the session stays as committed.
 */
async function compactStored(
  host: TurnHost,
  committed: Session,
  options: ResolvedTurnOptions,
): Promise<{ session: Session; compaction?: CompactionResult }> {
  if (options.compactor === undefined) return { session: committed };
  const { session: compacted, result } = await compactSession(committed, options.compactor, options);
  if (result === undefined) return { session: committed };
  if (!result.compacted) return { session: committed, compaction: result };
  try {
    // A measured usage the compaction dropped (it described the uncompacted prompt) leaves the store too.
    const session = await host.commit(
      committed,
      checkChange(committed, {
        messages: [],
        history: compacted.messages,
        lastUsage: compacted.lastUsage ?? null,
        // The compaction log entry (metadata.compactions) is stored with the history it describes.
        metadata: compacted.metadata,
      }),
    );
    host.compacted(session.id, result);
    return { session, compaction: result };
  } catch (error) {
    // Another writer stored something after the turn: the compaction is dropped, not forced over it.
    return {
      session: committed,
      compaction: {
        ...unchangedBy(committed.messages, result.strategy, error),
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensBefore,
      },
    };
  }
}

/**
 * Penguin's boundary, after the turn is stored (so a failed turn still stores nothing). A
 * continuation that fails because another writer came first leaves the turn as stored; the next
 * turn checks again.
 */
async function continueWhenFull(host: TurnHost, session: Session): Promise<string | undefined> {
  try {
    return await host.continueIfFull(session.id);
  } catch (error) {
    if (ChatstateError.hasCode(error, 'CONFLICT')) return undefined;
    throw error;
  }
}
