/**
 * The Redis driver: every operation is one Lua script (`scripts.ts`) on the keys of one session or
 * one value namespace (`layout.ts`), run by `EVALSHA` (and `EVAL` when the server lost the script),
 * so appends and replaces are atomic across every process sharing the server and an append touches
 * only the new messages. After a write it publishes the change (`change-feed.ts`) and, with
 * `confirm`, waits for `WAIT` / `WAITAOF`. Its replies are checked by `records.ts`; the connection
 * (`connection.ts`) bounds every wait. `index.ts` opens it (`redisDriver`) on a URL or a client.
 * @module
 */
import { ChatstateError, UnavailableError, errorMessage } from '../../errors.js';
import type { DriverChangeSink } from '../../store/change-types.js';
import {
  checkKeys,
  checkVersion,
  closedError,
  listedHead,
  noSessionError,
  reusedIdError,
} from '../../store/driver-helpers.js';
import type {
  AppendCommit,
  AppendOutcome,
  DriverListQuery,
  DriverRange,
  HeadRecord,
  MessageRecord,
  RecordRef,
  ReplaceCommit,
  SessionMarkRecord,
  StoreDriver,
  TailCommit,
  DriverForgetResult,
  ForgetTarget,
  ValueRecord,
} from '../../store/driver-types.js';
import { NO_COUNTS, addCounts } from '../../store/forget.js';
import { namespaceSession } from '../../store/values.js';
import type { RedisChangeFeed } from './change-feed.js';
import type { Effect, RedisConnection } from './connection.js';
import type { KeyLayout } from './layout.js';
import { mergedList } from './list-merge.js';
import { headFields, redisRecords, text, type RedisRecords } from './records.js';
import { SCRIPTS, type Script } from './scripts.js';

/**
 * A Redis connection, by shape: `ioredis`'s `Redis` is one. The store sends every command through
 * `call(command, args)` and reads replies as RESP2 or RESP3 arrays of strings or Buffers; another
 * client fits with a one-line adapter (node-redis: `call: (command, args) => client.sendCommand([command, ...args.map(String)])`).
 */
export interface RedisLike {
  call(command: string, args: Array<string | number>): Promise<unknown>;
  /** Closes the connection after pending replies; used only on clients the store created. */
  quit?(): Promise<unknown>;
  /** `ioredis` options; a `keyPrefix` there is put before the store's own prefix. */
  readonly options?: { readonly keyPrefix?: string | undefined };
  /** `true` on `ioredis`'s `Cluster`: the store then uses its Redis Cluster key layout. */
  readonly isCluster?: boolean;
}

/** How each write is confirmed before its promise resolves. */
export interface RedisConfirm {
  /** Replicas that must acknowledge the write (`WAIT`, or `WAITAOF` with `aof`). @default 0 */
  replicas?: number;
  /** Wait until the write is fsynced to the append-only file (`WAITAOF`, Redis ≥ 7.2 with `appendonly yes`). @default false */
  aof?: boolean;
  /** How long to wait for the confirmation before failing. @default 1000 */
  timeoutMs?: number;
}

/** Keys one SCAN step of `forgetUser` examines. */
const SCAN_COUNT = 1000;

/** `text` as a literal in a SCAN pattern. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

// Sessions a `purgeExpired` script handles at once: bounds how long one script blocks the server.
const PURGE_BATCH = 200;

function noScript(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.startsWith('NOSCRIPT');
}

function status(records: RedisRecords, reply: unknown, id: string): { status: string; rest: unknown[] } {
  const items = records.list(reply, id, 'a script reply');
  const first = items[0];
  const text = typeof first === 'string' ? first : Buffer.isBuffer(first) ? first.toString('utf8') : '';
  return { status: text, rest: items.slice(1) };
}

/**
 * A rewrite's times as the scripts take them: updated, the absolute expiry, and the remaining
 * lifetime — Redis expires the keys after it, counted on the server's own clock, so skew between
 * this process and Redis cannot make Redis delete a session early.
 */
function headTimes(head: HeadRecord): Array<string | number> {
  const updatedMs = Date.parse(head.updatedAt);
  const expireInMs = head.expiresAt === undefined ? '' : Math.max(1, head.expiresAt - updatedMs);
  return [updatedMs, head.expiresAt ?? '', expireInMs];
}

/** A rewrite's head fields (their count, then names and values) and records (their count, then seq, id and data of each). */
function headAndRecords(head: HeadRecord, records: readonly MessageRecord[]): Array<string | number> {
  const fields = headFields(head);
  const args: Array<string | number> = [fields.length / 2, ...fields, records.length];
  for (const record of records) args.push(record.seq, record.id, record.data);
  return args;
}

/** A `StoreDriver` over one Redis server or a Redis Cluster; `redisDriver` (`index.ts`) opens it. */
export class RedisDriver implements StoreDriver {
  // Expiry: Redis's own for the keys, and the caller's clock checked inside the append and range scripts.
  readonly capabilities = Object.freeze({ nativeExpiry: true, expiryInCommit: true, purgeByIdPrefix: true });
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;
  private readonly records: RedisRecords;

  constructor(
    readonly name: string,
    private readonly connection: RedisConnection,
    private readonly layout: KeyLayout,
    private readonly confirm: Required<RedisConfirm> | undefined,
    private readonly feed: RedisChangeFeed,
  ) {
    this.records = redisRecords(name);
  }

  /** The change feed: PUBLISH after each write, a subscriber connection while anyone listens (see `change-feed.ts`). */
  watchChanges(sink: DriverChangeSink): Promise<() => Promise<void>> {
    return this.feed.watch(sink);
  }

  /** Runs `operation`, counted so that `close` waits for it; nothing reaches the connection once it is closed. */
  private track<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.name));
    const promise = operation();
    this.pending.add(promise);
    const done = (): void => void this.pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /**
   * `EVALSHA` on the keys under `base`, and `EVAL` when the server has lost the script (restart,
   * `SCRIPT FLUSH`, a cluster node that has not run it yet): nothing ran then.
   */
  private async run(script: Script, base: string, args: Array<string | number>, effect: Effect): Promise<unknown> {
    const route = this.layout.routingKey(base);
    const all = route === undefined ? [0, base, ...args] : [1, route, base, ...args];
    try {
      return await this.connection.call('EVALSHA', [script.sha, ...all], effect);
    } catch (error) {
      if (!noScript(error)) throw error;
      return this.connection.call('EVAL', [script.source, ...all], effect);
    }
  }

  /**
   * PUBLISH of a change of session `id`: on one server a plain command; on a cluster from the
   * session's own slot (see `SCRIPTS.publish`), so one session's changes arrive in their order.
   */
  publishFrom(id: string, channel: string, payload: string): Promise<unknown> {
    const base = this.layout.sessionBase(id);
    if (this.layout.routingKey(base) === undefined) return this.connection.call('PUBLISH', [channel, payload], 'write');
    return this.run(SCRIPTS.publish, base, [channel, payload], 'write');
  }

  /** The write to `id` happened, but its confirmation did not: retryable, and retrying an append is safe. */
  private unconfirmed(id: string, why: string, details: Record<string, unknown>, cause?: unknown): UnavailableError {
    return new UnavailableError(
      `${this.name}: the write to session ${JSON.stringify(id)} was applied but not confirmed ${why}`,
      { store: this.name, reason: 'UNCONFIRMED', outcome: 'applied', id, ...details },
      { cause },
    );
  }

  /** `WAIT`/`WAITAOF`, which blocks on the server for up to the confirmation timeout; a lost connection leaves the write unconfirmed. */
  private async waitFor(id: string, command: string, args: number[]): Promise<unknown> {
    const confirm = this.confirm as Required<RedisConfirm>;
    try {
      return await this.connection.call(command, args, 'read', confirm.timeoutMs);
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'UNAVAILABLE')) throw error;
      throw this.unconfirmed(id, `(${command} failed: ${errorMessage(error)})`, { wanted: confirm.replicas }, error);
    }
  }

  /** Waits for the configured confirmation of the writes made so far on this connection. */
  private async confirmed(id: string): Promise<void> {
    const confirm = this.confirm;
    if (confirm === undefined || (!confirm.aof && confirm.replicas === 0)) return;
    let local = 1;
    let replicas: number;
    if (confirm.aof) {
      const reply = this.records.list(
        await this.waitFor(id, 'WAITAOF', [1, confirm.replicas, confirm.timeoutMs]),
        id,
        'the WAITAOF reply',
      );
      local = this.records.integer(reply[0], id, 'the WAITAOF local count');
      replicas = this.records.integer(reply[1], id, 'the WAITAOF replica count');
    } else {
      replicas = this.records.integer(
        await this.waitFor(id, 'WAIT', [confirm.replicas, confirm.timeoutMs]),
        id,
        'the WAIT reply',
      );
    }
    if (local < 1 || replicas < confirm.replicas) {
      // Applied but not confirmed: the caller may retry (appends are idempotent by message id).
      throw this.unconfirmed(
        id,
        `within ${confirm.timeoutMs} ms (${confirm.aof ? `fsynced locally: ${local === 1 ? 'yes' : 'no'}, ` : ''}replicas: ${replicas} of ${confirm.replicas})`,
        {
          local,
          replicas,
          wanted: confirm.replicas,
        },
      );
    }
  }

  readHead(id: string): Promise<HeadRecord | undefined> {
    return this.track(async () =>
      this.records.parseHead(await this.run(SCRIPTS.readHead, this.layout.sessionBase(id), [id], 'read'), id),
    );
  }

  /** Reads `probeId`'s head in every bucket: on a cluster, every master that holds sessions answers. */
  ping(probeId: string): Promise<void> {
    return this.track(async () => {
      await Promise.all(this.layout.bases.map((base) => this.run(SCRIPTS.readHead, base, [probeId], 'read')));
    });
  }

  readAll(id: string): Promise<{ head: HeadRecord; messages: MessageRecord[] } | undefined> {
    return this.track(async () => {
      const reply = await this.run(SCRIPTS.readAll, this.layout.sessionBase(id), [id], 'read');
      if (reply === null || reply === undefined) return undefined;
      const [head, ids, bodies] = this.records.list(reply, id, 'the session');
      const parsed = this.records.parseHead(head, id);
      if (parsed === undefined) return undefined;
      return { head: parsed, messages: this.records.parseMessages(ids, bodies, id, false) };
    });
  }

  readRange(id: string, range: DriverRange): Promise<MessageRecord[] | undefined> {
    return this.track(async () => {
      const reply = await this.run(
        SCRIPTS.readRange,
        this.layout.sessionBase(id),
        [id, range.afterSeq ?? '', range.beforeSeq ?? '', range.limit ?? '', range.now ?? ''],
        'read',
      );
      if (reply === null || reply === undefined) return undefined;
      const [ids, bodies, descending] = this.records.list(reply, id, 'the message range');
      if (!Array.isArray(ids))
        throw this.records.corrupt(id, `the head's ${String(bodies)} is not a non-negative integer`);
      return this.records.parseMessages(
        ids,
        bodies,
        id,
        this.records.integer(descending, id, 'the range direction') === 1,
      );
    });
  }

  /**
   * The records at `refs`: one script per bucket they fall in (on one server, one script), sent
   * together; each bucket's script reads its refs atomically.
   */
  readRecordsAt(refs: readonly RecordRef[], now: number): Promise<Array<MessageRecord | undefined>> {
    return this.track(async () => {
      const records = new Array<MessageRecord | undefined>(refs.length).fill(undefined);
      const byBase = new Map<string, number[]>();
      refs.forEach((ref, index) => {
        const base = this.layout.sessionBase(ref.sessionId);
        const indexes = byBase.get(base);
        if (indexes === undefined) byBase.set(base, [index]);
        else indexes.push(index);
      });
      await Promise.all(
        [...byBase].map(async ([base, indexes]) => {
          const args = indexes.flatMap((index) => [
            (refs[index] as RecordRef).sessionId,
            (refs[index] as RecordRef).seq,
          ]);
          const reply = await this.run(SCRIPTS.readAt, base, [now, ...args], 'read');
          const [status, first, second] = this.records.list(reply, '(readAt)', 'the records at refs');
          if (text(status) === 'CORRUPT') {
            const id = text(first) ?? '(unknown)';
            throw this.records.corrupt(id, `the head's ${String(text(second))} is not a non-negative integer`);
          }
          const found = this.records.list(first, '(readAt)', 'the records at refs');
          indexes.forEach((index, i) => {
            const ref = refs[index] as RecordRef;
            const messageId = text(found[i * 2]);
            const data = text(found[i * 2 + 1]);
            if (messageId === undefined || messageId === '') return;
            if (data === undefined || data === '')
              throw this.records.corrupt(
                ref.sessionId,
                `message ${ref.seq} (${JSON.stringify(messageId.slice(0, 140))}) has no body`,
              );
            records[index] = Object.freeze({ seq: ref.seq, id: messageId, data });
          });
        }),
      );
      return records;
    });
  }

  append(id: string, commit: AppendCommit): Promise<AppendOutcome> {
    return this.track(async () => {
      const keys = commit.keys;
      const args: Array<string | number> = [
        id,
        commit.expectedVersion ?? '',
        commit.updatedAt,
        Date.parse(commit.updatedAt),
        commit.data ?? '',
        commit.now ?? '',
        keys === undefined ? '0' : '1',
        keys?.expected ?? '',
        keys?.next ?? '',
        commit.kind === undefined ? '' : `=${commit.kind}`,
        commit.messages.length,
      ];
      for (const message of commit.messages) args.push(message.id, message.data, message.tokens, message.title ?? '');
      const { status: outcome, rest } = status(
        this.records,
        await this.run(SCRIPTS.append, this.layout.sessionBase(id), args, 'write'),
        id,
      );
      switch (outcome) {
        case 'OK':
          break;
        case 'NOT_FOUND':
          throw noSessionError(this.name, id);
        case 'KEYS':
          checkKeys(this.name, id, text(rest[0]) ?? '', keys?.expected);
          throw this.records.corrupt(id, 'the append script reported a key check it cannot explain');
        case 'CONFLICT':
          checkVersion(this.name, id, this.records.integer(rest[0], id, 'the version'), commit.expectedVersion);
          throw this.records.corrupt(id, 'the append script reported a conflict it cannot explain');
        case 'CORRUPT':
          throw this.records.corrupt(id, `the head's ${String(rest[0])} is not a non-negative integer`);
        default:
          throw this.records.corrupt(id, `the append script answered ${JSON.stringify(outcome.slice(0, 40))}`);
      }
      const version = this.records.integer(rest[0], id, 'the version');
      const added = this.records.list(rest[1], id, 'the appended ids');
      const bodies = new Map(commit.messages.map((message) => [message.id, message.data]));
      const appended: MessageRecord[] = [];
      for (let index = 0; index + 1 < added.length; index += 2) {
        const messageId = String(added[index]);
        appended.push(
          Object.freeze({
            seq: this.records.integer(added[index + 1], id, 'an appended seq'),
            id: messageId,
            data: bodies.get(messageId) ?? '',
          }),
        );
      }
      const duplicates = this.records.list(rest[2], id, 'the duplicate ids').map(String);
      if (appended.length > 0) await this.feed.publish({ kind: 'append', id, version });
      if (appended.length > 0) await this.confirmed(id);
      return { version, appended, duplicates };
    });
  }

  replace(id: string, commit: ReplaceCommit): Promise<void> {
    return this.track(async () => {
      const { head } = commit;
      const args: Array<string | number> = [
        id,
        commit.expectedVersion ?? '',
        ...headTimes(head),
        head.userId ?? '',
        head.agentId ?? '',
        commit.expectedKeys === undefined ? '0' : '1',
        commit.expectedKeys ?? '',
        ...headAndRecords(head, commit.messages),
      ];
      const { status: outcome, rest } = status(
        this.records,
        await this.run(SCRIPTS.replace, this.layout.sessionBase(id), args, 'write'),
        id,
      );
      switch (outcome) {
        case 'OK':
          break;
        case 'KEYS':
          checkKeys(this.name, id, text(rest[0]) ?? '', commit.expectedKeys);
          throw this.records.corrupt(id, 'the replace script reported a key check it cannot explain');
        default:
          this.refused('replace', id, outcome, rest, commit.expectedVersion);
      }
      await this.replaced(id, head);
    });
  }

  /** The typed error of a rewrite script's other answers: a version conflict, a damaged head, or an answer it cannot explain. */
  private refused(
    script: 'replace' | 'tail',
    id: string,
    outcome: string,
    rest: readonly unknown[],
    expectedVersion: number | undefined,
  ): never {
    switch (outcome) {
      case 'CONFLICT':
        checkVersion(this.name, id, this.records.integer(rest[0], id, 'the version'), expectedVersion);
        throw this.records.corrupt(id, `the ${script} script reported a conflict it cannot explain`);
      case 'CORRUPT':
        throw this.records.corrupt(id, `the head's ${String(rest[0])} is not a non-negative integer`);
      default:
        throw this.records.corrupt(id, `the ${script} script answered ${JSON.stringify(outcome.slice(0, 40))}`);
    }
  }

  /** Tells the feed a session was rewritten (a replace or a tail replace) and waits for the write to be confirmed. */
  private async replaced(id: string, head: HeadRecord): Promise<void> {
    await this.feed.publish({
      kind: 'replace',
      id,
      version: head.version,
      ...(head.userId === undefined ? {} : { userId: head.userId }),
    });
    await this.confirmed(id);
  }

  /** One script: the version checked, the messages after `afterSeq` removed, the new ones and the head written. */
  replaceTail(id: string, commit: TailCommit): Promise<void> {
    return this.track(async () => {
      const { head } = commit;
      const args: Array<string | number> = [
        id,
        commit.expectedVersion,
        commit.afterSeq,
        ...headTimes(head),
        ...headAndRecords(head, commit.messages),
      ];
      const { status: outcome, rest } = status(
        this.records,
        await this.run(SCRIPTS.tail, this.layout.sessionBase(id), args, 'write'),
        id,
      );
      switch (outcome) {
        case 'OK':
          break;
        case 'NOT_FOUND':
          throw noSessionError(this.name, id);
        case 'REUSED':
          throw reusedIdError(this.name, id, text(rest[0]) ?? '');
        default:
          this.refused('tail', id, outcome, rest, commit.expectedVersion);
      }
      await this.replaced(id, head);
    });
  }

  list(query: DriverListQuery): Promise<HeadRecord[]> {
    return this.track(async () => {
      const bases = this.layout.bases;
      const only = bases.length === 1 ? bases[0] : undefined;
      if (only !== undefined) return this.listBucket(only, query, query.after, query.offset, query.limit);
      // Each bucket lists from the cursor; the merge applies the offset to the merged order.
      return mergedList(bases.length, query, (bucket, after, limit) =>
        this.listBucket(bases[bucket] as string, query, after, 0, limit),
      );
    });
  }

  /** The heads of one bucket matching `query`, in list order, strictly after `after`, paged by `offset` and `limit`. */
  private async listBucket(
    base: string,
    query: DriverListQuery,
    after: DriverListQuery['after'],
    offset: number,
    limit: number,
  ): Promise<HeadRecord[]> {
    const reply = await this.run(
      SCRIPTS.list,
      base,
      [
        query.now,
        offset,
        limit,
        query.userId ?? '',
        query.agentId ?? '',
        // Scored as the index is: the negated milliseconds of updatedAt.
        after === undefined ? '' : String(-Date.parse(after.updatedAt)),
        after?.id ?? '',
        query.expired === true ? '1' : '',
        query.idPrefix ?? '',
        query.kinds === undefined || query.kinds === 'all'
          ? ''
          : query.kinds === 'conversations'
            ? '-'
            : `,${query.kinds.join(',')},`,
      ],
      'read',
    );
    return this.records.list(reply, '(list)', 'the listing').flatMap((entry) => {
      const [rawId, head] = this.records.list(entry, '(list)', 'a listing entry');
      const id = typeof rawId === 'string' ? rawId : Buffer.isBuffer(rawId) ? rawId.toString('utf8') : undefined;
      const decode = (): HeadRecord => {
        const parsed = this.records.parseHead(head, id ?? '(unknown)');
        if (parsed === undefined) throw this.records.corrupt(id ?? '(unknown)', 'the listing returned an empty head');
        return parsed;
      };
      return listedHead(head, decode, (reply) => this.records.rawColumns(reply, id)) ?? [];
    });
  }

  /** The marks of the user's live sessions: one script per bucket, each a consistent view of its bucket. */
  listMarks(userId: string, now: number): Promise<SessionMarkRecord[]> {
    return this.track(async () => {
      const marks: SessionMarkRecord[] = [];
      for (const base of this.layout.bases) {
        const reply = await this.run(SCRIPTS.marks, base, [now, userId], 'read');
        for (const entry of this.records.list(reply, '(list)', 'the marks')) {
          const mark = this.markOf(text(entry), userId);
          if (mark !== undefined) marks.push(mark);
        }
      }
      return marks;
    });
  }

  /** One line of the marks script as a record; a field that does not read is the session's damage, as `list` flags it. */
  private markOf(line: string | undefined, userId: string): SessionMarkRecord | undefined {
    const [id, version, createdAt, messageCount, tokenCount, owner] = (line ?? '').split('\t');
    // A head that names another user is not the user's session: `list({ userId })` leaves it out too.
    if (id === undefined || id.length === 0 || owner !== userId) return undefined;
    try {
      if (createdAt === undefined || createdAt.length === 0)
        throw this.records.corrupt(id, 'the head has no createdAt');
      return {
        id,
        version: this.records.integer(version, id, "the head's version"),
        createdAt,
        messageCount: this.records.integer(messageCount, id, "the head's messageCount"),
        tokenCount: this.records.integer(tokenCount, id, "the head's tokenCount"),
      };
    } catch (error) {
      if (!ChatstateError.hasCode(error, 'CORRUPT')) throw error;
      return {
        id,
        version: 0,
        createdAt: createdAt || new Date(0).toISOString(),
        messageCount: 0,
        tokenCount: 0,
        damage: errorMessage(error),
      };
    }
  }

  remove(id: string): Promise<boolean> {
    return this.track(async () => {
      const removed =
        this.records.integer(
          await this.run(SCRIPTS.remove, this.layout.sessionBase(id), [id], 'write'),
          id,
          'the remove reply',
        ) === 1;
      if (removed) await this.feed.publish({ kind: 'delete', id, version: 0 });
      await this.confirmed(id);
      return removed;
    });
  }

  /**
   * Each bucket's sessions of the user in batches (one script each), then their values: the
   * user's namespace by name and agent namespaces by a SCAN of each bucket's keys (Redis keeps no
   * index of them). A connection lost mid-way is an `UNAVAILABLE` error; calling again finishes.
   */
  forgetUser(target: ForgetTarget): Promise<DriverForgetResult> {
    return this.track(async () => {
      let counts = NO_COUNTS;
      const sessionIds: string[] = [];
      for (const base of this.layout.bases) {
        for (;;) {
          const [examined, removed] = this.records.list(
            await this.run(SCRIPTS.forgetSessions, base, [target.userId, PURGE_BATCH], 'write'),
            '(forget)',
            'the forget reply',
          );
          const rows = this.records.list(removed, '(forget)', 'the forget reply');
          for (let at = 0; at < rows.length; at += 5) {
            const id = String(rows[at]);
            const [existed, messages, values, vectors] = [1, 2, 3, 4].map((offset) =>
              this.records.integer(rows[at + offset], id, 'the forget reply'),
            ) as [number, number, number, number];
            if (existed === 1) sessionIds.push(id);
            counts = addCounts(counts, { sessions: existed, messages, sessionValues: values, vectors });
          }
          if (this.records.integer(examined, '(forget)', 'the forget reply') < PURGE_BATCH) break;
        }
      }
      for (const id of sessionIds) await this.feed.publish({ kind: 'delete', id, version: 0 });
      const userBase = this.layout.valueBase(target.userNamespace);
      for (const base of this.layout.bases) {
        const pattern = `${globEscape(base)}v:agent:*${globEscape(target.agentSuffix)}`;
        let cursor = '0';
        do {
          const [next, values] = this.records.list(
            await this.run(
              SCRIPTS.forgetValues,
              base,
              [cursor, SCAN_COUNT, pattern, base === userBase && cursor === '0' ? target.userNamespace : ''],
              'write',
            ),
            '(forget)',
            'the forget reply',
          );
          cursor = String(next);
          counts = addCounts(counts, { values: this.records.integer(values, '(forget)', 'the forget reply') });
        } while (cursor !== '0');
      }
      await this.confirmed('(forget)');
      return { ...counts, sessionIds };
    });
  }

  purgeExpired(now: number, idPrefix?: string): Promise<number> {
    return this.track(async () => {
      // Every bucket at once (one on a single server); each purges in batches. A prefix does not
      // name a bucket (ids spread by their hash), so each bucket is visited for it too.
      const counts = await Promise.all(this.layout.bases.map((base) => this.purgeBucket(base, now, idPrefix ?? '')));
      const purged = counts.reduce((sum, count) => sum + count, 0);
      if (purged > 0) await this.confirmed('(purge)');
      return purged;
    });
  }

  /**
   * Purges one bucket in batches. An examined entry is purged, moved past `now`, or (outside
   * `idPrefix`) skipped: the skipped ones stay where they were, so the next batch starts past them
   * and each batch makes progress. Other namespaces' expired sessions are read, not removed: a
   * namespace's purge costs what every namespace has expired, as the index is by expiry only.
   */
  private async purgeBucket(base: string, now: number, idPrefix: string): Promise<number> {
    let purged = 0;
    for (let offset = 0; ;) {
      const [count, examined, skipped] = this.records.list(
        await this.run(SCRIPTS.purge, base, [now, PURGE_BATCH, idPrefix, offset], 'write'),
        '(purge)',
        'the purge reply',
      );
      purged += this.records.integer(count, '(purge)', 'the purged count');
      offset += this.records.integer(skipped, '(purge)', 'the skipped count');
      if (this.records.integer(examined, '(purge)', 'the examined count') < PURGE_BATCH) break;
    }
    return purged;
  }

  readValues(ns: string, keys?: readonly string[]): Promise<ValueRecord[]> {
    return this.track(async () =>
      this.records.parseValues(
        await this.run(
          SCRIPTS.readValues,
          this.layout.valueBase(ns),
          keys === undefined ? [ns, ''] : [ns, keys.length, ...keys],
          'read',
        ),
      ),
    );
  }

  writeValues(
    ns: string,
    entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
  ): Promise<void> {
    return this.track(async () => {
      const args: Array<string | number> = [ns, namespaceSession(ns) ?? '', entries.length];
      for (const entry of entries) args.push(entry.data === null ? 'd' : 's', entry.key, entry.data ?? '');
      await this.run(SCRIPTS.writeValues, this.layout.valueBase(ns), args, 'write');
      await this.confirmed('(values)');
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Pending calls settle first (each wait is bounded); a client the caller passed in stays theirs to close.
    await Promise.allSettled([...this.pending]);
    await this.connection.close();
  }
}
