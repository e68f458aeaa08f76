/**
 * `createSessionStore`: the one implementation of `SessionStore` semantics over any driver — id
 * checks, validation, encryption at rest, titles, token totals, sequence numbers, retention, and
 * active memory's values and full-text search.
 * @module
 */
import { MAX_SEQ, MAX_TTL_MS, MAX_VERSION, MAX_VERSION_STEP } from '../bounds.js';
import { ChatstateError, InvalidInputError, UnsupportedError, type NotFoundError } from '../errors.js';
import { assertOwnerId, assertValidId } from '../ids.js';
import { BoundedMap } from '../internal/bounded-map.js';
import { Message, storedAt, type MessageInput } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { MessageLog } from '../session/message-log.js';
import { Session } from '../session/session.js';
import { SESSION_FORMAT_VERSION } from '../session/schema.js';
import type { TokenCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';
import { isSealed, recordCipher, type AtRestKey, type RecordCipher } from './at-rest.js';
import {
  KeyCheckMismatch,
  checkVersion,
  closedError,
  isExpired,
  noSessionError,
  withKeys,
  withKind,
} from './driver-helpers.js';
import { kindOfMetadata } from './session-kind.js';
import { checkDriver } from './driver-check.js';
import { CoreChangeFeed } from './change-feed.js';
import type { ChangeFeed, DriverChange } from './change-types.js';
import { keyProblem, keysAfterAppend, keysAfterReplace, unreadableKey, wrongKey } from './key-check.js';
import { LINK_MARKS, linksOfMetadata, type SessionLinks } from './links.js';
import { noticeMessage, noticesOf, unlisted, withNotices } from './recovery.js';
import { checkListQuery } from './list-query.js';
import { checkPurgeOptions } from './purge-options.js';
import { marksByListing } from './marks.js';
import { checkMessageRefs, readEachAt } from './message-refs.js';
import { metadataTitle, sessionTitle, titleOf } from './title.js';
import { checkTextQuery, createValueStore, forgetTarget, namespaceSession, namespaceUser } from './values.js';
import { storeCiphers, type StoreCiphers } from './user-keyring.js';
import type { UserKeyStore } from './user-key-store.js';
import { forgetByListing, receiptOf, runForgetHooks } from './forget.js';
import { SESSION_ID } from '../internal/gen-ai-names.js';
import { traced } from '../internal/tracing.js';
import { assertSaveable, checkReplaceTail, nonNegativeInteger } from './save-checks.js';
import {
  RECORD_SCHEMA,
  checkHeadState,
  decodeHeadData,
  decodeMessage,
  sessionJsonBytes,
  sessionJsonParts,
  sessionText,
  decodeTitle,
  encodeHeadData,
  encodeMessage,
  encodeTitle,
  type HeadData,
} from './codec.js';
import type {
  AnyStoreDriver,
  AppendOutcome,
  HeadRecord,
  MessageRecord,
  PendingMessage,
  RecoveryNote,
} from './driver-types.js';
import type {
  AppendOptions,
  AppendResult,
  ForgetReceipt,
  ListQuery,
  MessageRange,
  MessageRef,
  RecoveryNotice,
  ReplaceTailInput,
  ReplaceTailResult,
  SaveOptions,
  SessionMark,
  SessionStore,
  SessionSummary,
  TextSearchHit,
  PurgeOptions,
  TextSearchQuery,
  ValueStore,
} from './session-store-types.js';

/** Options of `createSessionStore`. */
export interface SessionStoreOptions {
  /** Encrypt every record (AES-256-GCM) with this key or key ring; the key id is stored with each record. */
  encryption?: AtRestKey;
  /**
   * Per-user keys: every record of a user (their sessions' messages, heads and titles, their user
   * and agent values, their sessions' values) is sealed with a key of their own, kept in this key
   * store apart from the data; `forgetUser` destroys it, so no copy of the data (a backup) can be
   * read for that user again. Needs `encryption`, which wraps the user keys and seals the records
   * of no user.
   */
  userKeys?: UserKeyStore;
  /** Counter for the token totals in the index. @default tokens.estimate */
  counter?: TokenCounter;
  /** Retention applied by `save` when it is given no `ttlMs`. */
  defaultTtlMs?: number;
  /** Clock, for tests of retention. @default Date.now */
  now?: () => number;
}

/** Key checks remembered (see `CoreSessionStore.keyChecks`). */
const MAX_KEY_CHECKS = 4096;

/** Appends and saves tried again after a key-check mismatch another writer's rotation caused. */
const MAX_KEY_ATTEMPTS = 3;

/** Reads of a session that try to tell its recovery notices before returning it as it is. */
const MAX_TELL_ATTEMPTS = 3;

/** Heads per page when a purge without the driver's `purgeExpired` lists the store. */
const PURGE_PAGE = 500;

export { MAX_LIST_LIMIT } from './list-query.js';

/** The `kind` field of a head or row: present only on an internal session. */
function kindField(kind: string | undefined): { kind?: string } {
  return kind === undefined ? {} : { kind };
}

function optionalVersion(value: number | undefined, what: string): number | undefined {
  return value === undefined ? undefined : nonNegativeInteger(value, what);
}

/**
 * The recovery notices a saved head keeps: those the stored head had (a save never makes a loss
 * silent again) and those the session's metadata lists, so that `list` shows every one.
 */
function recoveryOf(current: HeadRecord | undefined, session: Session): { recovery?: readonly RecoveryNotice[] } {
  const notices = [...(current?.recovery ?? [])];
  const known = new Set(notices.map((notice) => notice.id));
  for (const notice of noticesOf(session.metadata)) if (!known.has(notice.id)) notices.push(notice);
  return notices.length === 0 ? {} : { recovery: notices };
}

/** The sealed strings of records: what a cipher must open to read them (walked only with per-user keys). */
function* dataOf(records: readonly MessageRecord[]): Generator<string> {
  for (const record of records) yield record.data;
}

/** The sealed strings of a head and its records. */
function* sealedOf(head: HeadRecord, records: readonly MessageRecord[] = []): Generator<string | undefined> {
  yield head.data;
  yield head.title;
  yield* dataOf(records);
}

/** The id a readiness probe reads: no tenant's id can be it (tenant ids are lowercase), and no session is expected under it. */
const PROBE_ID = 'Chatstate_readiness_probe';

class CoreSessionStore implements SessionStore {
  readonly name: string;
  private readonly cipher: RecordCipher;
  /** Which cipher reads given records and which seals a user's (the store's cipher without `userKeys`). */
  private readonly ciphers: StoreCiphers;
  private readonly counter: TokenCounter;
  private readonly now: () => number;
  private closed = false;
  private closing: Promise<void> | undefined;
  // Operations in flight: `close` lets them finish before it releases the driver.
  private readonly pending = new Set<Promise<unknown>>();
  readonly values: ValueStore;
  readonly searchText: ((query: TextSearchQuery) => Promise<TextSearchHit[]>) | undefined;
  /** Plain text goes to the driver's index only when records are not sealed: an index would leak them. */
  private readonly indexesText: boolean;
  /** The driver refuses expired sessions in its own appends and range reads (no head read first). */
  private readonly expiryInCommit: boolean;
  /** The message each record stands for, when the driver's records are stable objects (`stableRecords`). */
  private readonly decoded: WeakMap<MessageRecord, Message> | undefined;
  private readonly feed: CoreChangeFeed;
  /** Changes of this store's sessions: its own writes, and every process's when the driver has a feed. */
  readonly changes: ChangeFeed;

  constructor(
    private readonly driver: AnyStoreDriver,
    private readonly options: SessionStoreOptions,
  ) {
    this.name = checkDriver(driver);
    this.cipher = recordCipher(options.encryption, driver.name);
    this.ciphers = storeCiphers(this.cipher, options.encryption, options.userKeys, driver.name);
    this.counter = options.counter ?? estimate;
    this.now = options.now ?? Date.now;
    if (options.defaultTtlMs !== undefined)
      nonNegativeInteger(options.defaultTtlMs, 'defaultTtlMs', { positive: true, max: MAX_TTL_MS });
    this.values = createValueStore(
      driver,
      {
        forWrite: async (ns) => this.ciphers.forWrite(await this.namespaceOwner(ns), undefined),
        forRead: async (datas) => this.ciphers.forRead(undefined, datas),
      },
      (name, operation) => this.run(name, undefined, operation),
    );
    const search = driver.searchText?.bind(driver);
    this.expiryInCommit = driver.capabilities?.expiryInCommit === true;
    this.decoded = driver.capabilities?.stableRecords === true ? new WeakMap() : undefined;
    this.indexesText = driver.capabilities?.fullTextSearch === true && search !== undefined && !this.cipher.encrypted;
    this.searchText =
      this.indexesText && search !== undefined
        ? async (query) => this.run('searchText', undefined, async () => search(checkTextQuery(query, this.name)))
        : undefined;
    const watch = driver.watchChanges?.bind(driver);
    this.feed = new CoreChangeFeed(this.name, watch === undefined ? undefined : { watchChanges: watch });
    this.changes = this.feed;
  }

  /** The owner last seen per session (bounded, as `keyChecks`): what a change of ours tells as `userId`. */
  private readonly owners = new BoundedMap<string, string | null>({ max: MAX_KEY_CHECKS });

  /** Remembers the owner of session `id`. */
  private sawOwner(id: string, userId: string | undefined): void {
    this.owners.set(id, userId ?? null);
  }

  /** Tells the feed of a change this store committed, with its owner when it is known. */
  private told(kind: DriverChange['kind'], id: string, version: number): void {
    const owner = this.owners.get(id);
    this.feed.local({ kind, id, version, ...(owner === undefined || owner === null ? {} : { userId: owner }) });
  }

  /**
   * The key check last seen per session (bounded): an append expects it, so the common append
   * reads no head for it. A stale entry only costs a retry (the driver reports the stored check).
   */
  private readonly keyChecks = new BoundedMap<string, string>({ max: MAX_KEY_CHECKS });

  /** Remembers the key check of session `id` and returns it (`''` for none). */
  private sawKeys(id: string, keys: string | undefined): string {
    const check = keys ?? '';
    this.keyChecks.set(id, check);
    return check;
  }

  /** What a session `cipher` alone wrote would hold: its current key (or nothing). */
  private guessedKeys(cipher: RecordCipher): string {
    return keysAfterReplace(cipher.holding);
  }

  /** The user namespace whose key seals the records of session `id`'s owner `userId`; `undefined` for none or without `userKeys`. */
  private ownerKey(userId: string | undefined): string | undefined {
    return userId === undefined || !this.ciphers.perUser ? undefined : forgetTarget(userId).userNamespace;
  }

  /**
   * The user namespace whose key seals values of `ns`: the user of a user or agent namespace, the
   * owner of the session of a session namespace (read when not known), none for the app's.
   */
  private async namespaceOwner(ns: string): Promise<string | undefined> {
    if (!this.ciphers.perUser) return undefined;
    const user = namespaceUser(ns);
    if (user !== undefined) return user;
    const session = namespaceSession(ns);
    if (session === undefined) return undefined;
    let owner = this.owners.get(session);
    if (owner === undefined) {
      const head = await this.driver.readHead(session);
      owner = head?.userId ?? null;
      if (head !== undefined) this.sawOwner(session, head.userId);
    }
    return this.ownerKey(owner ?? undefined);
  }

  /**
   * Throws `WRONG_KEY` on a read when session `id`'s key check says this store lacks a key its
   * records use: a missing or wrong key is told apart from damage (`CORRUPT`), which a repair acts on.
   */
  private assertCanRead(id: string, keys: string | undefined, cipher: RecordCipher): void {
    const problem = keyProblem(keys, cipher.holding);
    if (problem !== undefined) throw unreadableKey(this.name, id, problem);
  }

  /** Throws `WRONG_KEY` unless this store holds every key a session with check `keys` uses. */
  private assertCanWrite(id: string, keys: string | undefined, cipher: RecordCipher): void {
    const problem = keyProblem(keys, cipher.holding);
    if (problem !== undefined) throw wrongKey(this.name, id, problem);
  }

  /** The plain text a driver with full-text search indexes, when it may have it. */
  private textOf(message: Message): { text?: string } {
    return this.indexesText ? { text: Message.text(message) } : {};
  }

  /** The message `record` of session `id` holds: decoded, or remembered when the driver's records are stable. */
  private decode(record: MessageRecord, id: string, cipher: RecordCipher): Message {
    const known = this.decoded?.get(record);
    if (known !== undefined) return known;
    const message = decodeMessage(record, id, cipher, this.name);
    this.decoded?.set(record, message);
    return message;
  }

  private notFound(id: string): NotFoundError {
    return noSessionError(this.name, id);
  }

  private live(head: HeadRecord | undefined): head is HeadRecord {
    return head !== undefined && !isExpired(head.expiresAt, this.now());
  }

  /** Resolves when the driver answers a read of an id no session has (tenant ids are lowercase, this one is not). */
  async ping(): Promise<void> {
    await this.run('ping', undefined, async () => {
      if (this.driver.ping !== undefined) await this.driver.ping(PROBE_ID);
      else await this.driver.readHead(PROBE_ID);
    });
  }

  /** The one "closed" check of every store: drivers guard only their own resources. */
  private checkOpen(): void {
    if (this.closed) throw closedError(this.name);
  }

  /**
   * Runs an operation of the open store, tracked so that `close` waits for it, in a span
   * `chatstate.store.{name}` (the store's name and the session id; never the records).
   */
  private run<T>(name: string, id: string | undefined, operation: () => Promise<T>): Promise<T> {
    this.checkOpen();
    const running = traced(
      `chatstate.store.${name}`,
      {
        attributes: () => ({
          'chatstate.store.name': this.name,
          'chatstate.store.operation': name,
          [SESSION_ID]: id,
        }),
      },
      operation,
    );
    this.pending.add(running);
    const forget = (): void => void this.pending.delete(running);
    running.then(forget, forget);
    return running;
  }

  async get(id: string): Promise<Session | undefined> {
    return this.run('get', id, async () => (await this.readSession(id))?.session);
  }

  async getJson(id: string): Promise<string | undefined> {
    return this.run('getJson', id, async () => {
      const read = await this.readSession(id);
      return read === undefined ? undefined : sessionText(read.session, read.records);
    });
  }

  async getJsonBytes(id: string): Promise<Uint8Array | undefined> {
    return this.run('getJsonBytes', id, async () => {
      const read = await this.readSession(id);
      return read === undefined ? undefined : sessionJsonBytes(sessionJsonParts(read.session, read.records));
    });
  }

  /** Session `id` with the records its messages were decoded from (none for a recovery session made now). */
  private async readSession(id: string): Promise<{ session: Session; records?: readonly MessageRecord[] } | undefined> {
    assertValidId(id, 'session id');
    for (let attempt = 0; ; attempt += 1) {
      const stored = await this.driver.readAll(id);
      if (stored?.recovered !== undefined) return { session: await this.recover(id, stored.recovered) };
      if (stored === undefined || !this.live(stored.head)) return undefined;
      const cipher = await this.ciphers.forRead(stored.head.keys, sealedOf(stored.head, stored.messages));
      this.assertCanRead(id, stored.head.keys, cipher);
      this.sawKeys(id, stored.head.keys);
      this.sawOwner(id, stored.head.userId);
      const session = this.toSession(stored.head, stored.messages, cipher);
      // A repair the driver recorded that the session does not tell yet: told once, then read again.
      if (attempt >= MAX_TELL_ATTEMPTS || !(await this.tell(stored.head, session)))
        return { session, records: stored.messages };
    }
  }

  /**
   * Puts the recovery notices of `head` that the session does not list yet into it: a `context`
   * message each and `metadata.recovery`, in one append at the session's version. True when the
   * session changed (it is read again); false when there was nothing to tell, or the append
   * failed — the session read then carries the notices in its metadata all the same.
   */
  private async tell(head: HeadRecord, session: Session): Promise<boolean> {
    if (head.recovery === undefined || head.recovery.length === 0) return false;
    const cipher = await this.ciphers.forRead(head.keys, sealedOf(head));
    const pending = unlisted(head.recovery, decodeHeadData(head.data, head.id, cipher, this.name).metadata);
    if (pending.length === 0) return false;
    try {
      await this.add(
        head.id,
        pending.map((notice) => noticeMessage(notice, head.id)),
        {
          expectedVersion: head.version,
          state: {
            metadata: session.metadata,
            variables: session.variables,
            ...(session.lastUsage === undefined ? {} : { lastUsage: session.lastUsage }),
          },
        },
      );
      return true;
    } catch (error) {
      // Another writer moved on first (it may have told them): read again.
      return ChatstateError.hasCode(error, 'CONFLICT');
    }
  }

  /**
   * Penguin's recovery session, done once: the driver could not read session `id` and kept its
   * files aside; a new session takes its place, says so in its first message and its metadata
   * (`recoveredFrom`, `reason`, `keptAside` and a `recovery` notice — what a manager reports as a
   * `recovered` event), and is stored so that every later call sees the same session. It starts
   * above the lost session's high-water mark: versions and sequence numbers never go backwards.
   */
  private async recover(id: string, note: RecoveryNote): Promise<Session> {
    const floor = note.floor ?? { version: 0, lastSeq: 0 };
    const notice: RecoveryNotice = {
      id: `recovery-v${floor.version + 1}`,
      at: new Date(this.now()).toISOString(),
      kind: 'unreadable',
      reason: note.reason,
      ...(note.floor === undefined
        ? {}
        : { lost: { fromSeq: 1, toSeq: floor.lastSeq, fromVersion: 1, toVersion: floor.version } }),
      keptAside: [...note.keptAside],
    };
    const message = storedAt(noticeMessage(notice, note.lostId), floor.lastSeq + 1);
    const session = Session.create({
      id,
      ...(note.owner?.userId === undefined ? {} : { userId: note.owner.userId }),
      ...(note.owner?.agentId === undefined ? {} : { agentId: note.owner.agentId }),
      metadata: withNotices({ recoveredFrom: note.lostId, reason: note.reason, keptAside: [...note.keptAside] }, [
        notice,
      ]),
    }).withStored({ messages: [message], version: floor.version + 1 });
    try {
      return await this.write(session, { expectedVersion: 0 });
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
      // Another reader stored the recovery session first: return that one.
      const stored = await this.driver.readAll(id);
      if (stored === undefined || stored.recovered !== undefined) throw error;
      return this.toSession(
        stored.head,
        stored.messages,
        await this.ciphers.forRead(stored.head.keys, sealedOf(stored.head, stored.messages)),
      );
    }
  }

  async load(id: string): Promise<Session> {
    return this.run('load', id, async () => {
      const read = await this.readSession(id);
      if (read === undefined) throw this.notFound(id);
      return read.session;
    });
  }

  private toSession(head: HeadRecord, records: readonly MessageRecord[], cipher: RecordCipher): Session {
    const data = decodeHeadData(head.data, head.id, cipher, this.name);
    const messages = records.map((record) => this.decode(record, head.id, cipher));
    // The head's fields are validated by `Session.fromJSON`; the messages, validated one by one
    // above, join it as a log (zod would copy the 100k-element array to check it is an array).
    const state = Session.fromJSON({
      formatVersion: SESSION_FORMAT_VERSION,
      id: head.id,
      ...(head.agentId === undefined ? {} : { agentId: head.agentId }),
      ...(head.userId === undefined ? {} : { userId: head.userId }),
      createdAt: head.createdAt,
      updatedAt: head.updatedAt,
      version: head.version,
      messages: [],
      variables: data.variables,
      // Notices the session does not tell yet (see `tell`) are never hidden from a reader.
      metadata: withNotices(data.metadata, unlisted(head.recovery, data.metadata)),
      ...(data.lastUsage === undefined ? {} : { lastUsage: data.lastUsage }),
    });
    return state.withStored({
      messages: MessageLog.of(Object.freeze(messages)),
      version: state.version,
      updatedAt: state.updatedAt,
    });
  }

  async save(session: Session, options: SaveOptions = {}): Promise<Session> {
    return this.run('save', typeof session === 'object' && session !== null ? session.id : undefined, async () => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await this.write(session, options);
        } catch (error) {
          // Another writer changed the session's keys between the check and the replace: check again.
          if (!(error instanceof KeyCheckMismatch) || attempt >= MAX_KEY_ATTEMPTS) throw error;
        }
      }
    });
  }

  private async write(session: Session, options: SaveOptions): Promise<Session> {
    assertSaveable(session, this.name);
    let expectedVersion = optionalVersion(options.expectedVersion, 'expectedVersion');
    const ttlMs = options.ttlMs ?? this.options.defaultTtlMs;
    if (ttlMs !== undefined) nonNegativeInteger(ttlMs, 'ttlMs', { positive: true, max: MAX_TTL_MS });
    if (options.keepUpdatedAt !== undefined && typeof options.keepUpdatedAt !== 'boolean') {
      throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: keepUpdatedAt must be a boolean`);
    }
    if (options.erase !== undefined && typeof options.erase !== 'boolean') {
      throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: erase must be a boolean`);
    }
    const stored = await this.driver.readHead(session.id);
    const current = this.live(stored) ? stored : undefined;
    // Rewritten whole, the session is sealed with this store's current key only (its owner's, with
    // per-user keys: a new owner's re-keys it whole); but a writer that could not read what is there
    // must not replace it (an expired session is gone: no check).
    const cipher = await this.ciphers.forWrite(this.ownerKey(session.userId), current?.keys);
    if (current !== undefined) this.assertCanWrite(session.id, this.sawKeys(session.id, current.keys), cipher);
    if (stored !== undefined && current === undefined && expectedVersion !== undefined) {
      // An expired session is gone even before a purge: a save expecting a version of it conflicts,
      // and one creating it replaces the remains (compared with them, so a concurrent creator wins once).
      checkVersion(this.name, session.id, 0, expectedVersion);
      expectedVersion = stored.version;
    }
    // A caller may set the version ahead (an import keeps its own), but not past MAX_VERSION, and
    // beyond it only by what changes in memory add: the versions after it must stay exact (one
    // past 2^53 is refused when read back, after it was written).
    const nextVersion = current === undefined ? 1 : current.version + 1;
    if (session.version > MAX_VERSION && session.version - nextVersion >= MAX_VERSION_STEP)
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${this.name}: session ${session.id} gives version ${session.version}, above the largest a caller may give (${MAX_VERSION}, or ${MAX_VERSION_STEP} past the stored version)`,
      );
    // Sequence numbers are never reused: new messages continue after the highest ever given.
    let lastSeq = Math.max(stored?.lastSeq ?? 0, 0);
    const messages: Message[] = [];
    const records: Array<MessageRecord & { text?: string }> = [];
    let tokenCount = 0;
    for (const message of session.messages) {
      const next = Math.max(lastSeq, records.at(-1)?.seq ?? 0) + 1;
      // A caller may skip numbers ahead, but not past MAX_SEQ: numbers after it must stay exact.
      if (message.seq !== undefined && message.seq > next && message.seq > MAX_SEQ)
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          `${this.name}: message ${message.id} of ${session.id} gives seq ${message.seq}, above the largest a caller may give (${MAX_SEQ})`,
        );
      const seq = message.seq !== undefined && message.seq > (records.at(-1)?.seq ?? 0) ? message.seq : next;
      // A session holds `Message` values only: each is given its seq without being validated again.
      const withSeq = message.seq === seq ? message : storedAt(message, seq);
      messages.push(withSeq);
      // Frozen: a driver with stable records keeps these very objects (see `remember`).
      records.push(
        Object.freeze({
          seq,
          id: message.id,
          data: encodeMessage(withSeq, session.id, cipher),
          ...this.textOf(message),
        }),
      );
      tokenCount += this.counter.countMessage(message);
    }
    // A title once set stays (re-sealed with this store's key) until `metadata.title` changes it.
    const title = sessionTitle(session.metadata, decodeTitle(current?.title, session.id, cipher), session.messages);
    lastSeq = Math.max(lastSeq, records.at(-1)?.seq ?? 0);
    const version = Math.max(session.version, nextVersion);
    const now = this.now();
    const data: HeadData = {
      metadata: session.metadata,
      variables: session.variables,
      ...(session.lastUsage === undefined ? {} : { lastUsage: session.lastUsage }),
    };
    const keys = keysAfterReplace(cipher.holding);
    const head: HeadRecord = {
      id: session.id,
      schema: RECORD_SCHEMA,
      version,
      ...(session.agentId === undefined ? {} : { agentId: session.agentId }),
      ...(session.userId === undefined ? {} : { userId: session.userId }),
      ...kindField(kindOfMetadata(session.metadata)),
      createdAt: session.createdAt,
      updatedAt: options.keepUpdatedAt === true ? session.updatedAt : new Date(now).toISOString(),
      ...(ttlMs === undefined ? {} : { ttlMs, expiresAt: now + ttlMs }),
      messageCount: records.length,
      tokenCount,
      lastSeq,
      ...(title === undefined ? {} : { title: encodeTitle(title, session.id, cipher) }),
      data: encodeHeadData(data, session.id, cipher),
      ...recoveryOf(current, session),
      ...(keys === '' ? {} : { keys }),
    };
    await this.driver.replace(session.id, {
      expectedVersion,
      ...(current === undefined ? {} : { expectedKeys: current.keys ?? '' }),
      head,
      messages: records,
      ...(options.erase === true ? { erase: true } : {}),
    });
    this.sawKeys(session.id, keys);
    this.sawOwner(session.id, session.userId);
    this.told('replace', session.id, version);
    this.remember(records, messages);
    return this.toSession(head, records, cipher);
  }

  async append(
    id: string,
    input: ReadonlyArray<Message | MessageInput>,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    return this.run('append', id, () => this.add(id, input, options));
  }

  private async add(
    id: string,
    input: ReadonlyArray<Message | MessageInput>,
    options: AppendOptions,
  ): Promise<AppendResult> {
    assertValidId(id, 'session id');
    const expectedVersion = optionalVersion(options.expectedVersion, 'expectedVersion');
    if (!Array.isArray(input))
      throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: append needs an array of messages`);
    const messages = input.map((message) => Message.from(message));
    const state = options.state === undefined ? undefined : checkHeadState(options.state);
    // A session without a title yet takes the caller's `metadata.title` before a message's.
    const chosenTitle = metadataTitle(state?.metadata);
    const ids = new Set<string>();
    // A repeated id inside one call is the same message sent twice: stored once.
    const unique = messages.filter((message) => {
      if (ids.has(message.id)) return false;
      ids.add(message.id);
      return true;
    });
    // The key check this append expects: the session's, when it is known (see `keyChecks`).
    let stored = this.keyChecks.get(id);
    // With per-user keys the owner picks the key: known from an earlier read, or read now.
    let owner: string | null | undefined = this.ciphers.perUser ? this.owners.get(id) : null;
    let head: HeadRecord | undefined;
    const readHead = async (): Promise<HeadRecord> => {
      const read = await this.driver.readHead(id);
      if (!this.live(read)) throw this.notFound(id);
      stored = this.sawKeys(id, read.keys);
      this.sawOwner(id, read.userId);
      owner = read.userId ?? null;
      return read;
    };
    // An expired session is gone even before a purge removes it: an append must not revive it. A
    // driver with `expiryInCommit` refuses it inside its own commit, so no head is read for that.
    if (state !== undefined || !this.expiryInCommit || owner === undefined) head = await readHead();
    let cipher = this.cipher;
    let pending: PendingMessage[] = [];
    let data: string | undefined;
    /** Seals the messages and the state with the owner's key (the store's without per-user keys). */
    const seal = async (): Promise<void> => {
      cipher = await this.ciphers.forWrite(this.ownerKey(owner ?? undefined), stored);
      if (stored !== undefined) this.assertCanWrite(id, stored, cipher);
      pending = unique.map((message) => {
        const title = chosenTitle ?? titleOf(message);
        return {
          id: message.id,
          data: encodeMessage(message, id, cipher),
          tokens: this.counter.countMessage(message),
          ...(title === undefined ? {} : { title: encodeTitle(title, id, cipher) }),
          ...this.textOf(message),
        };
      });
      // Fields a newer version keeps in the head data survive the state this append replaces (the
      // driver cannot merge them: it never decodes head data, which may be sealed).
      const extra =
        state === undefined || head === undefined ? undefined : decodeHeadData(head.data, id, cipher, this.name).extra;
      data =
        state === undefined ? undefined : encodeHeadData(extra === undefined ? state : { ...state, extra }, id, cipher);
    };
    await seal();
    let outcome: AppendOutcome | undefined;
    for (let attempt = 1; outcome === undefined; attempt += 1) {
      const now = this.now();
      const expected = stored ?? this.guessedKeys(cipher);
      const keys = { expected, next: keysAfterAppend(expected, cipher.holding) };
      try {
        outcome = await this.driver.append(id, {
          expectedVersion,
          messages: pending,
          updatedAt: new Date(now).toISOString(),
          now,
          keys,
          ...(data === undefined ? {} : { data, kind: kindOfMetadata(state?.metadata) ?? '' }),
        });
        this.sawKeys(id, keys.next);
      } catch (error) {
        // The session holds other keys than this append assumed: refused when they are not all
        // this store's, tried again on the session's own check otherwise (nothing was written).
        if (!(error instanceof KeyCheckMismatch) || attempt >= MAX_KEY_ATTEMPTS) throw error;
        stored = this.sawKeys(id, error.stored);
        if (!this.ciphers.perUser) this.assertCanWrite(id, stored, cipher);
        else {
          // Another writer may have given the session another owner (a save re-keys it whole):
          // the head says whose key seals this append, and everything is sealed again.
          head = await readHead();
          await seal();
        }
      }
    }
    if (outcome.appended.length > 0) this.told('append', id, outcome.version);
    // The first message of each id, as `pending` holds it: a later one with the same id was not stored.
    const byId = new Map<string, Message>();
    for (const message of messages) if (!byId.has(message.id)) byId.set(message.id, message);
    // The messages were validated above: each is copied with its seq, not validated again.
    const appended = outcome.appended.map((record) => storedAt(byId.get(record.id) as Message, record.seq));
    this.remember(outcome.appended, appended);
    return Object.freeze({
      version: outcome.version,
      appended: Object.freeze(appended),
      duplicates: Object.freeze([...outcome.duplicates]),
    });
  }

  async replaceTail(id: string, input: ReplaceTailInput): Promise<ReplaceTailResult> {
    return this.run('replaceTail', id, () => this.cutTail(id, input));
  }

  /**
   * `replaceTail`: the head and the tail are read, the new head is built here (counts, seqs above
   * the high-water mark, title, state, sliding expiry, key check) and the driver commits it on the
   * version read, so a writer in between makes it `CONFLICT` and no acknowledged write is lost.
   */
  private async cutTail(id: string, input: ReplaceTailInput): Promise<ReplaceTailResult> {
    assertValidId(id, 'session id');
    const { afterSeq, expectedVersion, messages, state } = checkReplaceTail(input, this.name);
    const head = await this.driver.readHead(id);
    if (!this.live(head)) throw this.notFound(id);
    this.sawOwner(id, head.userId);
    this.sawKeys(id, head.keys);
    checkVersion(this.name, id, head.version, expectedVersion);
    if (afterSeq > head.lastSeq)
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${this.name}: afterSeq ${afterSeq} is beyond session ${id}'s last seq (${head.lastSeq})`,
      );
    if (head.lastSeq + messages.length > MAX_SEQ)
      throw new InvalidInputError('INVALID_ARGUMENT', `${this.name}: session ${id} would pass seq ${MAX_SEQ}`);
    // Sealed as an append is: with the owner's key, and only by a store that holds the session's keys.
    const cipher = await this.ciphers.forWrite(this.ownerKey(head.userId), head.keys);
    this.assertCanWrite(id, head.keys, cipher);
    const native = this.driver.replaceTail?.bind(this.driver);
    // Without the capability the whole session is read and replaced, on the same version.
    const whole = native === undefined ? await this.driver.readAll(id) : undefined;
    if (whole !== undefined && whole.recovered === undefined)
      checkVersion(this.name, id, whole.head.version, expectedVersion);
    const removed =
      whole === undefined
        ? await this.driver.readRange(id, { afterSeq })
        : whole.recovered === undefined
          ? whole.messages.filter((record) => record.seq > afterSeq)
          : undefined;
    if (removed === undefined) throw this.notFound(id);
    const readCipher = await this.ciphers.forRead(head.keys, dataOf(removed));
    let removedTokens = 0;
    for (const record of removed) removedTokens += this.counter.countMessage(this.decode(record, id, readCipher));
    const stored: Message[] = [];
    const records: Array<MessageRecord & { text?: string }> = [];
    let tokens = 0;
    let title = head.title;
    let chosen = title === undefined ? metadataTitle(state?.metadata) : undefined;
    for (const message of messages) {
      const withSeq = storedAt(message, head.lastSeq + records.length + 1);
      stored.push(withSeq);
      records.push(
        Object.freeze({
          seq: withSeq.seq as number,
          id: message.id,
          data: encodeMessage(withSeq, id, cipher),
          ...this.textOf(message),
        }),
      );
      tokens += this.counter.countMessage(message);
      // A session without a title takes the caller's `metadata.title`, else its first user message's.
      chosen ??= title === undefined ? titleOf(message) : undefined;
    }
    if (title === undefined && chosen !== undefined) title = encodeTitle(chosen, id, cipher);
    const extra = state === undefined ? undefined : decodeHeadData(head.data, id, cipher, this.name).extra;
    const data =
      state === undefined ? head.data : encodeHeadData(extra === undefined ? state : { ...state, extra }, id, cipher);
    const now = this.now();
    const updatedAt = new Date(now).toISOString();
    const keys = keysAfterAppend(head.keys ?? '', cipher.holding);
    const next: HeadRecord = Object.freeze(
      withKeys(
        withKind(
          {
            ...head,
            version: head.version + 1,
            updatedAt,
            messageCount: Math.max(0, head.messageCount - removed.length) + records.length,
            tokenCount: Math.max(0, head.tokenCount - removedTokens) + tokens,
            lastSeq: head.lastSeq + records.length,
            ...(title === undefined ? {} : { title }),
            data,
            ...(head.ttlMs === undefined ? {} : { expiresAt: now + head.ttlMs }),
          },
          state === undefined ? undefined : (kindOfMetadata(state.metadata) ?? ''),
        ),
        keys,
      ),
    );
    if (native !== undefined) {
      await native(id, { expectedVersion, afterSeq, messages: records, head: next });
    } else {
      const kept = (whole?.messages ?? []).filter((record) => record.seq <= afterSeq);
      const taken = new Set(kept.map((record) => record.id));
      const reused = messages.find((message) => taken.has(message.id));
      if (reused !== undefined)
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          `${this.name}: message id ${reused.id} is already stored in session ${id} before seq ${afterSeq}`,
        );
      // A driver that indexes text is given the kept messages' text again (its replace re-indexes all).
      const keptText = this.indexesText
        ? kept.map((record) => ({ ...record, ...this.textOf(this.decode(record, id, readCipher)) }))
        : kept;
      await this.driver.replace(id, { expectedVersion, head: next, messages: [...keptText, ...records] });
    }
    this.sawKeys(id, next.keys);
    this.told('replace', id, next.version);
    this.remember(records, stored);
    return Object.freeze({ version: next.version, removed: removed.length, messages: Object.freeze(stored) });
  }

  /** With stable records, what each record just written stands for: `messages[i]` is what `records[i]` decodes to. */
  private remember(records: readonly MessageRecord[], messages: readonly Message[]): void {
    if (this.decoded === undefined) return;
    for (let i = 0; i < records.length; i++) this.decoded.set(records[i] as MessageRecord, messages[i] as Message);
  }

  async readMessages(id: string, range: MessageRange = {}): Promise<Message[]> {
    return this.run('readMessages', id, () => this.read(id, range));
  }

  private async read(id: string, range: MessageRange): Promise<Message[]> {
    assertValidId(id, 'session id');
    const checked: MessageRange = {
      ...(range.afterSeq === undefined ? {} : { afterSeq: nonNegativeInteger(range.afterSeq, 'afterSeq') }),
      ...(range.beforeSeq === undefined ? {} : { beforeSeq: nonNegativeInteger(range.beforeSeq, 'beforeSeq') }),
      ...(range.limit === undefined ? {} : { limit: nonNegativeInteger(range.limit, 'limit', { positive: true }) }),
    };
    let records: MessageRecord[] | undefined;
    if (this.expiryInCommit) {
      // The driver answers `undefined` for a missing or expired session, in the read itself.
      records = await this.driver.readRange(id, { ...checked, now: this.now() });
      if (records === undefined) throw this.notFound(id);
      const cipher = await this.ciphers.forRead(undefined, dataOf(records));
      try {
        return records.map((record) => this.decode(record, id, cipher));
      } catch (error) {
        // No head was read: only a record that does not open costs one, to tell a key from damage.
        if (ChatstateError.hasCode(error, 'CORRUPT')) {
          const keys = (await this.driver.readHead(id))?.keys;
          this.assertCanRead(id, keys, await this.ciphers.forRead(keys, []));
        }
        throw error;
      }
    }
    const head = await this.driver.readHead(id);
    if (!this.live(head)) throw this.notFound(id);
    records = (await this.driver.readRange(id, checked)) ?? [];
    const cipher = await this.ciphers.forRead(head.keys, dataOf(records));
    this.assertCanRead(id, head.keys, cipher);
    return records.map((record) => this.decode(record, id, cipher));
  }

  async readMessagesAt(refs: readonly MessageRef[]): Promise<Array<Message | undefined>> {
    return this.run('readMessagesAt', undefined, () => this.readAt(checkMessageRefs(refs)));
  }

  private async readAt(refs: readonly MessageRef[]): Promise<Array<Message | undefined>> {
    const readRecordsAt = this.driver.readRecordsAt;
    // The driver's batch judges expiry itself; without it (or without that power), one range read per ref.
    const readEach = (some: readonly MessageRef[]): Promise<Array<Message | undefined>> =>
      readEachAt(some, (id, range) => this.read(id, range));
    if (readRecordsAt === undefined || !this.expiryInCommit) return readEach(refs);
    const records = await readRecordsAt.call(this.driver, refs, this.now());
    const bySession = new Map<string, number[]>();
    records.forEach((record, index) => {
      if (record === undefined) return;
      const id = (refs[index] as MessageRef).sessionId;
      const indexes = bySession.get(id);
      if (indexes === undefined) bySession.set(id, [index]);
      else indexes.push(index);
    });
    const messages = new Array<Message | undefined>(refs.length).fill(undefined);
    // Each session's records are opened together, as `read` opens a range.
    await Promise.all(
      [...bySession].map(async ([id, indexes]) => {
        const read = indexes.map((index) => records[index] as MessageRecord);
        try {
          const cipher = await this.ciphers.forRead(undefined, dataOf(read));
          read.forEach((record, i) => (messages[indexes[i] as number] = this.decode(record, id, cipher)));
        } catch (error) {
          if (!ChatstateError.hasCode(error, 'CORRUPT')) throw error;
          // A record that does not open: read again as `readMessages` does, which tells a missing key from damage.
          const again = await readEach(indexes.map((index) => refs[index] as MessageRef));
          indexes.forEach((index, i) => (messages[index] = again[i]));
        }
      }),
    );
    return messages;
  }

  async list(query: ListQuery = {}): Promise<SessionSummary[]> {
    return this.run('list', undefined, () => this.index(query));
  }

  private async index(query: ListQuery): Promise<SessionSummary[]> {
    const checked = checkListQuery(query, this.name);
    const heads = await this.driver.list({ ...checked, now: this.now() });
    const { after } = checked;
    // A driver that ignores the cursor gives its row back, and a walk paging by it would never end.
    if (after !== undefined && heads.some((head) => head.id === after.id && head.updatedAt === after.updatedAt)) {
      throw new UnsupportedError(`${this.name}: the store's driver ignores list's cursor (after)`, {
        store: this.name,
        capability: 'list after',
      });
    }
    const cipher = await this.rowCipher(heads);
    return heads.map((head) => this.summaryOf(head, cipher));
  }

  /**
   * The cipher that opens the titles and head data of `heads`, for rows of a listing. A user key
   * that cannot be found or read (destroyed, damaged, its store down) leaves only that user's rows
   * without their titles and links: the listing goes on.
   */
  private async rowCipher(heads: readonly HeadRecord[]): Promise<RecordCipher> {
    if (!this.ciphers.perUser) return this.cipher;
    const sealed = heads.flatMap((head) => [head.title, head.data]);
    try {
      return await this.ciphers.forRead(undefined, sealed);
    } catch {
      // One user's key failed: each row on its own, so the others keep theirs.
      const ciphers = await Promise.all(
        heads.map(async (head) => this.ciphers.forRead(undefined, [head.title, head.data]).catch(() => this.cipher)),
      );
      const byData = new Map<string, RecordCipher>();
      heads.forEach((head, index) => {
        for (const data of [head.title, head.data])
          if (data !== undefined) byData.set(data, ciphers[index] as RecordCipher);
      });
      return { ...this.cipher, open: (data, aad) => (byData.get(data) ?? this.cipher).open(data, aad) };
    }
  }

  async marks(userId: string): Promise<SessionMark[]> {
    return this.run('marks', undefined, async () => {
      const user = assertOwnerId(userId, 'userId');
      const listMarks = this.driver.listMarks;
      if (listMarks !== undefined) {
        const records = await listMarks.call(this.driver, user, this.now());
        return records.map(({ damage, ...mark }) =>
          Object.freeze({ ...mark, ...(damage === undefined ? {} : { damaged: damage }) }),
        );
      }
      // Without the capability: the listing, page by page.
      return marksByListing((query) => this.index(query), user);
    });
  }

  async summary(id: string): Promise<SessionSummary | undefined> {
    return this.run('summary', id, async () => {
      let head: HeadRecord | undefined;
      try {
        head = await this.driver.readHead(assertValidId(id, 'session id'));
      } catch (error) {
        // A head that cannot be read is summarized as the listing shows it: deletes and ownership checks go on.
        const damaged =
          error instanceof ChatstateError && error.code === 'CORRUPT' ? await this.listedDamaged(id) : undefined;
        if (damaged === undefined) throw error;
        return this.summaryOf(damaged, this.cipher);
      }
      if (head !== undefined) this.sawOwner(id, head.userId);
      return this.live(head) ? this.summaryOf(head, await this.rowCipher([head])) : undefined;
    });
  }

  /** Session `id` as the listing shows it when its head is damaged (`listedHead`); `undefined` otherwise. */
  private async listedDamaged(id: string): Promise<HeadRecord | undefined> {
    const limit = 100;
    let after: HeadRecord | undefined;
    for (;;) {
      const page = await this.driver.list({
        idPrefix: id,
        kinds: 'all',
        limit,
        offset: 0,
        now: this.now(),
        ...(after === undefined ? {} : { after: { id: after.id, updatedAt: after.updatedAt } }),
      });
      const found = page.find((head) => head.id === id);
      if (found !== undefined) return found.damage === undefined ? undefined : found;
      after = page.at(-1);
      if (page.length < limit || after === undefined) return undefined;
    }
  }

  /** A head as a row of `list`. */
  private summaryOf(head: HeadRecord, cipher: RecordCipher): SessionSummary {
    if (head.damage !== undefined) {
      return Object.freeze({
        id: head.id,
        ...(head.agentId === undefined ? {} : { agentId: head.agentId }),
        ...(head.userId === undefined ? {} : { userId: head.userId }),
        ...kindField(head.kind),
        messageCount: 0,
        tokenCount: 0,
        version: 0,
        createdAt: head.createdAt,
        updatedAt: head.updatedAt,
        damaged: head.damage,
      });
    }
    const title = decodeTitle(head.title, head.id, cipher);
    return Object.freeze({
      id: head.id,
      ...(head.agentId === undefined ? {} : { agentId: head.agentId }),
      ...(head.userId === undefined ? {} : { userId: head.userId }),
      ...kindField(head.kind),
      ...(title === undefined ? {} : { title }),
      messageCount: head.messageCount,
      tokenCount: head.tokenCount,
      version: head.version,
      createdAt: head.createdAt,
      updatedAt: head.updatedAt,
      ...(head.expiresAt === undefined ? {} : { expiresAt: new Date(head.expiresAt).toISOString() }),
      ...(head.recovery === undefined || head.recovery.length === 0 ? {} : { recovery: head.recovery }),
      ...this.linksOf(head, cipher),
    });
  }

  /**
   * The continuation and fork links of a head's metadata, for `list` rows (chains are shown
   * together). Plain head data without a link is not parsed; a head this store cannot open has none.
   */
  private linksOf(head: HeadRecord, cipher: RecordCipher): SessionLinks {
    if (!isSealed(head.data) && !LINK_MARKS.some((mark) => head.data.includes(mark))) return {};
    let metadata: JsonObject;
    try {
      metadata = decodeHeadData(head.data, head.id, cipher, this.name).metadata;
    } catch {
      // Damage or a foreign key: reads of the session say so; a row only goes without its links.
      return {};
    }
    return linksOfMetadata(metadata);
  }

  async delete(id: string): Promise<boolean> {
    return this.run('delete', id, async () => {
      const removed = await this.driver.remove(assertValidId(id, 'session id'));
      // The version it had is not known here (0); a shared feed's own report may carry it.
      if (removed) this.told('delete', id, 0);
      return removed;
    });
  }

  async purgeExpired(options?: PurgeOptions): Promise<number> {
    return this.run('purgeExpired', undefined, async () => {
      const { idPrefix } = checkPurgeOptions(options, this.name);
      const now = this.now();
      const { driver } = this;
      if (driver.purgeExpired === undefined) return this.purgeByListing(now, idPrefix);
      if (idPrefix === undefined) return driver.purgeExpired(now);
      return driver.capabilities?.purgeByIdPrefix === true
        ? driver.purgeExpired(now, idPrefix)
        : this.purgeByListing(now, idPrefix);
    });
  }

  /**
   * The purge of a driver without `purgeExpired` (or, for `idPrefix`, without
   * `capabilities.purgeByIdPrefix`): every head (under the prefix) is listed (`now: 0` keeps expired
   * ones), then each expired session is read again and removed. Ids are gathered before any
   * removal, so removing does not shift the pages still to read. Not atomic with other writers: a
   * session saved again between the second read and the removal can go (a driver that must not
   * allow that implements `purgeExpired`), and one a concurrent change moved past the pages read
   * is left for the next purge.
   */
  private async purgeByListing(now: number, idPrefix: string | undefined): Promise<number> {
    const expired = new Set<string>();
    const only = idPrefix === undefined ? {} : { idPrefix };
    for (let offset = 0; ; offset += PURGE_PAGE) {
      const heads = await this.driver.list({ limit: PURGE_PAGE, offset, now: 0, kinds: 'all', ...only });
      for (const head of heads) if (isExpired(head.expiresAt, now)) expired.add(head.id);
      if (heads.length < PURGE_PAGE) break;
    }
    let purged = 0;
    for (const id of expired) {
      const head = await this.driver.readHead(id);
      if (head !== undefined && isExpired(head.expiresAt, now) && (await this.driver.remove(id))) {
        purged += 1;
        this.told('delete', id, head.version);
      }
    }
    return purged;
  }

  async forgetUser(userId: string): Promise<ForgetReceipt> {
    return this.run('forgetUser', undefined, async () => {
      const target = forgetTarget(userId);
      const { sessionIds, ...counts } =
        this.driver.forgetUser === undefined
          ? await forgetByListing(this.driver, target)
          : await this.driver.forgetUser(target);
      for (const id of sessionIds) {
        this.sawOwner(id, userId);
        this.told('delete', id, 0);
      }
      // What this store remembers of the user's sessions (owner, key check) goes with them.
      const gone = new Set<string>(sessionIds);
      this.owners.deleteWhere((id, owner) => (owner === userId ? gone.add(id).has(id) : gone.has(id)));
      this.keyChecks.deleteWhere((id) => gone.has(id));
      const cached = runForgetHooks(this, userId);
      // The key goes after the data: a forget cut short before it is finished by the next call,
      // which finds no data left and destroys the key then (every copy elsewhere goes unreadable).
      const keys = await this.ciphers.forget(target.userNamespace);
      return receiptOf(userId, { ...counts, cached, keys }, this.now());
    });
  }

  async close(): Promise<void> {
    if (this.closing === undefined) {
      this.closed = true;
      this.closing = Promise.allSettled([...this.pending])
        .then(() => this.feed.close())
        .then(() => this.driver.close());
    }
    return this.closing;
  }
}

/**
 * A `SessionStore` over `driver`: every store in chatstate is one of these. The driver implements
 * the required `SessionDriver` primitives and any capability interfaces (`PurgeDriver`,
 * `ValueDriver`, `TextSearchDriver`); the core falls back for the ones it lacks. A driver that is
 * not one (a required method missing, half of the values capability) is `INVALID_ARGUMENT`.
 */
export function createSessionStore(driver: AnyStoreDriver, options: SessionStoreOptions = {}): SessionStore {
  return new CoreSessionStore(driver, options);
}
