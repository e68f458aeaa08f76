/**
 * The remote store: a `SessionStore` whose every call is a request to a chatstate server
 * (`chatstate serve`, or any app made by `createServerApp`), so processes on other machines — and
 * programs in other languages, through the same routes of `/openapi.json` — share one store.
 *
 * Why a `SessionStore` and not a `StoreDriver`: a driver exchanges the core's encoded records
 * (sealed when the store encrypts at rest), and the server keeps those to itself — its API speaks
 * sessions, messages and summaries in the documented session JSON format. The store under the
 * server does the encoding, encryption, titles, token counts and expiry; this store checks its
 * input as every store does (same codes before any request), maps each method to its route and
 * rebuilds `Session` and `Message` values from the JSON answers.
 *
 * Every answer of the server comes back as the same typed error the store under it threw
 * (`CONFLICT`, `NOT_FOUND`, `INVALID_ID`, …); a server that cannot be reached is `UNAVAILABLE`
 * (retryable), and the same store object works again once it is back. Appends carry their
 * messages' ids, so retrying one after an outage adds nothing twice.
 * @module
 */
import { MAX_TTL_MS } from '../../bounds.js';
import {
  InvalidInputError,
  errorMessage,
  DataError,
  ChatstateError,
  ConflictError,
  UnsupportedError,
} from '../../errors.js';
import { assertOwnerId, assertValidId } from '../../ids.js';
import { Message, type MessageInput } from '../../message/message.js';
import type { JsonValue } from '../../message/schema.js';
import { checkJson } from '../../message/json-value.js';
import { Session } from '../../session/session.js';
import { encodeCursor } from '../../store/list-cursor.js';
import { CoreChangeFeed } from '../../store/change-feed.js';
import type { ChangeFeed, DriverChange } from '../../store/change-types.js';
import { checkHeadState } from '../../store/codec.js';
import { closedError, noSessionError } from '../../store/driver-helpers.js';
import { runForgetHooks } from '../../store/forget.js';
import { assertSaveable, checkReplaceTail, nonNegativeInteger } from '../../store/save-checks.js';
import { checkListQuery } from '../../store/list-query.js';
import { checkPurgeOptions } from '../../store/purge-options.js';
import { markOf, marksByListing } from '../../store/marks.js';
import { checkMessageRefs } from '../../store/message-refs.js';
import type {
  AppendOptions,
  AppendResult,
  ForgetReceipt,
  ListQuery,
  PurgeOptions,
  MessageRange,
  ReplaceTailInput,
  ReplaceTailResult,
  MessageRef,
  SaveOptions,
  SessionMark,
  SessionStore,
  SessionSummary,
  TextSearchHit,
  TextSearchQuery,
  ValueOwner,
  ValueStore,
} from '../../store/session-store-types.js';
import { MAX_VALUE_BYTES, checkValueKey, forgetTarget, valueNamespace } from '../../store/values.js';
import type { HttpClient } from './client.js';

/**
 * How long a route the server said it does not have (a server older than the route) is not asked
 * for again: servers behind one URL are upgraded in turn, and a client outlives the rollout.
 */
const OLDER_SERVER_MS = 60_000;

/** What `orOlder` answers for a server without the route. */
const OLDER = Symbol('older server');

/** Most messages the server gives in one range read (`GET /sessions/{id}/messages`): longer reads are paged. */
const MAX_RANGE_PAGE = 10_000;

function optionalVersion(value: number | undefined): number | undefined {
  return value === undefined ? undefined : nonNegativeInteger(value, 'expectedVersion');
}

/** A session id as a path segment (checked first: it is never syntax in the URL). */
function sessionPath(id: string, rest = ''): string {
  return `/sessions/${encodeURIComponent(assertValidId(id, 'session id'))}${rest}`;
}

/** A summary row as the store gives it: frozen, without what only the HTTP view adds (`forkedFrom.missing`). */
function summaryOf(row: unknown): SessionSummary {
  if (typeof row !== 'object' || row === null)
    throw new DataError('CORRUPT', 'the server answered a row that is no object');
  const { forkedFrom, ...rest } = row as SessionSummary & { forkedFrom?: { missing?: true } };
  if (forkedFrom === undefined) return Object.freeze(rest);
  const { missing: _missing, ...from } = forkedFrom;
  return Object.freeze({ ...rest, forkedFrom: from });
}

/** Options of the remote store itself (see `httpStore` for the URL and the key). */
export interface HttpStoreSettings {
  readonly name: string;
  /** Retention applied by `save` when it is given no `ttlMs`. */
  readonly defaultTtlMs?: number;
}

/** A `SessionStore` over a chatstate server's HTTP API. */
export class HttpSessionStore implements SessionStore {
  readonly name: string;
  readonly values: ValueStore;
  /**
   * The server's store may search its own text, but the API exposes recall, not that search:
   * `undefined`, so active memory over this store keeps its index in process.
   */
  readonly searchText: ((query: TextSearchQuery) => Promise<TextSearchHit[]>) | undefined = undefined;
  private readonly feed: CoreChangeFeed;
  /** Writes made through this store object (not other clients of the server: `this-store` coverage). */
  readonly changes: ChangeFeed;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  /** Routes the server answered it does not have, until when that is believed (`performance.now()`). */
  private readonly olderUntil = new Map<string, number>();

  constructor(
    private readonly client: HttpClient,
    private readonly settings: HttpStoreSettings,
  ) {
    this.name = settings.name;
    this.feed = new CoreChangeFeed(this.name, undefined);
    this.changes = this.feed;
    this.values = Object.freeze({
      get: async (owner: ValueOwner, key: string) =>
        this.run(async () => {
          checkValueKey(key);
          const all = await this.readValues(owner);
          return Object.hasOwn(all, key) ? all[key] : undefined;
        }),
      getAll: async (owner: ValueOwner) => this.run(() => this.readValues(owner)),
      set: async (owner: ValueOwner, entries: Readonly<Record<string, JsonValue | undefined>>) =>
        this.run(() => this.writeValues(owner, entries)),
    });
  }

  /** Runs an operation of the open store, tracked so that `close` waits for it. */
  private run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.name));
    const running = operation();
    this.pending.add(running);
    const forget = (): void => void this.pending.delete(running);
    running.then(forget, forget);
    return running;
  }

  /** Tells the feed of a write this store made. */
  private told(change: DriverChange): void {
    this.feed.local(change);
  }

  /** What `request` resolves to, or `undefined` when the server answers that there is no such session. */
  private async orMissing<T>(request: Promise<T>): Promise<T | undefined> {
    try {
      return await request;
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND') && !this.isNoRoute(error)) return undefined;
      throw error;
    }
  }

  /**
   * True for the server's "no such route" (a base URL that is not the API's): never read as "no
   * such session", which would make a misconfigured store look empty.
   */
  private isNoRoute(error: ChatstateError): boolean {
    return error.message.startsWith(`${this.name}: No route `);
  }

  async ping(): Promise<void> {
    await this.run(async () => {
      await this.client.send({ method: 'GET', path: '/readyz' });
    });
  }

  async getJsonBytes(id: string): Promise<Uint8Array | undefined> {
    return this.run(() => this.readBytes(id));
  }

  private async readBytes(id: string): Promise<Uint8Array | undefined> {
    const path = sessionPath(id);
    return (await this.orMissing(this.client.send({ method: 'GET', path })))?.bytes;
  }

  async getJson(id: string): Promise<string | undefined> {
    return this.run(async () => {
      const bytes = await this.readBytes(id);
      return bytes === undefined
        ? undefined
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    });
  }

  async get(id: string): Promise<Session | undefined> {
    return this.run(async () => {
      const bytes = await this.readBytes(id);
      return bytes === undefined ? undefined : this.sessionOf(JSON.parse(Buffer.from(bytes).toString('utf8')));
    });
  }

  async load(id: string): Promise<Session> {
    const session = await this.get(id);
    if (session === undefined) throw noSessionError(this.name, id);
    return session;
  }

  /** A session from the server's JSON (the documented format), validated as an import is. */
  private sessionOf(json: unknown): Session {
    try {
      return Session.fromJSON(json);
    } catch (error) {
      throw new DataError(
        'CORRUPT',
        `${this.name}: the server answered a session that does not read: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async save(session: Session, options: SaveOptions = {}): Promise<Session> {
    return this.run(async () => {
      assertSaveable(session, this.name);
      const path = sessionPath(session.id);
      const expectedVersion = optionalVersion(options.expectedVersion);
      const ttlMs = options.ttlMs ?? this.settings.defaultTtlMs;
      if (ttlMs !== undefined) nonNegativeInteger(ttlMs, 'ttlMs', { positive: true, max: MAX_TTL_MS });
      for (const flag of ['keepUpdatedAt', 'erase'] as const)
        if (options[flag] !== undefined && typeof options[flag] !== 'boolean')
          throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: ${flag} must be a boolean`);
      const saved = this.sessionOf(
        await this.client.json({
          method: 'PUT',
          path,
          write: true,
          ...(expectedVersion === undefined ? {} : { expectedVersion }),
          body: {
            session: session.toJSON(),
            ...(ttlMs === undefined ? {} : { ttlMs }),
            ...(options.keepUpdatedAt === undefined ? {} : { keepUpdatedAt: options.keepUpdatedAt }),
            ...(options.erase === undefined ? {} : { erase: options.erase }),
          },
        }),
      );
      this.told({
        kind: 'replace',
        id: saved.id,
        version: saved.version,
        ...(saved.userId === undefined ? {} : { userId: saved.userId }),
      });
      return saved;
    });
  }

  async append(
    id: string,
    input: ReadonlyArray<Message | MessageInput>,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    return this.run(async () => {
      const path = sessionPath(id, '/messages');
      const expectedVersion = optionalVersion(options.expectedVersion);
      if (!Array.isArray(input))
        throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: append needs an array of messages`);
      // Ids are given here, before the request: a retry of the same messages is recognized.
      const messages = input.map((message) => Message.from(message));
      const state = options.state === undefined ? undefined : checkHeadState(options.state);
      if (messages.length === 0) return this.appendNothing(id, expectedVersion);
      const answer = (await this.client.json({
        method: 'POST',
        path,
        write: true,
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        body: { messages, ...(state === undefined ? {} : { state }) },
      })) as { version?: unknown; appended?: unknown; duplicates?: unknown };
      const { version, appended, duplicates } = answer;
      if (typeof version !== 'number' || !Array.isArray(appended) || !Array.isArray(duplicates))
        throw new DataError('CORRUPT', `${this.name}: the server answered an append result of another shape`);
      const stored = appended.map((message) => Message.fromStored(message));
      if (stored.length > 0) this.told({ kind: 'append', id, version });
      return Object.freeze({
        version,
        appended: Object.freeze(stored),
        duplicates: Object.freeze(duplicates.map(String)),
      });
    });
  }

  /** `replaceTail` in one request (`POST /sessions/{id}/tail`), atomic on the server's store. */
  async replaceTail(id: string, input: ReplaceTailInput): Promise<ReplaceTailResult> {
    return this.run(async () => {
      const path = sessionPath(id, '/tail');
      // Ids are given here, before the request, as `append` gives them.
      const { afterSeq, expectedVersion, messages, state } = checkReplaceTail(input, this.name);
      const answer = (await this.client.json({
        method: 'POST',
        path,
        write: true,
        expectedVersion,
        body: { afterSeq, messages, ...(state === undefined ? {} : { state }) },
      })) as { version?: unknown; removed?: unknown; messages?: unknown };
      const { version, removed } = answer;
      if (typeof version !== 'number' || typeof removed !== 'number' || !Array.isArray(answer.messages))
        throw new DataError('CORRUPT', `${this.name}: the server answered a tail replace result of another shape`);
      const stored = answer.messages.map((message) => Message.fromStored(message));
      this.told({ kind: 'replace', id, version });
      return Object.freeze({ version, removed, messages: Object.freeze(stored) });
    });
  }

  /**
   * An append of no message writes nothing (the API refuses an empty one): what the store answers
   * is the session's version, `NOT_FOUND` without one, `CONFLICT` when it is not the expected one.
   */
  private async appendNothing(id: string, expectedVersion: number | undefined): Promise<AppendResult> {
    const row = await this.readSummary(id);
    if (row === undefined) throw noSessionError(this.name, id);
    if (expectedVersion !== undefined && expectedVersion !== row.version)
      throw new ConflictError(
        `${this.name}: session ${JSON.stringify(id)} is at version ${row.version}, not ${expectedVersion}`,
        { details: { id, expected: expectedVersion, actual: row.version } },
      );
    return Object.freeze({ version: row.version, appended: Object.freeze([]), duplicates: Object.freeze([]) });
  }

  async readMessages(id: string, range: MessageRange = {}): Promise<Message[]> {
    return this.run(async () => {
      const path = sessionPath(id, '/messages');
      const afterSeq = range.afterSeq === undefined ? undefined : nonNegativeInteger(range.afterSeq, 'afterSeq');
      let beforeSeq = range.beforeSeq === undefined ? undefined : nonNegativeInteger(range.beforeSeq, 'beforeSeq');
      const limit =
        range.limit === undefined ? undefined : nonNegativeInteger(range.limit, 'limit', { positive: true });
      const read = async (pageLimit: number | undefined): Promise<Message[]> => {
        const answer = (await this.client.json({
          method: 'GET',
          path,
          query: { afterSeq, beforeSeq, limit: pageLimit },
        })) as { messages?: unknown };
        if (!Array.isArray(answer.messages))
          throw new DataError('CORRUPT', `${this.name}: the server answered a message range of another shape`);
        return answer.messages.map((message) => Message.fromStored(message));
      };
      if (limit === undefined || limit <= MAX_RANGE_PAGE) return read(limit);
      // The last `limit` of the range, a page at a time from the newest end.
      const pages: Message[][] = [];
      for (let left = limit; left > 0;) {
        const page = await read(Math.min(left, MAX_RANGE_PAGE));
        pages.unshift(page);
        left -= page.length;
        const first = page[0];
        if (page.length < Math.min(left + page.length, MAX_RANGE_PAGE) || first?.seq === undefined) break;
        beforeSeq = first.seq;
      }
      return pages.flat();
    });
  }

  async list(query: ListQuery = {}): Promise<SessionSummary[]> {
    return this.run(async () => {
      const checked = checkListQuery(query, this.name);
      const answer = (await this.client.json({
        method: 'GET',
        path: '/sessions',
        query: {
          limit: checked.limit,
          offset: checked.offset === 0 ? undefined : checked.offset,
          cursor: checked.after === undefined ? undefined : encodeCursor(checked.after),
          userId: checked.userId,
          agentId: checked.agentId,
          expired: checked.expired,
          idPrefix: checked.idPrefix,
          kinds:
            checked.kinds === 'conversations'
              ? undefined
              : typeof checked.kinds === 'string'
                ? checked.kinds
                : checked.kinds.join(','),
        },
      })) as { sessions?: unknown };
      if (!Array.isArray(answer.sessions))
        throw new DataError('CORRUPT', `${this.name}: the server answered a list of another shape`);
      return answer.sessions.map(summaryOf);
    });
  }

  /**
   * The marks of a user's sessions in one request (`GET /users/{userId}/marks`); from the server's
   * listing (`marksByListing`) when the server is older than that route.
   */
  async marks(userId: string): Promise<SessionMark[]> {
    return this.run(async () => {
      const user = assertOwnerId(userId, 'userId');
      const path = `/users/${encodeURIComponent(user)}/marks`;
      const answer = (await this.orOlder('marks', () => this.client.json({ method: 'GET', path }))) as
        { marks?: unknown } | typeof OLDER;
      if (answer === OLDER) return marksByListing((query) => this.list(query), user);
      if (!Array.isArray(answer.marks))
        throw new DataError('CORRUPT', `${this.name}: the server answered marks of another shape`);
      return answer.marks.map((row) => markOf(summaryOf(row)));
    });
  }

  /**
   * The messages at `refs` in one request (`POST /messages/at`, checked here first as every store
   * checks them); one `readMessages` request each when the server is older than that route.
   */
  async readMessagesAt(refs: readonly MessageRef[]): Promise<Array<Message | undefined>> {
    return this.run(async () => {
      const checked = checkMessageRefs(refs);
      if (checked.length === 0) return [];
      const path = '/messages/at';
      const answer = (await this.orOlder('messages at', () =>
        this.client.json({ method: 'POST', path, body: { refs: checked } }),
      )) as { messages?: unknown } | typeof OLDER;
      if (answer === OLDER) return this.readEachAt(checked);
      const { messages } = answer;
      if (!Array.isArray(messages) || messages.length !== checked.length)
        throw new DataError('CORRUPT', `${this.name}: the server answered messages at refs of another shape`);
      return messages.map((message) => (message === null ? undefined : Message.fromStored(message)));
    });
  }

  /** What `request` answers, or `OLDER` when the server has no such `route` (remembered for a while). */
  private async orOlder<T>(route: string, request: () => Promise<T>): Promise<T | typeof OLDER> {
    const until = this.olderUntil.get(route);
    if (until !== undefined && performance.now() < until) return OLDER;
    try {
      const answer = await request();
      this.olderUntil.delete(route);
      return answer;
    } catch (error) {
      // Only the route's own absence: any other NOT_FOUND is an answer of the route.
      if (!ChatstateError.hasCode(error, 'NOT_FOUND') || !this.isNoRoute(error)) throw error;
      this.olderUntil.set(route, performance.now() + OLDER_SERVER_MS);
      return OLDER;
    }
  }

  /** The messages at `refs`, one range read each (an older server); a base URL that is not the API still fails. */
  private async readEachAt(refs: readonly MessageRef[]): Promise<Array<Message | undefined>> {
    return Promise.all(
      refs.map(async ({ sessionId, seq }) => {
        const range = { afterSeq: seq - 1, beforeSeq: seq + 1, limit: 1 };
        const [message] = (await this.orMissing(this.readMessages(sessionId, range))) ?? [];
        return message;
      }),
    );
  }

  async summary(id: string): Promise<SessionSummary | undefined> {
    return this.run(() => this.readSummary(id));
  }

  private async readSummary(id: string): Promise<SessionSummary | undefined> {
    const path = sessionPath(id, '/summary');
    const row = await this.orMissing(this.client.json({ method: 'GET', path }));
    return row === undefined ? undefined : summaryOf(row);
  }

  async delete(id: string): Promise<boolean> {
    return this.run(async () => {
      const path = sessionPath(id);
      const done = await this.orMissing(this.client.send({ method: 'DELETE', path, write: true }));
      if (done === undefined) return false;
      this.told({ kind: 'delete', id, version: 0 });
      return true;
    });
  }

  async purgeExpired(options?: PurgeOptions): Promise<number> {
    return this.run(async () => {
      // The server's purge takes no prefix: refused, never widened to every session (a tenant view falls back to listing).
      if (checkPurgeOptions(options, this.name).idPrefix !== undefined)
        throw new UnsupportedError(`${this.name}: the server purges every expired session, not by idPrefix`, {
          store: this.name,
          capability: 'purgeByIdPrefix',
        });
      const answer = (await this.client.json({ method: 'POST', path: '/purge-expired', write: true })) as {
        purged?: unknown;
      };
      if (typeof answer.purged !== 'number')
        throw new DataError('CORRUPT', `${this.name}: the server answered a purge result of another shape`);
      // The server does not say which sessions went: listeners read again.
      if (answer.purged > 0) this.feed.unnamed();
      return answer.purged;
    });
  }

  async forgetUser(userId: string): Promise<ForgetReceipt> {
    return this.run(async () => {
      forgetTarget(userId);
      const receipt = (await this.client.json({
        method: 'DELETE',
        path: `/users/${encodeURIComponent(userId)}`,
        write: true,
      })) as ForgetReceipt;
      if (typeof receipt !== 'object' || receipt === null || typeof receipt.removed !== 'object')
        throw new DataError('CORRUPT', `${this.name}: the server answered a receipt of another shape`);
      if (receipt.removed.sessions > 0) this.feed.unnamed();
      // What this process keeps of the user through this store (a manager's cache, recall's index) goes too.
      const cached = runForgetHooks(this, userId);
      return Object.freeze({
        ...receipt,
        removed: Object.freeze({
          ...receipt.removed,
          cached: receipt.removed.cached + cached,
          // A server before per-user keys answers no count of them: it destroyed none.
          keys: typeof receipt.removed.keys === 'number' ? receipt.removed.keys : 0,
        }),
      });
    });
  }

  /** The values of `owner` (checked first), by key. */
  private async readValues(owner: ValueOwner): Promise<Record<string, JsonValue>> {
    valueNamespace(owner);
    const values = await this.client.json({ method: 'GET', path: valuesPath(owner) });
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      throw new DataError('CORRUPT', `${this.name}: the server answered values of another shape`);
    // JSON.parse defines own properties: a "__proto__" key is a key here too.
    return values as Record<string, JsonValue>;
  }

  private async writeValues(
    owner: ValueOwner,
    entries: Readonly<Record<string, JsonValue | undefined>>,
  ): Promise<void> {
    valueNamespace(owner);
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries))
      throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: values.set needs an object of key → value`);
    const set: Record<string, JsonValue> = {};
    const remove: string[] = [];
    for (const key of Object.keys(entries)) {
      checkValueKey(key);
      const value = entries[key];
      if (value === undefined) remove.push(key);
      // Checked as the core does, so JSON.stringify never turns a bad value into another one (NaN into null).
      else
        Object.defineProperty(set, key, {
          value: checkJson(value, `Value ${JSON.stringify(key.slice(0, 80))}`, 'INVALID_ARGUMENT', {
            maxChars: MAX_VALUE_BYTES,
          }),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    if (remove.length === 0 && Object.keys(set).length === 0) return;
    await this.client.send({
      method: 'POST',
      path: '/values/batch',
      write: true,
      body: { owner: ownerJson(owner), set, delete: remove },
    });
  }

  async close(): Promise<void> {
    if (this.closing === undefined) {
      this.closed = true;
      this.closing = Promise.allSettled([...this.pending]).then(() => this.feed.close());
    }
    return this.closing;
  }
}

/** The owner as the API takes it: only the fields of its scope. */
function ownerJson(owner: ValueOwner): ValueOwner {
  switch (owner.scope) {
    case 'user':
      return { scope: 'user', userId: owner.userId };
    case 'agent':
      return { scope: 'agent', agentId: owner.agentId, userId: owner.userId };
    case 'app':
      return { scope: 'app' };
    case 'session':
      return { scope: 'session', sessionId: owner.sessionId };
  }
}

/** The route of `owner`'s values. */
function valuesPath(owner: ValueOwner): string {
  const enc = encodeURIComponent;
  switch (owner.scope) {
    case 'user':
      return `/values/users/${enc(owner.userId)}`;
    case 'agent':
      return `/values/agents/${enc(owner.agentId)}/users/${enc(owner.userId)}`;
    case 'app':
      return '/values/app';
    case 'session':
      return sessionPath(owner.sessionId, '/values');
  }
}
