/**
 * Active memory during a turn: the `SessionHandle` tools receive. Its `session`-scope values live
 * in the turn's session value (stored with the turn's messages in one append, or dropped with a
 * failed turn), its `temp` values only as long as the turn.
 * @module
 */
import {
  createSessionHandle,
  type HandleWorkingMemoryOptions,
  type SessionAccessor,
} from '../active-memory/session-handle.js';
import type { Embed, SessionHandle } from '../active-memory/types.js';
import { InvalidInputError } from '../errors.js';
import type { JsonValue, ProviderName } from '../message/schema.js';
import { Session } from '../session/session.js';
import type { SessionStore } from '../store/session-store-types.js';
import { throwIfAborted } from './abort.js';

/** What a memory factory receives for one turn. */
export interface TurnMemoryContext {
  readonly store: SessionStore;
  readonly sessionId: string;
  /** The turn's session: `session`-scope values are read from and written to it, and stored with the turn. */
  readonly session: SessionAccessor;
  /** `temp`-scope values: this turn only, never stored. */
  readonly temp: Map<string, JsonValue>;
  /** The agent running the turn. */
  readonly agentId: string;
  /** Aborted when the turn is. */
  readonly signal: AbortSignal;
  /** The agent's working memory options, when it has one. */
  readonly workingMemory?: HandleWorkingMemoryOptions;
}

/** Makes the `SessionHandle` of one turn (called at most once per turn, when a tool first uses memory). */
export type MemoryFactory = (context: TurnMemoryContext) => SessionHandle;

/** The default memory of a turn: `createSessionHandle` over the conversation's store, with `embed` for vector recall when given. */
export function defaultMemory(embed?: Embed): MemoryFactory {
  return (context) =>
    createSessionHandle({
      store: context.store,
      sessionId: context.sessionId,
      agentId: context.agentId,
      session: context.session,
      temp: context.temp,
      ...(embed === undefined ? {} : { embed }),
      ...(context.workingMemory === undefined ? {} : { workingMemory: context.workingMemory }),
    });
}

/**
 * `handle`, refusing durable writes (`store` outside the `temp` and `session` scopes, `remember`,
 * `forget`, working memory updates)
 * with `ABORTED` once `signal` fired: a tool that ignores its signal and runs on after the turn
 * failed must not write the user's memory behind the caller's back.
 */
export function endsWithTurn(handle: SessionHandle, signal: AbortSignal, provider: ProviderName): SessionHandle {
  return Object.freeze({
    sessionId: handle.sessionId,
    userId: handle.userId,
    agentId: handle.agentId,
    history: (options) => handle.history(options),
    get: (key, options) => handle.get(key, options),
    recall: (query, options) => handle.recall(query, options),
    async store(key, value, options) {
      const scope = options?.scope;
      if (scope !== undefined && scope !== 'temp' && scope !== 'session') throwIfAborted(signal, provider);
      return handle.store(key, value, options);
    },
    async remember(text, options) {
      throwIfAborted(signal, provider);
      return handle.remember(text, options);
    },
    async forget(id) {
      throwIfAborted(signal, provider);
      return handle.forget(id);
    },
    readWorkingMemory: () => handle.readWorkingMemory(),
    async updateWorkingMemory(patch, options) {
      throwIfAborted(signal, provider);
      return handle.updateWorkingMemory(patch, options);
    },
  } satisfies SessionHandle);
}

/** The accessor of a turn's session, starting at `session`: every value set must be a session with the same id. */
export function turnSession(session: Session): SessionAccessor {
  let current = session;
  return {
    get: () => current,
    set(next: Session): void {
      if (!Session.is(next) || next.id !== session.id)
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          `The turn's session can only be replaced by session ${session.id}`,
        );
      current = next;
    },
  };
}
