/**
 * ✱ `SessionManager` (Penguin): an LRU of sessions over a `SessionStore`, with dirty tracking,
 * auto-save, session boundaries and automatic continuation, chains and forks — and the end of a
 * turn (`runTurn`: commit → compact → continue), which every caller that runs turns goes through.
 *
 * Appends go straight to the store (durable when they resolve, cost independent of the session's
 * size) and update the cached copy. Other changes (`update`, compaction) are local until `save`,
 * `flush`, the auto-save interval, eviction or `close` writes them with `expectedVersion`; after a
 * `CONFLICT` they are replayed on the newer stored copy, so another writer's messages are never
 * overwritten. A clean cached session is served only while the store still holds its version
 * (`freshness`: a head read per access by default, or the store's change feed), so another
 * process's write is never hidden behind the cache.
 * @module
 */
import { EventEmitter } from 'node:events';
import {
  ChatstateError,
  ClosedError,
  ConflictError,
  InvalidInputError,
  NotFoundError,
  errorMessage,
} from '../errors.js';
import { assertValidId, isValidId } from '../ids.js';
import { Message, type MessageInput } from '../message/message.js';
import { Session, type SessionInit } from '../session/session.js';
import { noSessionError } from '../store/driver-helpers.js';
import { linksOfMetadata, type SessionLinks } from '../store/links.js';
import { receiptOf } from '../store/forget.js';
import type { ForgetReceipt, ListQuery, SessionStore, SessionSummary } from '../store/session-store-types.js';
import { appendAlongChain, type AppendHost, type ManagerAppendResult } from './append.js';
import { chainStatsOf, type ChainStats } from './chain.js';
import { checkChange, commitChange, type CheckedChange, type SessionChange } from './commit.js';
import { compactSession } from './compact-after-answer.js';
import {
  continuationIndexOf,
  continuationMakesProgress,
  forkOf,
  hasOpenToolExchange,
  linkTarget,
  linkToSuccessor,
  successorOf,
} from './continuation.js';
import type { ManagerErrorContext, SaveReason, SessionManagerEvents } from './events.js';
import { recordFork, unrecordFork, type ForkOptions, type ForkResult } from './fork.js';
import { Freshness } from './freshness.js';
import { KeyedLock } from '../internal/keyed-lock.js';
import { ManagedSessions, checkUpdated, type Entry, type SessionUpdater } from './managed-sessions.js';
import { resolveManagerOptions, type ResolvedManagerOptions, type SessionManagerOptions } from './options.js';
import { resolveTurnOptions, runTurnOn, type TurnEnd, type TurnHost, type TurnOptions, type TurnWork } from './turn.js';

export type { ForkOptions, ForkResult } from './fork.js';

/** The links of a stored session (`undefined` when there is none). */
function linksOfStored(session: Session | undefined): SessionLinks | undefined {
  return session === undefined ? undefined : linksOfMetadata(session.metadata);
}

/** The error of every call after `close()`. */
function managerClosed(): ClosedError {
  return new ClosedError('SessionManager: the manager is closed', { details: { manager: 'SessionManager' } });
}

/** ✱ Sessions over a store: cache, auto-save, continuation, recovery events, and the end of every turn (`runTurn`). */
export class SessionManager extends EventEmitter<SessionManagerEvents> {
  /** The store sessions are kept in. */
  readonly store: SessionStore;
  /** Messages at which a session is at its boundary. */
  readonly maxMessagesPerSession: number;
  /** Sessions kept in memory. */
  readonly maxSessionsInMemory: number;
  private readonly options: ResolvedManagerOptions;
  private readonly sessions: ManagedSessions;
  private readonly freshness: Freshness;
  private readonly inFlight = new Set<Promise<unknown>>();
  // Turns of one session run one after another in this process: the second sees the first's answer.
  private readonly turns = new KeyedLock();
  private readonly turnHost: TurnHost = {
    load: (id) => this.loadUntracked(id),
    commit: (base, change) => this.commitChecked(base, change),
    continueIfFull: (id) => this.continueIfFull(id),
    compacted: (sessionId, result) => this.publish('compacted', { sessionId, result }),
  };
  private readonly appendHost: AppendHost;
  private timer: NodeJS.Timeout | undefined;
  private autoSaving = false;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | undefined;

  constructor(options: SessionManagerOptions) {
    super();
    this.options = resolveManagerOptions(options);
    this.store = this.options.store;
    this.maxMessagesPerSession = this.options.maxMessagesPerSession;
    this.maxSessionsInMemory = this.options.maxSessionsInMemory;
    this.freshness = new Freshness(this.store, this.options.freshness);
    this.sessions = new ManagedSessions(
      this.store,
      this.maxSessionsInMemory,
      {
        saved: (session, reason) => this.publish('saved', { session, reason }),
        recovered: (session, recoveredFrom, notices) => this.publish('recovered', { session, recoveredFrom, notices }),
        failed: (error, context) => this.reportError(error, context),
      },
      this.freshness,
    );
    this.appendHost = {
      sessions: this.sessions,
      continuable: (session) => this.continuable(session),
      continueLocked: (entry) => this.continueLocked(entry),
      compactAppended: (entry) => this.compactAppended(entry),
    };
    if (this.options.autoSaveIntervalMs !== false) {
      this.timer = setInterval(() => void this.autoSave(), this.options.autoSaveIntervalMs);
      // A pending auto-save must never keep a process alive: `close()` or `flush()` saves for good.
      this.timer.unref();
    }
  }

  /** Ids of the cached sessions, least recently used first. */
  get cachedIds(): string[] {
    return this.sessions.ids;
  }

  /** True when session `id` is cached with changes not stored yet. */
  isDirty(id: string): boolean {
    return this.sessions.isDirty(id);
  }

  /** Creates and stores a new session (`CONFLICT` when `init.id` is taken). */
  async create(init: SessionInit = {}): Promise<Session> {
    return this.track(async () => {
      const session = Session.create(init);
      return this.storeNew(session, 'create');
    });
  }

  /** The session as the manager holds it (cached, else loaded); `NOT_FOUND` when there is none. */
  async load(id: string): Promise<Session> {
    return this.track(async () => this.loadUntracked(assertValidId(id, 'session id')));
  }

  /**
   * Stores a session. With an id: writes its local changes, if any. With a `Session`: writes that
   * value, which must be newer than the manager's copy (`CONFLICT` for a stale value: use `update`
   * to change a managed session safely). Returns the session as stored.
   */
  async save(target: Session | string): Promise<Session> {
    return this.track(async () => {
      const id = this.idOf(target, 'save');
      const saved = await this.sessions.locks.run(id, async () => {
        if (typeof target !== 'string') return this.sessions.saveValue(target);
        const entry = await this.sessions.entryOf(id);
        return entry.pending.length > 0 ? this.sessions.persist(entry, 'save') : entry.session;
      });
      await this.sessions.evictOverflow();
      return saved;
    });
  }

  /**
   * Applies a local change to the managed copy of session `id`, marking it dirty; it is stored by
   * `save`, `flush`, auto-save, eviction or `close`. `updater` must be pure: after a `CONFLICT` it
   * runs again on the newer stored copy. It runs while the session is locked, so it must not call
   * this manager about the same session (that call would wait for it forever).
   */
  async update(id: string, updater: SessionUpdater): Promise<Session> {
    return this.track(async () => {
      assertValidId(id, 'session id');
      if (typeof updater !== 'function')
        throw new InvalidInputError('INVALID_ARGUMENT', 'SessionManager.update needs a function (session) => session');
      const session = await this.sessions.locks.run(id, async () => {
        const entry = await this.sessions.entryOf(id);
        const next = checkUpdated(await updater(entry.session), id);
        this.sessions.change(entry, next, updater);
        return next;
      });
      await this.sessions.evictOverflow();
      return session;
    });
  }

  /**
   * Appends messages durably (the store's atomic, idempotent append). A session at its boundary is
   * continued first and the messages land in the successor (`result.continuedFrom` says so); an
   * append to a session that was continued lands at the end of its chain.
   */
  async append(id: string, ...messages: Array<Message | MessageInput>): Promise<ManagerAppendResult> {
    return this.track(async () => {
      assertValidId(id, 'session id');
      // Validated before anything is written or continued.
      const result = await appendAlongChain(
        this.appendHost,
        id,
        messages.map((message) => Message.from(message)),
      );
      await this.sessions.evictOverflow();
      return result;
    });
  }

  /**
   * Stores what a turn changed on `base` (a session this manager returned, or a new one from
   * `Session.create` not stored yet): `change.messages` appended, and the variables, metadata,
   * usage and agent `change` gives. With the same agent it is ONE atomic append of the messages
   * with the new state (its cost does not grow with the session); a new session, a new agent or a
   * replaced history (`change.history`, e.g. a compaction) is one compare-and-replace. Only if the session is still `base`: when it changed — through this
   * manager or by another writer — nothing is written, the cached copy is dropped (the next `load`
   * reads the store) and `CONFLICT` is thrown. Returns the session as stored. No continuation.
   */
  async commit(base: Session, change: SessionChange): Promise<Session> {
    return this.track(async () => {
      const stored = await this.commitChecked(base, checkChange(base, change));
      await this.sessions.evictOverflow();
      return stored;
    });
  }

  /**
   * Runs one turn of session `sessionId` and ends it — the one place a turn ends, for the
   * `Conversation` and any other caller that runs turns. The turn runs on the end of the chain
   * `sessionId` starts (a new session when there is none; `options.userId` must own it); `work`
   * (the caller's model call and tools) gets that session and returns `{ value, change? }`. The
   * change is committed as `commit` does (one atomic write, only if the session is still the one
   * `work` read, else `CONFLICT`); then, after a final answer, the session is compacted and the
   * compaction stored with `expectedVersion` (its failure is reported, never thrown); then, with
   * `continueAtBoundary`, a session the turn filled is continued. Whatever `work` throws fails the
   * turn, storing nothing. Turns of one id run one after another (so `work` must not start another
   * turn of the same id: it would wait for itself).
   */
  async runTurn<T>(sessionId: string, work: TurnWork<T>, options: TurnOptions = {}): Promise<TurnEnd<T>> {
    return this.track(async () => {
      assertValidId(sessionId, 'session id');
      if (typeof work !== 'function')
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          'SessionManager.runTurn needs a function (base, context) => { value, change? }',
        );
      const resolved = resolveTurnOptions(options, this.options);
      const end = await this.turns.run(sessionId, () => runTurnOn(this.turnHost, sessionId, work, resolved));
      await this.sessions.evictOverflow();
      return end;
    });
  }

  /** Sessions in the store, newest activity first (local changes not saved yet are not reflected). */
  async list(query?: ListQuery): Promise<SessionSummary[]> {
    return this.track(() => this.store.list(query));
  }

  /**
   * Deletes a session from the cache (dropping unsaved changes) and the store; false when the store
   * had none. A deleted fork then leaves its source's `metadata.forks` (written with
   * `expectedVersion`, replayed on a newer copy after a `CONFLICT`, retried); a source that is gone
   * is left alone, and a failure is reported as an `error` event (`unlink-fork`): the delete stands.
   */
  async delete(id: string): Promise<boolean> {
    return this.track(async () => {
      assertValidId(id, 'session id');
      const { deleted, source } = await this.sessions.locks.run(id, async () => {
        // Read first: once the fork is deleted nothing says where it came from.
        const source = await this.forkSourceOf(id);
        this.sessions.drop(id);
        return { deleted: await this.store.delete(id), source };
      });
      if (deleted && source !== undefined) {
        const outcome = await unrecordFork(this.sessions, source, id);
        if (outcome.outcome === 'failed')
          this.reportError(outcome.error, { operation: 'unlink-fork', sessionId: source });
        await this.sessions.evictOverflow();
      }
      return deleted;
    });
  }

  /**
   * Forgets user `userId` (see `SessionStore.forgetUser`): their cached sessions are dropped
   * first, unsaved changes with them (an auto-save must not write a forgotten session back), then
   * the store removes the rest; the receipt counts the dropped copies as `cached`.
   */
  async forgetUser(userId: string): Promise<ForgetReceipt> {
    return this.track(async () => {
      const dropOwned = async (): Promise<number> => {
        let dropped = 0;
        for (const id of this.sessions.ids) {
          await this.sessions.locks.run(id, async () => {
            if (this.sessions.ownerOf(id) !== userId) return;
            this.sessions.drop(id);
            dropped += 1;
          });
        }
        return dropped;
      };
      const before = await dropOwned();
      const receipt = await this.store.forgetUser(userId);
      // A load that ran meanwhile may have cached one again before the store removed it.
      const after = await dropOwned();
      return receiptOf(
        receipt.userId,
        { ...receipt.removed, cached: receipt.removed.cached + before + after },
        Date.parse(receipt.at),
      );
    });
  }

  /** True when `session` holds `maxMessagesPerSession` messages or more. */
  checkBoundary(session: Session): boolean {
    if (!Session.is(session))
      throw new InvalidInputError('INVALID_SESSION', 'SessionManager.checkBoundary needs a Session');
    return session.history.length >= this.maxMessagesPerSession;
  }

  /**
   * Continues a session (the manager's copy of it) now: stores a successor carrying its system and context messages (new ids,
   * earlier transition markers left out) and one transition marker, links the two
   * (`continuedFrom`, `continuedTo`, `continuationIndex`), and returns the successor.
   * `CONFLICT` when the session was already continued.
   */
  async continueSession(target: Session | string): Promise<Session> {
    return this.track(async () => {
      const id = this.idOf(target, 'continueSession');
      const successor = await this.sessions.locks.run(id, async () =>
        this.continueLocked(await this.sessions.entryOf(id)),
      );
      await this.sessions.evictOverflow();
      return successor;
    });
  }

  /** Message and token totals across the chain of session `id`, root first. */
  async chainStats(id: string): Promise<ChainStats> {
    return this.track(async () => {
      assertValidId(id, 'session id');
      const start = await this.sessions.view(id);
      if (start === undefined) throw noSessionError('SessionManager', id);
      return chainStatsOf(start, (link) => this.sessions.view(link), this.options.counter);
    });
  }

  /**
   * A new session holding the history of `sessionId` up to and including `atMessageId`, with
   * `metadata.forkedFrom = { sessionId, messageId, seq }`, stored by one `save` (the source's
   * journal is not copied). Then the source records the fork in its `metadata.forks` (the newest
   * `MAX_FORK_ENTRIES`), written with `expectedVersion` and replayed on a newer copy after a
   * `CONFLICT`, with the source's local changes, if any. That second write is retried; when it
   * still fails the fork stays stored and the result says so (`recorded: false` and the error).
   * `NOT_FOUND` for an unknown message.
   */
  async fork(sessionId: string, options: ForkOptions): Promise<ForkResult> {
    return this.track(async () => {
      assertValidId(sessionId, 'session id');
      if (typeof options !== 'object' || options === null || typeof options.atMessageId !== 'string') {
        throw new InvalidInputError('INVALID_ARGUMENT', 'SessionManager.fork needs { atMessageId: string }');
      }
      const forkId = options.id === undefined ? undefined : assertValidId(options.id, 'fork id');
      const source = await this.loadUntracked(sessionId);
      const index = source.messages.findIndex((message) => message.id === options.atMessageId);
      if (index < 0) {
        throw new NotFoundError(
          `SessionManager: session ${JSON.stringify(sessionId)} has no message ${JSON.stringify(options.atMessageId.slice(0, 80))}`,
          {
            details: { sessionId },
          },
        );
      }
      const fork = await this.storeNew(forkOf(source, index, forkId === undefined ? {} : { id: forkId }), 'fork');
      const at = source.messages[index] as Message;
      const outcome = await recordFork(this.sessions, sessionId, {
        sessionId: fork.id,
        messageId: at.id,
        ...(at.seq === undefined ? {} : { seq: at.seq }),
        createdAt: fork.createdAt,
      });
      await this.sessions.evictOverflow();
      return { session: fork, ...outcome };
    });
  }

  /** Saves every dirty session; throws the failure (an `AggregateError` for several) after trying them all. */
  async flush(): Promise<void> {
    return this.track(() => this.sessions.flush('flush'), { whileClosing: true });
  }

  /**
   * Stops auto-save, waits for running operations, saves every dirty session, and closes the store
   * when `ownsStore`. When a save fails it throws and stays closing: calling `close()` again retries.
   */
  async close(): Promise<void> {
    this.closing ??= this.closeOnce().catch((error: unknown) => {
      this.closing = undefined;
      throw error;
    });
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closing';
    if (this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.sessions.flush('close');
    this.freshness.close();
    if (this.options.ownsStore) await this.store.close();
    this.sessions.clear();
    this.state = 'closed';
  }

  // ——— internals ———

  private track<T>(work: () => Promise<T>, { whileClosing = false } = {}): Promise<T> {
    if (this.state === 'closed' || (this.state === 'closing' && !whileClosing)) {
      throw managerClosed();
    }
    const promise = work();
    this.inFlight.add(promise);
    const forget = (): void => {
      this.inFlight.delete(promise);
    };
    promise.then(forget, forget);
    return promise;
  }

  /** The session as the manager holds it (cached, else loaded); `NOT_FOUND` when there is none. */
  private async loadUntracked(id: string): Promise<Session> {
    const session = await this.sessions.locks.run(id, async () => (await this.sessions.entryOf(id)).session);
    await this.sessions.evictOverflow();
    return session;
  }

  /** Stores a checked change over `base` under the session's lock (see `commit`). */
  private async commitChecked(base: Session, change: CheckedChange): Promise<Session> {
    assertValidId(base.id, 'session id');
    const context = {
      sessions: this.sessions,
      store: this.store,
      saved: (session: Session, reason: SaveReason) => this.publish('saved', { session, reason }),
    };
    return this.sessions.locks.run(base.id, () => commitChange(context, base, change));
  }

  /**
   * True when `session` is at its boundary and continuing it helps: not in the middle of a tool
   * exchange (the results would land apart from their call), and not when the successor would
   * carry everything (it would be at its boundary again: a loop).
   */
  private continuable(session: Session): boolean {
    return this.checkBoundary(session) && continuationMakesProgress(session) && !hasOpenToolExchange(session);
  }

  /** Continues session `id` when it is `continuable`; the successor's id, else `undefined`. */
  private async continueIfFull(id: string): Promise<string | undefined> {
    return this.sessions.locks.run(id, async () => {
      const entry = await this.sessions.entryOf(id);
      return this.continuable(entry.session) ? (await this.continueLocked(entry)).id : undefined;
    });
  }

  private idOf(target: Session | string, method: string): string {
    if (Session.is(target)) return target.id;
    if (typeof target !== 'string')
      throw new InvalidInputError('INVALID_ARGUMENT', `SessionManager.${method} needs a Session or a session id`);
    return assertValidId(target, 'session id');
  }

  /** The session stored session `id` was forked from (its `metadata.forkedFrom`), if it names one that can be. */
  private async forkSourceOf(id: string): Promise<string | undefined> {
    const links =
      typeof this.store.summary === 'function' ? await this.store.summary(id) : linksOfStored(await this.store.get(id));
    const source = links?.forkedFrom?.sessionId;
    return source !== undefined && source !== id && isValidId(source) ? source : undefined;
  }

  /** Stores a session that must not exist yet (`CONFLICT` otherwise) and caches it. */
  private async storeNew(session: Session, reason: 'create' | 'fork'): Promise<Session> {
    const stored = await this.sessions.locks.run(session.id, async () => {
      const saved = await this.store.save(session, { expectedVersion: 0 });
      this.sessions.adopt(saved);
      this.publish('saved', { session: saved, reason });
      return saved;
    });
    await this.sessions.evictOverflow();
    return stored;
  }

  /** The manager's compactor after an append that ended with a final answer: a local change, stored by the next save. */
  private async compactAppended(entry: Entry): Promise<void> {
    const compactor = this.options.compactor;
    if (compactor === undefined) return;
    const sessionId = entry.session.id;
    const options = { counter: this.options.counter };
    const { session, result } = await compactSession(entry.session, compactor, options);
    // The append is stored; a failed compaction only leaves the history long.
    if (result?.error !== undefined) this.reportError(result.error, { operation: 'compact', sessionId });
    if (result === undefined || !result.compacted) return;
    this.sessions.change(entry, session, async (newer) => (await compactSession(newer, compactor, options)).session);
    this.publish('compacted', { sessionId, result });
  }

  /** Continues the session of `entry` (whose lock the caller holds). */
  private async continueLocked(entry: Entry): Promise<Session> {
    const id = entry.session.id;
    const existing = linkTarget(entry.session, 'continuedTo');
    if (existing !== undefined) {
      throw new ConflictError(
        `SessionManager: session ${JSON.stringify(id)} was already continued to ${JSON.stringify(existing)}`,
        {
          details: { id, continuedTo: existing },
        },
      );
    }
    // Local changes first, so that a CONFLICT below replays only the link.
    if (entry.pending.length > 0) await this.sessions.persist(entry, 'continue');
    // The successor is stored before the link: a crash in between leaves a successor that points
    // back to its source, never a source pointing to nothing.
    const successor = await this.store.save(successorOf(entry.session), { expectedVersion: 0 });
    const link = (session: Session): Session => linkToSuccessor(session, successor.id);
    try {
      await this.sessions.persist(entry, 'continue', { session: link(entry.session), pending: [link] });
    } catch (error) {
      // The source could not be linked (another writer continued it first): remove the orphan so a
      // chain never branches. If even that fails, the orphan only points back; the error says why.
      await this.store.delete(successor.id).catch(() => false);
      throw error;
    }
    this.sessions.adopt(successor);
    this.publish('saved', { session: successor, reason: 'continue' });
    this.publish('continued', { from: id, session: successor, continuationIndex: continuationIndexOf(successor) });
    return successor;
  }

  private async autoSave(): Promise<void> {
    if (this.autoSaving || this.state !== 'open') return;
    this.autoSaving = true;
    try {
      await this.track(async () => {
        await Promise.all(
          this.sessions
            .dirtyIds()
            .map((id) =>
              this.sessions
                .saveIfDirty(id, 'auto-save')
                .catch((error: unknown) => this.reportError(error, { operation: 'auto-save', sessionId: id })),
            ),
        );
      });
    } finally {
      this.autoSaving = false;
    }
  }

  private publish<K extends 'saved' | 'recovered' | 'continued' | 'compacted'>(
    event: K,
    payload: SessionManagerEvents[K][0],
  ): void {
    try {
      // One payload per event; the typed overloads of EventEmitter cannot follow a generic key.
      (this.emit as (event: K, payload: SessionManagerEvents[K][0]) => boolean)(event, payload);
    } catch (error) {
      // A listener's bug must not turn a completed write into a reported failure.
      this.reportError(error, { operation: 'listener' });
    }
  }

  /**
   * Reports a failure of background work as an `error` event. Without a listener it becomes a
   * process warning: an `error` event nobody listens to would throw from a timer and crash the process.
   */
  private reportError(error: unknown, context: ManagerErrorContext): void {
    const failure =
      error instanceof Error ? error : new ChatstateError('INTERNAL', errorMessage(error), { cause: error });
    if (this.listenerCount('error') > 0) {
      try {
        this.emit('error', failure, context);
        return;
      } catch {
        // An error listener that throws: fall through to the warning.
      }
    }
    const where = context.sessionId === undefined ? '' : ` of ${context.sessionId}`;
    process.emitWarning(`SessionManager: ${context.operation}${where} failed: ${failure.message}`, {
      code: 'CHATSTATE_MANAGER',
    });
  }
}
