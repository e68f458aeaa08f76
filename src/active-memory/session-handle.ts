/**
 * `createSessionHandle`: Coreason's `SessionHandle` over any `SessionStore` — history pages by
 * sequence number, scoped values, `remember`, and `recall` through a shared `RecallIndex`.
 * @module
 */
import { ChatstateError, InvalidInputError } from '../errors.js';
import { deepFreeze } from '../freeze.js';
import { assertValidId } from '../ids.js';
import type { JsonValue } from '../message/schema.js';
import { Session } from '../session/session.js';
import type { SessionStore, ValueOwner } from '../store/session-store-types.js';
import {
  MAX_HISTORY_LIMIT,
  MAX_RECALL_K,
  checkEmbedId,
  checkInteger,
  checkKey,
  checkKnowledge,
  checkOwnerId,
  checkQuery,
  checkScope,
  checkThreshold,
  checkValue,
} from './checks.js';
import { forgetFor, knowledgeSessionId, rememberFor } from './knowledge.js';
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_DATA_SOURCE_ID,
  GEN_AI_OPERATION_NAME,
  OPERATION_RETRIEVAL,
} from '../internal/gen-ai-names.js';
import { traced } from '../internal/tracing.js';
import { recallLifecycle } from './knowledge-lifecycle.js';
import type { RecallIndex } from './recall-index.js';
import { messagePage } from './message-page.js';
import type {
  Embed,
  GetValueOptions,
  HistoryOptions,
  HistoryPage,
  RecallHit,
  RecallOptions,
  RememberOptions,
  SessionHandle,
  StoreValueOptions,
} from './types.js';
import { WorkingMemory, type WorkingMemoryOptions } from './working-memory.js';

/** The in-flight session of a turn: the runtime reads and replaces it, and saves it with the turn. */
export interface SessionAccessor {
  get(): Session;
  set(next: Session): void;
}

/** Options of `createSessionHandle`. */
export interface SessionHandleOptions {
  readonly store: SessionStore;
  readonly sessionId: string;
  /** Whose values and past `recall` searches (default: the accessor's session's user). */
  readonly userId?: string;
  /** The agent of the `agent` scope (default: the accessor's session's agent). */
  readonly agentId?: string;
  /**
   * The session of the turn in flight: `session`-scope values then read and change it (saved with
   * the turn). Without it they are loaded from and saved to the store (`expectedVersion`, one retry on `CONFLICT`).
   */
  readonly session?: SessionAccessor;
  /** Values of the `temp` scope (one per turn). @default a new Map */
  readonly temp?: Map<string, JsonValue>;
  /** Adds vector ranking to `recall`. */
  readonly embed?: Embed;
  /** Names the embedding model: vectors stored under another id are recomputed, not compared. @default 'default' */
  readonly embedId?: string;
  /** The recall index to use. @default recallIndexFor(store), shared by every handle on the store */
  readonly index?: RecallIndex;
  /** The working memory's schema and size limit, and whether each agent keeps its own. */
  readonly workingMemory?: HandleWorkingMemoryOptions;
}

/** Working memory options of a handle (and of an agent). */
export interface HandleWorkingMemoryOptions extends Pick<WorkingMemoryOptions, 'schema' | 'maxBytes'> {
  /** `agent`: a memory per agent and user; `user`: one per user, shared by their agents. @default 'user' */
  readonly scope?: 'user' | 'agent';
}

/** Text candidates ranked when a lifecycle filter may drop some: enough that `k` hits remain. */
function filteredCandidates(k: number): number {
  return Math.min(1000, k * 8 + 50);
}

/** Default page size of `history`. */
const DEFAULT_HISTORY_LIMIT = 50;
/** Default number of `recall` results. */
const DEFAULT_RECALL_K = 5;

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', message);
}

/** An active-memory handle on session `sessionId` (and its user and agent). */
export function createSessionHandle(options: SessionHandleOptions): SessionHandle {
  const { store, session: accessor, embed } = options;
  if (typeof store !== 'object' || store === null || typeof store.readMessages !== 'function')
    throw invalid('createSessionHandle needs a store');
  const sessionId = assertValidId(options.sessionId, 'session id');
  let userId = checkOwnerId(options.userId, 'userId');
  let agentId = checkOwnerId(options.agentId, 'agentId');
  if (accessor !== undefined) {
    const current = accessor.get();
    if (!Session.is(current) || current.id !== sessionId)
      throw invalid(`The session accessor must give session ${sessionId}`);
    if (userId !== undefined && current.userId !== undefined && current.userId !== userId)
      throw invalid(`Session ${sessionId} belongs to another user`);
    if (agentId !== undefined && current.agentId !== undefined && current.agentId !== agentId)
      throw invalid(`Session ${sessionId} is assigned to another agent`);
    userId ??= current.userId;
    agentId ??= current.agentId;
  }
  if (embed !== undefined && typeof embed !== 'function') throw invalid('embed must be a function');
  const embedId = checkEmbedId(options.embedId);
  if (options.index !== undefined && options.index.store !== store)
    throw invalid('The recall index belongs to another store');
  // The recall index and its ranker load on first use: most handles never search, and the root
  // import stays small.
  let loaded: Promise<RecallIndex> | undefined;
  const recallIndex = (): Promise<RecallIndex> =>
    (loaded ??=
      options.index !== undefined
        ? Promise.resolve(options.index)
        : import('./recall-index.js').then(({ recallIndexFor }) => recallIndexFor(store)));
  const temp = options.temp ?? new Map<string, JsonValue>();
  const workingOptions = options.workingMemory ?? {};
  if (workingOptions.scope !== undefined && workingOptions.scope !== 'user' && workingOptions.scope !== 'agent')
    throw invalid('workingMemory.scope must be "user" or "agent"');
  let working: WorkingMemory | undefined;
  function workingMemory(): WorkingMemory {
    if (userId === undefined) throw invalid('The working memory needs a handle with a userId: it belongs to a user');
    const perAgent = workingOptions.scope === 'agent';
    if (perAgent && agentId === undefined)
      throw invalid('An agent-scoped working memory needs a handle with an agentId');
    return (working ??= new WorkingMemory({
      store,
      userId,
      ...(perAgent && agentId !== undefined ? { agentId } : {}),
      ...(workingOptions.schema === undefined ? {} : { schema: workingOptions.schema }),
      ...(workingOptions.maxBytes === undefined ? {} : { maxBytes: workingOptions.maxBytes }),
    }));
  }

  function ownerOf(scope: 'user' | 'agent' | 'app'): ValueOwner {
    switch (scope) {
      case 'app':
        return { scope: 'app' };
      case 'user':
        if (userId === undefined) throw invalid('The user scope needs a handle with a userId');
        return { scope: 'user', userId };
      case 'agent':
        if (userId === undefined || agentId === undefined)
          throw invalid('The agent scope needs a handle with a userId and an agentId');
        return { scope: 'agent', agentId, userId };
      default:
        return scope satisfies never;
    }
  }

  /** The stored session, refused when it belongs to another user than this handle's. */
  async function loadOwn(): Promise<Session | undefined> {
    const stored = await store.get(sessionId);
    if (stored?.userId !== undefined && userId !== undefined && stored.userId !== userId)
      throw invalid(`Session ${sessionId} belongs to another user`);
    return stored;
  }

  // The session's owner, checked once per handle: history reads ranges that do not say whose they are.
  let ownerChecked = accessor !== undefined || userId === undefined;
  async function checkOwner(): Promise<void> {
    if (ownerChecked) return;
    // The head alone says whose the session is: no full load before a tail read.
    const stored = await store.summary(sessionId);
    if (stored?.userId !== undefined && userId !== undefined && stored.userId !== userId)
      throw invalid(`Session ${sessionId} belongs to another user`);
    ownerChecked = true;
  }

  async function setVariable(key: string, value: JsonValue | undefined): Promise<void> {
    if (accessor !== undefined) {
      accessor.set(accessor.get().withVariable(key, value));
      return;
    }
    for (let attempt = 0; ; attempt += 1) {
      const current = await loadOwn();
      const base =
        current ??
        Session.create({
          id: sessionId,
          ...(userId === undefined ? {} : { userId }),
          ...(agentId === undefined ? {} : { agentId }),
        });
      try {
        await store.save(base.withVariable(key, value), { expectedVersion: current?.version ?? 0 });
        return;
      } catch (error) {
        // Another writer saved first: apply the change to its version, once.
        if (!ChatstateError.hasCode(error, 'CONFLICT') || attempt === 1) throw error;
      }
    }
  }

  async function getVariable(key: string): Promise<JsonValue | undefined> {
    const variables = accessor !== undefined ? accessor.get().variables : (await loadOwn())?.variables;
    return variables !== undefined && Object.hasOwn(variables, key) ? variables[key] : undefined;
  }

  const handle: SessionHandle = {
    sessionId,
    userId,
    agentId,

    async history(historyOptions: HistoryOptions = {}): Promise<HistoryPage> {
      const limit = checkInteger(historyOptions.limit, 'limit', 1, MAX_HISTORY_LIMIT, DEFAULT_HISTORY_LIMIT);
      const before = checkInteger(historyOptions.before, 'before', 0, Number.MAX_SAFE_INTEGER, -1);
      await checkOwner();
      const { messages, nextBefore } = await messagePage(store, sessionId, limit, before === -1 ? undefined : before);
      return Object.freeze({ messages: Object.freeze(messages), ...(nextBefore === undefined ? {} : { nextBefore }) });
    },

    async store(key: string, value: JsonValue | undefined, valueOptions: StoreValueOptions = {}): Promise<void> {
      const scope = checkScope(valueOptions.scope);
      const checkedKey = checkKey(key);
      const checked = value === undefined ? undefined : checkValue(checkedKey, value);
      switch (scope) {
        case 'temp':
          if (checked === undefined) temp.delete(checkedKey);
          else temp.set(checkedKey, checked);
          return;
        case 'session':
          return setVariable(checkedKey, checked);
        case 'user':
        case 'agent':
        case 'app':
          return store.values.set(ownerOf(scope), Object.fromEntries([[checkedKey, checked]]));
        default:
          return scope satisfies never;
      }
    },

    async get<T extends JsonValue = JsonValue>(
      key: string,
      valueOptions: GetValueOptions<T> = {},
    ): Promise<T | undefined> {
      const scope = checkScope(valueOptions.scope);
      const checkedKey = checkKey(key);
      let value: JsonValue | undefined;
      switch (scope) {
        case 'temp':
          value = temp.get(checkedKey);
          break;
        case 'session':
          value = await getVariable(checkedKey);
          break;
        case 'user':
        case 'agent':
        case 'app':
          value = await store.values.get(ownerOf(scope), checkedKey);
          break;
        default:
          return scope satisfies never;
      }
      // Frozen, so that a value read here cannot be changed behind the scope's back (temp and session values are shared).
      return value === undefined ? valueOptions.default : (deepFreeze(value) as T);
    },

    async recall(query: string, recallOptions: RecallOptions = {}): Promise<RecallHit[]> {
      const checkedQuery = checkQuery(query);
      const k = checkInteger(recallOptions.k, 'k', 1, MAX_RECALL_K, DEFAULT_RECALL_K);
      const threshold = checkThreshold(recallOptions.threshold);
      const knowledge = userId === undefined ? undefined : knowledgeSessionId(userId);
      // The conventions' retrieval span: what was searched and how much came back, never the query.
      return traced(
        `${OPERATION_RETRIEVAL} ${store.name}`,
        {
          attributes: () => ({
            [GEN_AI_OPERATION_NAME]: OPERATION_RETRIEVAL,
            [GEN_AI_DATA_SOURCE_ID]: store.name,
            [GEN_AI_CONVERSATION_ID]: sessionId,
            'chatstate.recall.k': k,
            'chatstate.recall.vectors': embed !== undefined,
          }),
        },
        async (span) => {
          const lifecycle = await recallLifecycle(store, knowledge, recallOptions);
          const hits = await (
            await recallIndex()
          ).recall({
            query: checkedQuery,
            k,
            threshold,
            sessionId,
            ...(userId === undefined ? {} : { userId, knowledgeSessionId: knowledge }),
            ...(embed === undefined ? {} : { embed }),
            embedId,
            ...(lifecycle === undefined ? {} : { keep: lifecycle.keep, candidates: filteredCandidates(k) }),
          });
          span.set(() => ({ 'chatstate.recall.hits': hits.length }));
          return lifecycle === undefined ? hits : hits.map((hit) => lifecycle.describe(hit));
        },
      );
    },

    async remember(text: string, rememberOptions: RememberOptions = {}): Promise<RecallHit> {
      if (userId === undefined) throw invalid('remember needs a handle with a userId: knowledge belongs to a user');
      return rememberFor(store, userId, checkKnowledge(text), rememberOptions);
    },

    async forget(id: string): Promise<void> {
      if (userId === undefined) throw invalid('forget needs a handle with a userId: knowledge belongs to a user');
      await forgetFor(store, userId, id);
      // The in-process index notices the rewrite by itself; dropping it now also frees the text at once.
      (await recallIndex()).forget(userId);
    },

    async readWorkingMemory() {
      return workingMemory().read();
    },

    async updateWorkingMemory(patch, updateOptions) {
      return workingMemory().update(patch, updateOptions);
    },
  };
  return Object.freeze(handle);
}
