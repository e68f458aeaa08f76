/**
 * `Session`: an immutable conversation (Coreason's SessionState, Penguin's Session, Magent's agent
 * assignment). Every change returns a new session with `version` bumped; nothing is ever mutated.
 * @module
 */
import { ChatstateError, InvalidInputError, describeIssues, errorMessage } from '../errors.js';
import { deepFreeze } from '../freeze.js';
import { assertValidId, newId } from '../ids.js';
import { Message, type MessageInput } from '../message/message.js';
import type { Category, JsonObject, JsonValue } from '../message/schema.js';
import { resolvePrunePolicy, type PrunePolicy, type SyncPrunePolicy } from '../compaction/policy.js';
import type { CompactionResult, Compactor, Strategy, SyncCompactor, SyncStrategy } from '../compaction/types.js';
import type { TokenCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';
import type { RecordedUsage, Usage } from '../tokens/usage.js';
import { compactionEntry, withCompactionEntry } from './compaction-log.js';
import { formatHistory, type FormatHistoryOptions } from './format-history.js';
import { MessageLog } from './message-log.js';
import { SESSION_FORMAT_VERSION, sessionJsonSchema, type SessionJson } from './schema.js';
import {
  RESERVED_KEYS,
  checkJsonRecord,
  checkOwner,
  checkUsage,
  checkVariableNames,
  checkVariableValue,
  invalidSession,
  keepsPrefix,
} from './session-checks.js';
import { historyStats, type HistoryStats } from './stats.js';

/** What `Session.create` accepts. */
export interface SessionInit {
  /** Defaults to a new unique id. */
  id?: string;
  agentId?: string;
  userId?: string;
  messages?: ReadonlyArray<Message | MessageInput>;
  variables?: Readonly<Record<string, JsonValue>>;
  metadata?: JsonObject;
}

interface SessionFields {
  id: string;
  agentId?: string;
  userId?: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  log: MessageLog;
  variables: Readonly<Record<string, JsonValue>>;
  metadata: JsonObject;
  lastUsage?: RecordedUsage;
}

/** Options of `compact` and `prune`. */
export interface CompactOptions {
  /** Counter for token budgets. @default tokens.estimate */
  counter?: TokenCounter;
  /** Skip the trigger and compact now. @default false */
  force?: boolean;
  /** Stops a compaction that calls out (a summarizer's model call): it then reports its error and changes nothing. */
  signal?: AbortSignal;
}

/** A compacted session and the report of what changed. */
export interface SessionCompaction {
  readonly session: Session;
  readonly result: CompactionResult | undefined;
}

// Records a session already froze (its variables, its metadata): the next version reuses them
// instead of copying and walking them again on every change.
const frozenRecords = new WeakSet<object>();

/** `record` when a session froze it already, else a deep-frozen copy (the caller's object stays as it was). */
function ownFrozen<T extends object>(record: T): T {
  if (frozenRecords.has(record)) return record;
  const frozen = deepFreeze({ ...record });
  frozenRecords.add(frozen);
  return frozen;
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<T>).then === 'function';
}

function isStrategy(value: unknown): value is Strategy {
  return typeof value === 'object' && value !== null && typeof (value as Strategy).compact === 'function';
}

/** An immutable conversation session. */
export class Session {
  readonly id: string;
  /** The agent this session is assigned to (persisted: it picks the model and prompt of later turns). */
  readonly agentId?: string;
  /** The user who owns this session. */
  readonly userId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Bumped by every change; stores use it for optimistic concurrency. */
  readonly version: number;
  /** The history as a frozen array (built on first use from `history`, then kept). */
  declare readonly messages: readonly Message[];
  /**
   * The history as a persistent sequence: `length` and `at(i)` without building an array, and
   * shared with the sessions this one extends, so a turn on a long session costs what it adds.
   */
  readonly history: MessageLog;
  /** Arbitrary JSON state variables (Coreason). */
  readonly variables: Readonly<Record<string, JsonValue>>;
  readonly metadata: JsonObject;
  /** Usage measured by the last model call, tied to the prefix of `messages` it measured. */
  readonly lastUsage?: RecordedUsage;
  // Only sessions this constructor made carry it: a look-alike built on the prototype (which
  // `instanceof` accepts) holds fields nothing checked, and a store must not write them.
  readonly #made = true;

  private constructor(fields: SessionFields) {
    this.id = fields.id;
    if (fields.agentId !== undefined) this.agentId = fields.agentId;
    if (fields.userId !== undefined) this.userId = fields.userId;
    this.createdAt = fields.createdAt;
    this.updatedAt = fields.updatedAt;
    this.version = fields.version;
    const log = fields.log;
    this.history = log;
    // An own enumerable property, as before, so that equality checks and spreads still see it.
    Object.defineProperty(this, 'messages', { enumerable: true, get: () => log.toArray() });
    this.variables = ownFrozen(fields.variables);
    this.metadata = ownFrozen(fields.metadata);
    if (fields.lastUsage !== undefined) this.lastUsage = Object.freeze({ ...fields.lastUsage });
    Object.freeze(this);
  }

  /** A new empty (or pre-filled) session at version 0. */
  static create(init: SessionInit = {}): Session {
    const now = new Date().toISOString();
    return new Session({
      id: init.id === undefined ? newId('ses') : assertValidId(init.id, 'session id'),
      agentId: checkOwner(init.agentId, 'agentId'),
      userId: checkOwner(init.userId, 'userId'),
      createdAt: now,
      updatedAt: now,
      version: 0,
      log: MessageLog.of(Object.freeze((init.messages ?? []).map((message) => Message.from(message)))),
      variables:
        init.variables === undefined
          ? {}
          : (checkVariableNames(init.variables), checkJsonRecord(init.variables, 'variables')),
      metadata: init.metadata === undefined ? {} : checkJsonRecord(init.metadata, 'metadata'),
    });
  }

  /** True when `value` is a `Session` this class made (and so checked); false for a look-alike on its prototype. */
  static is(value: unknown): value is Session {
    return typeof value === 'object' && value !== null && #made in value;
  }

  /** Validates serialized data (an object or JSON text) and rebuilds the session; throws `INVALID_SESSION`. */
  static fromJSON(json: unknown): Session {
    let data: unknown = json;
    if (typeof json === 'string') {
      try {
        data = JSON.parse(json);
      } catch (error) {
        throw new InvalidInputError('INVALID_SESSION', 'Invalid session: not JSON', { cause: error });
      }
    }
    let parsed: ReturnType<typeof sessionJsonSchema.safeParse>;
    try {
      checkVariableNames((data as { variables?: unknown } | null)?.variables);
      parsed = sessionJsonSchema.safeParse(data);
    } catch (error) {
      if (ChatstateError.isInstance(error)) throw error;
      // A getter or a Proxy trap of the data threw (its JSON values are read by `readJson`, which never throws).
      throw new InvalidInputError('INVALID_SESSION', `Invalid session: it could not be read (${errorMessage(error)})`, {
        cause: error,
      });
    }
    if (!parsed.success) throw invalidSession(describeIssues(parsed.error.issues));
    const value = parsed.data;
    if (value.formatVersion > SESSION_FORMAT_VERSION) {
      throw new InvalidInputError(
        'INVALID_SESSION',
        `Invalid session: formatVersion ${value.formatVersion} is newer than this library reads (${SESSION_FORMAT_VERSION})`,
        { details: { formatVersion: value.formatVersion } },
      );
    }
    const messages = value.messages.map((raw, index) => {
      try {
        return Message.is(raw) ? raw : Message.create(raw as MessageInput);
      } catch (error) {
        throw new InvalidInputError(
          'INVALID_SESSION',
          `Invalid session: message ${index}: ${(error as Error).message}`,
          {
            cause: error,
            details: { index },
          },
        );
      }
    });
    // Frozen here, so the log keeps this array instead of copying it.
    return new Session({ ...value, log: MessageLog.of(Object.freeze(messages)) });
  }

  private next(changes: Partial<SessionFields>): Session {
    return new Session({
      ...this.fields(),
      ...changes,
      version: this.version + 1,
      updatedAt: new Date().toISOString(),
    });
  }

  private fields(): SessionFields {
    const fields: SessionFields = {
      id: this.id,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      version: this.version,
      log: this.history,
      variables: this.variables,
      metadata: this.metadata,
    };
    if (this.agentId !== undefined) fields.agentId = this.agentId;
    if (this.userId !== undefined) fields.userId = this.userId;
    if (this.lastUsage !== undefined) fields.lastUsage = this.lastUsage;
    return fields;
  }

  /** A new session with `messages` appended (validated; plain objects go through `Message.create`). */
  append(...messages: ReadonlyArray<Message | MessageInput>): Session {
    if (messages.length === 0) return this;
    return this.next({ log: this.history.append(messages.map((message) => Message.from(message))) });
  }

  /**
   * This session's id, owner and state over `messages` at `version`: how a store or manager rebuilds
   * the value it has just written, without validating every message again (each must already be a
   * `Message` value, which is checked). `names` gives it the id and user it goes by in another
   * view of a store (a tenant's names, see `tenantStore`); without it they stay. Throws
   * `INVALID_ARGUMENT` (or `INVALID_ID`) otherwise.
   */
  withStored(stored: {
    readonly messages: readonly Message[] | MessageLog;
    readonly version: number;
    readonly updatedAt?: string;
    readonly names?: { readonly id: string; readonly userId?: string };
  }): Session {
    const { messages, version } = stored;
    let log: MessageLog;
    try {
      log = MessageLog.is(messages) ? messages : MessageLog.of(messages);
    } catch (error) {
      throw new InvalidInputError('INVALID_ARGUMENT', 'Session.withStored needs an array of Message values', {
        cause: error,
      });
    }
    if (!Number.isSafeInteger(version) || version < 0)
      throw new InvalidInputError('INVALID_ARGUMENT', 'Session.withStored needs a non-negative integer version');
    const updatedAt = stored.updatedAt ?? new Date().toISOString();
    if (typeof updatedAt !== 'string' || Number.isNaN(Date.parse(updatedAt)))
      throw new InvalidInputError('INVALID_ARGUMENT', 'Session.withStored needs an ISO-8601 updatedAt');
    const fields = this.fields();
    if (stored.names !== undefined) {
      fields.id = assertValidId(stored.names.id, 'session id');
      const userId = checkOwner(stored.names.userId, 'userId');
      if (userId === undefined) delete fields.userId;
      else fields.userId = userId;
    }
    return new Session({ ...fields, log, version, updatedAt });
  }

  /** A new session whose history is `messages` (used after compaction or editing). */
  withMessages(messages: ReadonlyArray<Message | MessageInput>): Session {
    const next = messages.map((message) => Message.from(message));
    // Measured usage describes a prefix of the old history; it only applies while that prefix is unchanged.
    const usage = this.lastUsage;
    return this.withHistory(next, usage !== undefined && keepsPrefix(next, this.messages, usage.messageCount));
  }

  /**
   * A new session with the history a compaction produced, its entry added to the compaction log
   * (`metadata.compactions`: where it cut, the strategy, tokens by category before and after,
   * counted with `counter`); this session itself when the report says nothing changed.
   */
  withCompaction(result: CompactionResult, counter: TokenCounter = estimate): Session {
    if (!result.compacted) return this;
    // A custom strategy may return anything: what is not a message made by Message.create is validated
    // (the built-ins return messages, so this is one WeakSet lookup each and the array is shared).
    const next = result.messages.every((message) => Message.is(message))
      ? result.messages
      : result.messages.map((message) => Message.from(message));
    const entry = compactionEntry(this.messages, next, result.strategy, counter);
    const usage = this.lastUsage;
    return this.withHistory(
      next,
      usage !== undefined && keepsPrefix(next, this.messages, usage.messageCount),
      withCompactionEntry(this.metadata, entry),
    );
  }

  /** The next version with history `messages` (already validated), keeping the measured usage or not. */
  private withHistory(messages: readonly Message[], keepUsage: boolean, metadata?: JsonObject): Session {
    const fields = this.fields();
    if (!keepUsage) delete fields.lastUsage;
    return new Session({
      ...fields,
      ...(metadata === undefined ? {} : { metadata }),
      log: MessageLog.of(messages),
      version: this.version + 1,
      updatedAt: new Date().toISOString(),
    });
  }

  /** A new session assigned to agent `agentId` (`undefined` removes the assignment). */
  withAgent(agentId: string | undefined): Session {
    const next = this.next({ agentId: checkOwner(agentId, 'agentId') });
    return next;
  }

  /** A new session owned by user `userId`. */
  withUser(userId: string | undefined): Session {
    return this.next({ userId: checkOwner(userId, 'userId') });
  }

  /** A new session with variable `key` set to the JSON value `value` (`undefined` removes it). */
  withVariable(key: string, value: JsonValue | undefined): Session {
    if (typeof key !== 'string' || key.length === 0 || key.length > 256 || RESERVED_KEYS.has(key)) {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `Invalid variable name ${JSON.stringify(String(key).slice(0, 80))}`,
      );
    }
    const variables: Record<string, JsonValue> = { ...this.variables };
    if (value === undefined) {
      delete variables[key];
    } else {
      variables[key] = checkVariableValue(key, value);
    }
    return this.next({ variables });
  }

  /** A new session with `patch` merged into its metadata. */
  withMetadata(patch: JsonObject): Session {
    return this.next({ metadata: { ...this.metadata, ...checkJsonRecord(patch, 'metadata') } });
  }

  /** A new session recording the usage the provider reported for a prompt made of the current messages. */
  withUsage(usage: Usage): Session {
    return this.next({ lastUsage: { ...checkUsage(usage), messageCount: this.history.length } });
  }

  /** Messages of one category, in order. */
  byCategory(category: Category): readonly Message[] {
    return this.messages.filter((message) => message.category === category);
  }

  /** Messages by role and category, tokens by category, tool calls by name. */
  stats(counter: TokenCounter = estimate): HistoryStats {
    return historyStats(this.messages, counter);
  }

  /** Total tokens of the history by `counter`. */
  tokenCount(counter: TokenCounter = estimate): number {
    let total = 0;
    const history = this.history;
    for (let i = 0; i < history.length; i++) total += counter.countMessage(history.at(i) as Message);
    return total;
  }

  /** A readable `[ROLE] text` transcript. */
  formatHistory(options?: FormatHistoryOptions): string {
    return formatHistory(this.messages, options);
  }

  /**
   * Applies a compactor (its trigger first, unless `force`) or a plain strategy and returns the new
   * session with the report. An unchanged history returns this same session.
   */
  compact(
    compactor: SyncCompactor | SyncStrategy,
    options?: CompactOptions,
  ): { session: Session; result: CompactionResult | undefined };
  compact(compactor: Compactor | Strategy, options?: CompactOptions): Promise<SessionCompaction> | SessionCompaction;
  compact(
    compactor: Compactor | Strategy,
    options: CompactOptions = {},
  ): Promise<SessionCompaction> | SessionCompaction {
    const input = {
      messages: this.messages,
      counter: options.counter ?? estimate,
      ...(this.lastUsage === undefined ? {} : { lastUsage: this.lastUsage }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    const trigger = (compactor as Partial<Compactor>).shouldCompact;
    if (options.force !== true && typeof trigger === 'function' && !trigger.call(compactor, input)) {
      return { session: this, result: undefined };
    }
    const apply = (result: CompactionResult): SessionCompaction => ({
      session: this.withCompaction(result, input.counter),
      result,
    });
    const outcome = compactor.compact(input);
    // Any thenable, not only a native Promise: a custom strategy may return another promise library's.
    return isPromiseLike(outcome) ? Promise.resolve(outcome).then(apply) : apply(outcome);
  }

  /**
   * Coreason's `prune`: a new session pruned by a named policy (`all`, `sliding_window`,
   * `token_buffer`, `summary`, `vector_store`) or by any compactor. Policies that need a
   * collaborator (a summarizer, an archive) throw `MISSING_COLLABORATOR` without it.
   */
  prune(policy: SyncPrunePolicy | SyncCompactor | SyncStrategy, options?: CompactOptions): Session;
  prune(policy: PrunePolicy | Compactor | Strategy, options?: CompactOptions): Session | Promise<Session>;
  prune(policy: PrunePolicy | Compactor | Strategy, options: CompactOptions = {}): Session | Promise<Session> {
    const compactor = isStrategy(policy) ? policy : resolvePrunePolicy(policy);
    const outcome = this.compact(compactor, options);
    if (outcome instanceof Promise) {
      return outcome.then((done) => {
        if (done.result?.error !== undefined) throw done.result.error;
        return done.session;
      });
    }
    if (outcome.result?.error !== undefined) throw outcome.result.error;
    return outcome.session;
  }

  /** The JSON form (with `formatVersion`), readable by `Session.fromJSON`. */
  toJSON(): SessionJson & { formatVersion: number } {
    return sessionJson(this, this.messages);
  }
}

/**
 * The JSON form of `session` with `messages` as its history: `toJSON` gives the session's own;
 * a check of its state alone gives `[]` and never builds the history's array.
 */
export function sessionJson(session: Session, messages: readonly unknown[]): SessionJson & { formatVersion: number } {
  const json: SessionJson & { formatVersion: number } = {
    formatVersion: SESSION_FORMAT_VERSION,
    id: session.id,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    version: session.version,
    messages: messages as unknown[],
    variables: session.variables as Record<string, JsonValue>,
    metadata: session.metadata,
  };
  if (session.agentId !== undefined) json.agentId = session.agentId;
  if (session.userId !== undefined) json.userId = session.userId;
  if (session.lastUsage !== undefined) json.lastUsage = { ...session.lastUsage };
  return json;
}
