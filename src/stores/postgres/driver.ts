/**
 * The Postgres driver: every operation on a pooled connection, writes in transactions. An append
 * locks the head row (`SELECT … FOR UPDATE`, which serializes writers across processes), skips ids
 * already stored, inserts only the new rows and updates the head: its cost does not depend on the
 * session's size.
 * @module
 */
import type { ConnectionGate } from './gate.js';
import { ChatstateError, ConflictError, DataError } from '../../errors.js';
import {
  appendToHead,
  checkKeys,
  checkVersion,
  isExpired,
  listedHead,
  markOfHead,
  noSessionError,
  reusedIdError,
  prefixEnd,
} from '../../store/driver-helpers.js';
import { rawColumns } from '../sql-head.js';
import type {
  AppendCommit,
  AppendOutcome,
  DriverCapabilities,
  DriverForgetResult,
  DriverListQuery,
  ForgetTarget,
  HeadRecord,
  DriverRange,
  MessageRecord,
  RecordRef,
  ReplaceCommit,
  SessionMarkRecord,
  TailCommit,
  StoreDriver,
  ValueRecord,
} from '../../store/driver-types.js';
import type { TextSearchHit, TextSearchQuery } from '../../store/session-store-types.js';
import type { DriverChangeSink } from '../../store/change-types.js';
import type { ConnectionLimits } from '../network.js';
import {
  changeChannel,
  changePayload,
  listenForChanges,
  notifyStatements,
  type NotifyStatements,
} from './change-feed.js';
import { checkout, endPool, type Checkout, type OwnedPool, type SocketTracker } from './connection.js';
import {
  forgetManySessionValues,
  forgetSessionValues,
  forgetStatements,
  forgetUserRows,
  indexMessages,
  activeMemoryStatements,
  plannedWrites,
  readValues,
  searchIndex,
  writeValues,
  type ActiveMemoryStatements,
} from './active-memory-sql.js';
import {
  assertStorable,
  headOf,
  headValues,
  isStorable,
  messageOf,
  statements,
  type Statements,
  type Tables,
} from './sql.js';

/** The result of a query, as `pg` returns it (only what the store reads). */
export interface PgResultLike {
  readonly rows: unknown[];
  readonly rowCount: number | null;
}

/** A pooled connection, as `pg`'s `PoolClient` is. */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<PgResultLike>;
  /** Returns the connection to its pool; with an error, the pool discards it. */
  release(error?: Error | boolean): void;
  /**
   * `pg` reports a connection that breaks while checked out as an `'error'` event, which crashes
   * the process when nobody listens: the store listens while it holds the connection.
   */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  /** Stops the store's listener when it gives the connection back. */
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A connection pool, as `pg`'s `Pool` is: the store only checks connections out and back in. */
export interface PgPoolLike {
  connect(): Promise<PgClientLike>;
}

// Rows per INSERT of a replace: bounds the size of one statement's parameters for huge sessions.
const INSERT_BATCH = 1000;
// Deadlocks and serialization failures roll the whole transaction back, so it can simply run again.
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 5;
/** A save of at least this many messages refreshes the planner statistics (see `refreshStatistics`). */
const BULK_ROWS = 5_000;
// SQLSTATEs meaning the tables are not what the store created: a missing table, column or schema.
const DAMAGED = new Set(['42P01', '42703', '3F000', '42804']);

/** The SQLSTATE of an error the server reported (pg's DatabaseError); undefined for anything else. */
function sqlState(error: unknown): string | undefined {
  const { code, severity } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    severity?: unknown;
  };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string' ? code : undefined;
}

/** Damaged tables become `CORRUPT` naming the store; every other error passes through unchanged. */
function translate(error: unknown, tables: Tables): unknown {
  const state = sqlState(error);
  if (state !== undefined && DAMAGED.has(state)) {
    return new DataError(
      'CORRUPT',
      `${tables.store}: the tables in schema "${tables.schema}" with prefix "${tables.prefix}" are missing or damaged: ${(error as Error).message}`,
      {
        cause: error,
        details: { sqlState: state },
      },
    );
  }
  return error;
}

/** The pool the store made from a URL: ended on close, its sockets destroyed when a stalled server keeps them open. */
export interface OwnedConnections {
  readonly pool: OwnedPool;
  readonly sockets: SocketTracker;
  /** The queue of checkouts (the pool holds one connection more, for the change feed's LISTEN). */
  readonly gate: ConnectionGate;
}

/** The driver over a pool and migrated tables (made by `postgresDriver`). */
export class PostgresDriver implements StoreDriver {
  readonly name: string;
  /** Message text is indexed as a `tsvector` and searched by `searchText`; expiry is checked inside appends and range reads. */
  readonly capabilities: DriverCapabilities = Object.freeze({
    fullTextSearch: true,
    expiryInCommit: true,
    purgeByIdPrefix: true,
  });
  private readonly sql: Statements;
  private readonly activeMemory: ActiveMemoryStatements;
  private readonly forget: ReturnType<typeof forgetStatements>;
  private readonly pending = new Set<Promise<unknown>>();
  /** The change feed's channel and statements; `undefined` with `changeFeed: false`. */
  private readonly feed: { readonly channel: string; readonly sql: NotifyStatements } | undefined;
  /** The change feed capability (LISTEN on a pooled connection); absent with `changeFeed: false`. */
  readonly watchChanges?: (sink: DriverChangeSink) => Promise<() => Promise<void>>;

  constructor(
    private readonly pool: PgPoolLike,
    private readonly tables: Tables,
    private readonly limits: ConnectionLimits,
    private readonly owned: OwnedConnections | undefined,
    changeFeed = true,
  ) {
    this.name = tables.store;
    this.sql = statements(tables);
    this.activeMemory = activeMemoryStatements(tables);
    this.forget = forgetStatements(tables);
    if (changeFeed) {
      const feed = { channel: changeChannel(tables), sql: notifyStatements(this.sql) };
      this.feed = feed;
      this.watchChanges = (sink) =>
        listenForChanges({ pool: this.pool, limits: this.limits, channel: feed.channel, store: this.name }, sink);
    }
  }

  /** Remembers an operation until it settles, so that `close` can wait for it. */
  private async track<T>(operation: Promise<T>): Promise<T> {
    this.pending.add(operation);
    try {
      return await operation;
    } finally {
      this.pending.delete(operation);
    }
  }

  /** Runs `work` on one pooled connection; a connection that failed outside SQL is discarded, not reused. */
  async withClient<T>(work: (client: Checkout) => Promise<T>): Promise<T> {
    return this.track(this.onClient(work));
  }

  private async onClient<T>(work: (client: Checkout) => Promise<T>): Promise<T> {
    // Waiting for a busy connection is bounded by the command timeout, not the connect timeout.
    const permit = await this.owned?.gate.acquire(this.limits.commandTimeoutMs);
    let client: Checkout;
    try {
      client = await checkout(this.pool, this.limits, this.name);
    } catch (error) {
      permit?.();
      throw error;
    }
    try {
      return await work(client);
    } catch (error) {
      // A server-reported SQL error (it has a SQLSTATE) leaves the connection usable; anything
      // else that is not ours (a bug in a caller's pool, a protocol surprise) may have left it mid-protocol.
      if (!ChatstateError.isInstance(error) && sqlState(error) === undefined)
        client.discard(error instanceof Error ? error : new Error(String(error)));
      throw translate(error, this.tables);
    } finally {
      client.release();
      permit?.();
    }
  }

  /** Runs `work` in a transaction, again when Postgres rolled it back for a deadlock or serialization failure. */
  private async transaction<T>(work: (client: PgClientLike) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    return this.track(this.attempts(work, begin));
  }

  private async attempts<T>(work: (client: PgClientLike) => Promise<T>, begin: string): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.withClient(async (client) => {
          await client.query(begin);
          try {
            const result = await work(client);
            await client.query('COMMIT');
            return result;
          } catch (error) {
            // A broken connection has no transaction left to roll back (the server ends it with the
            // connection); asking would only wait for another timeout.
            if (client.isBroken) throw error;
            // A connection whose ROLLBACK failed may still be inside the transaction: never reuse it.
            await client
              .query('ROLLBACK')
              .catch((rollbackError: unknown) =>
                client.discard(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
              );
            throw error;
          }
        });
      } catch (error) {
        const state = sqlState(error);
        if (attempt >= MAX_ATTEMPTS || state === undefined || !RETRYABLE.has(state)) throw error;
      }
    }
  }

  private async insertMessages(client: PgClientLike, id: string, records: readonly MessageRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += INSERT_BATCH) {
      const batch = records.slice(start, start + INSERT_BATCH);
      await client.query(this.sql.insertMessages, [
        id,
        batch.map((record) => record.seq),
        batch.map((record) => record.id),
        batch.map((record) => record.data),
      ]);
    }
  }

  async readHead(id: string): Promise<HeadRecord | undefined> {
    const result = await this.withClient((client) => client.query(this.sql.readHead, [id]));
    return result.rows.length === 0 ? undefined : headOf(result.rows[0], this.name);
  }

  async readAll(id: string): Promise<{ head: HeadRecord; messages: MessageRecord[] } | undefined> {
    // Both reads in one snapshot: a replace committing between them cannot mix two versions.
    return this.transaction(async (client) => {
      const head = await client.query(this.sql.readHead, [id]);
      if (head.rows.length === 0) return undefined;
      const messages = await client.query(this.sql.readMessages, [id]);
      return {
        head: headOf(head.rows[0], this.name),
        messages: messages.rows.map((row) => messageOf(row, id, this.name)),
      };
    }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  async readRange(id: string, range: DriverRange): Promise<MessageRecord[] | undefined> {
    const values = [
      id,
      range.afterSeq ?? 0,
      range.beforeSeq ?? Number.MAX_SAFE_INTEGER,
      range.limit ?? null,
      range.now ?? null,
    ];
    const result = await this.withClient((client) => client.query(this.sql.readRange, values));
    if (result.rows.length === 0) return undefined;
    // A session without messages in the range yields one row of NULLs from the outer join.
    return result.rows
      .filter((row) => (row as { seq?: unknown }).seq !== null)
      .map((row) => messageOf(row, id, this.name))
      .reverse();
  }

  async append(id: string, commit: AppendCommit): Promise<AppendOutcome> {
    return this.transaction(async (client) => {
      // The row lock makes every other appender or replacer of this session wait until we commit.
      const locked = await client.query(this.sql.lockHead, [id]);
      const head = locked.rows.length === 0 ? undefined : headOf(locked.rows[0], this.name);
      // An expired session is absent, judged under the row lock (a concurrent save cannot revive it in between).
      if (head === undefined || isExpired(head.expiresAt, commit.now)) throw noSessionError(this.name, id);
      checkKeys(this.name, id, head.keys, commit.keys?.expected);
      checkVersion(this.name, id, head.version, commit.expectedVersion);
      if (commit.messages.length === 0) return { version: head.version, appended: [], duplicates: [] };
      const known = await client.query(this.sql.knownIds, [id, commit.messages.map((message) => message.id)]);
      const ids = new Set(known.rows.map((row) => (row as { id: unknown }).id));
      const next = appendToHead(head, commit, (messageId) => ids.has(messageId));
      if (next.appended.length > 0) {
        await this.insertMessages(client, id, next.appended);
        const texts = new Map(commit.messages.map((message) => [message.id, message.text]));
        const indexed = next.appended.map((record) => ({ seq: record.seq, id: record.id, text: texts.get(record.id) }));
        await indexMessages(client, this.activeMemory, id, head.userId, indexed);
        const { version, updatedAt, expiresAt, messageCount, tokenCount, lastSeq, title, data, keys, kind } = next.head;
        const values = [
          id,
          version,
          updatedAt,
          expiresAt ?? null,
          messageCount,
          tokenCount,
          lastSeq,
          title ?? null,
          data,
          keys ?? null,
          kind ?? null,
        ];
        // With the feed, the same statement notifies: told on commit, at no extra round trip.
        if (this.feed === undefined) await client.query(this.sql.appendHead, values);
        else await client.query(this.feed.sql.appendHead, [...values, this.feed.channel]);
      }
      return { version: next.head.version, appended: next.appended, duplicates: next.duplicates };
    });
  }

  /** One transaction under the head's row lock: the version checked, the rows after `afterSeq` deleted, the new ones and the head written. */
  async replaceTail(id: string, commit: TailCommit): Promise<void> {
    const { head, afterSeq } = commit;
    const values = headValues({ ...head, id });
    await this.transaction(async (client) => {
      const locked = await client.query(this.sql.lockHead, [id]);
      if (locked.rows.length === 0) throw noSessionError(this.name, id);
      checkVersion(this.name, id, headOf(locked.rows[0], this.name).version, commit.expectedVersion);
      if (commit.messages.length > 0) {
        const reused = await client.query(this.sql.keptIds, [id, afterSeq, commit.messages.map((record) => record.id)]);
        if (reused.rows.length > 0) throw reusedIdError(this.name, id, String((reused.rows[0] as { id: unknown }).id));
      }
      await client.query(this.sql.deleteMessagesAfter, [id, afterSeq]);
      await client.query(this.activeMemory.deleteIndexAfter, [id, afterSeq]);
      await client.query(this.sql.replaceHead, values);
      await this.insertMessages(client, id, commit.messages);
      await indexMessages(client, this.activeMemory, id, head.userId, commit.messages);
      if (this.feed !== undefined) {
        const { version, userId } = head;
        const payload = changePayload({ kind: 'replace', id, version, ...(userId === undefined ? {} : { userId }) });
        await client.query(this.feed.sql.notify, [this.feed.channel, payload]);
      }
    });
  }

  async replace(id: string, commit: ReplaceCommit): Promise<void> {
    assertStorable(commit.head.agentId, 'agentId', this.name);
    assertStorable(commit.head.userId, 'userId', this.name);
    const values = headValues({ ...commit.head, id });
    for (let attempt = 1; ; attempt += 1) {
      const done = await this.transaction(async (client) => {
        const locked = await client.query(this.sql.lockHead, [id]);
        if (locked.rows.length > 0) {
          const current = headOf(locked.rows[0], this.name);
          checkKeys(this.name, id, current.keys, commit.expectedKeys);
          checkVersion(this.name, id, current.version, commit.expectedVersion);
          await client.query(this.sql.deleteMessages, [id]);
          // Rewritten with the messages: old rows may name messages that are gone, or a former user.
          await client.query(this.activeMemory.deleteIndex, [id]);
          await client.query(this.sql.replaceHead, values);
        } else {
          checkVersion(this.name, id, 0, commit.expectedVersion ?? 0);
          // Waits for a concurrent creator of the same id, then inserts nothing if it committed.
          const inserted = await client.query(this.sql.insertHead, values);
          if (inserted.rowCount === 0) {
            if (commit.expectedVersion !== undefined) {
              throw new ConflictError(`${this.name}: session ${JSON.stringify(id)} was created by another writer`, {
                details: { id, expected: commit.expectedVersion },
              });
            }
            return false;
          }
        }
        await this.insertMessages(client, id, commit.messages);
        await indexMessages(client, this.activeMemory, id, commit.head.userId, commit.messages);
        if (this.feed !== undefined) {
          const { version, userId } = commit.head;
          const payload = changePayload({ kind: 'replace', id, version, ...(userId === undefined ? {} : { userId }) });
          await client.query(this.feed.sql.notify, [this.feed.channel, payload]);
        }
        return true;
      });
      if (done) {
        if (commit.messages.length >= BULK_ROWS) await this.refreshStatistics();
        return;
      }
      // Unchecked save racing a creator: the row exists now, so the next attempt locks and overwrites it.
      if (attempt >= MAX_ATTEMPTS)
        throw new ConflictError(`${this.name}: session ${JSON.stringify(id)} kept changing during a save`, {
          details: { id },
        });
    }
  }

  /**
   * Gathers planner statistics of the message tables after a bulk save. Until autovacuum has
   * analyzed new rows the planner guesses a session holds a dozen rows, and answers a tail read of a
   * 100k-message session with a bitmap scan and a sort of all its rows (measured: 58 ms instead of
   * 1.3 ms). Best effort: the save is committed, and a role that may not analyze only loses speed.
   */
  private async refreshStatistics(): Promise<void> {
    try {
      await this.withClient((client) => client.query(`ANALYZE ${this.tables.messages}, ${this.tables.search}`));
    } catch {
      // Statistics only steer plans; autovacuum gathers them later anyway.
    }
  }

  async list(query: DriverListQuery): Promise<HeadRecord[]> {
    // No stored owner can contain what Postgres text cannot hold, so such a filter matches nothing.
    if (!isStorable(query.userId) || !isStorable(query.agentId)) return [];
    const values: unknown[] = [query.now, query.limit, query.offset];
    if (query.userId !== undefined) values.push(query.userId);
    if (query.agentId !== undefined) values.push(query.agentId);
    if (query.after !== undefined) values.push(query.after.updatedAt, query.after.id);
    if (query.idPrefix !== undefined) values.push(query.idPrefix, prefixEnd(query.idPrefix));
    if (Array.isArray(query.kinds)) values.push(query.kinds);
    const sql = this.sql.list({
      kinds: query.kinds === 'conversations' ? 'conversations' : Array.isArray(query.kinds) ? 'some' : 'all',
      idPrefix: query.idPrefix !== undefined,
      userId: query.userId !== undefined,
      agentId: query.agentId !== undefined,
      after: query.after !== undefined,
      expired: query.expired === true,
    });
    const result = await this.withClient((client) => client.query(sql, values));
    return result.rows.flatMap((row) => listedHead(row, (r) => headOf(r, this.name), rawColumns) ?? []);
  }

  /** The user's live sessions in one indexed query, damaged rows flagged as `list` flags them. */
  async listMarks(userId: string, now: number): Promise<SessionMarkRecord[]> {
    if (!isStorable(userId)) return [];
    const result = await this.withClient((client) => client.query(this.sql.marks, [userId, now]));
    return result.rows.flatMap((row) => {
      const head = listedHead(row, (r) => headOf(r, this.name), rawColumns);
      return head === undefined ? [] : [markOfHead(head)];
    });
  }

  /** Every ref in one query (one primary-key probe each). */
  async readRecordsAt(refs: readonly RecordRef[], now: number): Promise<Array<MessageRecord | undefined>> {
    const records = new Array<MessageRecord | undefined>(refs.length).fill(undefined);
    if (refs.length === 0) return records;
    const values = [refs.map((ref) => ref.sessionId), refs.map((ref) => ref.seq), now];
    const result = await this.withClient((client) => client.query(this.sql.readAt, values));
    for (const row of result.rows) {
      const index = (row as { i: number }).i - 1;
      const ref = refs[index];
      if (ref !== undefined) records[index] = messageOf(row, ref.sessionId, this.name);
    }
    return records;
  }

  async remove(id: string): Promise<boolean> {
    // Messages and index rows go with their head (ON DELETE CASCADE); values by their namespaces.
    const result = await this.transaction(async (client) => {
      await forgetSessionValues(client, this.activeMemory, id);
      const feed = this.feed;
      return feed === undefined
        ? client.query(this.sql.remove, [id])
        : client.query(feed.sql.remove, [id, feed.channel]);
    });
    return (result.rowCount ?? 0) > 0;
  }

  /** One transaction: a connection lost or a process killed mid-way leaves all of the user's rows or none. */
  async forgetUser(target: ForgetTarget): Promise<DriverForgetResult> {
    return this.transaction(async (client) => {
      const result = await forgetUserRows(client, this.forget, target);
      if (this.feed !== undefined && result.sessionIds.length > 0)
        await client.query(this.feed.sql.purged, [this.feed.channel, result.sessionIds]);
      return result;
    });
  }

  async purgeExpired(now: number, idPrefix?: string): Promise<number> {
    return this.transaction(async (client) => {
      const gone =
        idPrefix === undefined
          ? await client.query(this.sql.purgeExpired, [now])
          : await client.query(this.sql.purgeExpiredUnder, [now, idPrefix, prefixEnd(idPrefix)]);
      const ids = gone.rows.map((row) => String((row as { id: unknown }).id));
      await forgetManySessionValues(client, this.activeMemory, ids);
      if (this.feed !== undefined && ids.length > 0) await client.query(this.feed.sql.purged, [this.feed.channel, ids]);
      return gone.rows.length;
    });
  }

  async readValues(ns: string, keys?: readonly string[]): Promise<ValueRecord[]> {
    return this.withClient((client) => readValues(client, this.activeMemory, ns, keys));
  }

  async writeValues(
    ns: string,
    entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
  ): Promise<void> {
    const planned = plannedWrites(this.name, ns, entries);
    if (planned.puts.length === 0 && planned.deletes.length === 0) return;
    const now = Date.now();
    await this.transaction((client) => writeValues(client, this.activeMemory, ns, planned, now));
  }

  async searchText(query: TextSearchQuery): Promise<TextSearchHit[]> {
    return this.withClient((client) => searchIndex(client, this.activeMemory, query));
  }

  async close(): Promise<void> {
    // Pending writes finish first (each wait is bounded); a pool the caller passed in stays theirs to end.
    await Promise.allSettled([...this.pending]);
    if (this.owned !== undefined) await endPool(this.owned.pool, this.owned.sockets, this.limits.connectTimeoutMs);
  }
}
