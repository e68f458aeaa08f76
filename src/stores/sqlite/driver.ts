/**
 * The SQLite driver: prepared statements over one connection, every write committed in a
 * `BEGIN IMMEDIATE` transaction, and writes issued in the same tick grouped into one commit.
 * @module
 */
import {
  checkKeys,
  checkVersion,
  closedError,
  isExpired,
  listedHead,
  markOfHead,
  noSessionError,
  prefixEnd,
  reusedIdError,
} from '../../store/driver-helpers.js';
import type {
  AppendCommit,
  AppendOutcome,
  DriverCapabilities,
  DriverForgetResult,
  ForgetTarget,
  HeadRecord,
  DriverRange,
  MessageRecord,
  RecordRef,
  ReplaceCommit,
  SessionMarkRecord,
  StoreDriver,
  TailCommit,
  ValueRecord,
} from '../../store/driver-types.js';
import type { TextSearchHit, TextSearchQuery } from '../../store/session-store-types.js';
import type { DatabaseLabel } from './schema.js';
import {
  checkedValues,
  forgetExpired,
  forgetSession,
  forgetText,
  forgetTextAfter,
  forgetUserRows,
  indexMessages,
  indexQueued,
  prepareActiveMemoryStatements,
  queueMessages,
  readValues,
  searchIndex,
  writeValues,
} from './active-memory-sql.js';
import {
  assertStorable,
  headOf,
  listParameters,
  messageOf,
  prepareStatements,
  translateError,
  type HeadRow,
  type MessageRow,
  type SqliteDatabaseLike,
} from './sql.js';
import { headValues, rawColumns } from '../sql-head.js';

/** What a write that erases returns: its value, and what it removed (see `writeErasing`). */
interface Erasure<T> {
  readonly value: T;
  /** It deleted rows: the write-ahead log still holds their pages' earlier versions. */
  readonly removed: boolean;
  /** It deleted rows of the full-text index: their terms stay in the index's segments until a merge. */
  readonly removedText: boolean;
}

/** One queued write: runs inside the group's transaction. */
interface PendingWrite {
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type ListArguments = Parameters<StoreDriver['list']>[0];

/**
 * Appended messages whose text waits in the index queue before a commit indexes the batch: one
 * FTS5 segment per this many messages instead of one per commit. Indexing costs about 20 µs of CPU
 * per message at any batch size past a few dozen (tokenizing is most of it); a larger batch means
 * fewer, longer pauses (a few milliseconds here) and a longer queue for a search to index first.
 */
export const INDEX_BATCH = 256;

/** After a commit of several writes, later writes gather in groups (see `write`) for this long, renewed by every group. */
const GROUPED_HOLD_MS = 20;

/**
 * The driver. better-sqlite3 is synchronous: reads run at once; writes are queued and committed at
 * the end of the current tick, so appends issued together by concurrent callers share one
 * transaction and one fsync (group commit). Each write runs in its own savepoint, so one that fails
 * (a `CONFLICT`, a missing session) rolls back alone. A write's promise resolves only after COMMIT
 * has returned, with `synchronous = FULL`: an acknowledged write is on disk.
 */
export class SqliteDriver implements StoreDriver {
  readonly name: string;
  /** Message text is indexed with FTS5 and searched by `searchText`; expiry is checked inside appends and range reads. */
  readonly capabilities: DriverCapabilities = Object.freeze({
    fullTextSearch: true,
    expiryInCommit: true,
    purgeByIdPrefix: true,
  });
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly activeMemory: ReturnType<typeof prepareActiveMemoryStatements>;
  private queue: PendingWrite[] = [];
  private scheduled = false;
  /** Until when writes wait for `setImmediate` to gather a group (several were committed together lately). */
  private groupedUntil = 0;
  private closed = false;
  /** Texts queued for the index since this connection last indexed the queue (counting, at open, what others left). */
  private unindexed: number;

  constructor(
    private readonly db: SqliteDatabaseLike,
    private readonly label: DatabaseLabel,
    private readonly ownsDatabase: boolean,
  ) {
    this.name = label.store;
    this.statements = this.guard(() => prepareStatements(db));
    this.activeMemory = this.guard(() => prepareActiveMemoryStatements(db));
    this.unindexed = this.guard(() => (this.activeMemory.countQueued.get() as { queued: number }).queued);
  }

  /** Runs `work`, turning SQLite errors into chatstate errors that name the store. */
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw translateError(error, this.label);
    }
  }

  /** The connection is closed with the driver: nothing may reach it after (the core refuses first; this guards direct use). */
  private checkOpen(): void {
    if (this.closed) throw closedError(this.name);
  }

  /** A consistent read: one snapshot of the database, even while other processes write. */
  private read<T>(work: () => T): Promise<T> {
    try {
      this.checkOpen();
      return Promise.resolve(
        this.guard(() => {
          this.db.exec('BEGIN');
          try {
            const result = work();
            this.db.exec('COMMIT');
            return result;
          } catch (error) {
            this.rollback();
            throw error;
          }
        }),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private rollback(): void {
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // No transaction left to roll back (SQLite ends it itself on some errors).
    }
  }

  private write<T>(run: () => T): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.name));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate runs after every promise continuation of this tick, so writers that resume
        // together (after the previous group commit) land in the same group. A lone writer (no
        // group of several lately) commits at the end of the microtasks instead: it waits for no
        // turn of the event loop, and a write issued beside it in the same tick still joins it.
        if (performance.now() < this.groupedUntil) setImmediate(() => this.flush());
        else queueMicrotask(() => this.flush());
      }
    });
  }

  /**
   * Indexes the queued text inside the group's transaction, in its own savepoint: an index that
   * cannot be written now (say, a damaged FTS5 table) must not fail the appends it rides with. The
   * queue then stays for the next batch, and a search, which indexes it outside any append, reports
   * the error.
   */
  private indexBatch(): void {
    this.unindexed = 0;
    this.db.exec('SAVEPOINT chatstate_index');
    try {
      indexQueued(this.activeMemory);
      this.db.exec('RELEASE chatstate_index');
    } catch {
      // These throw when SQLite has ended the whole transaction (it does on some I/O errors): the group fails then.
      this.db.exec('ROLLBACK TO chatstate_index');
      this.db.exec('RELEASE chatstate_index');
    }
  }

  /** Commits every queued write in one transaction; `final` (on close) also indexes a partial batch. */
  private flush(final = false): void {
    this.scheduled = false;
    const group = this.queue;
    this.queue = [];
    if (group.length > 1) this.groupedUntil = performance.now() + GROUPED_HOLD_MS;
    if (group.length === 0 && !(final && this.unindexed > 0)) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const write of group) {
        if (group.length === 1) {
          outcomes.push({ ok: true, value: write.run() });
          continue;
        }
        this.db.exec('SAVEPOINT chatstate_write');
        try {
          outcomes.push({ ok: true, value: write.run() });
          this.db.exec('RELEASE chatstate_write');
        } catch (error) {
          try {
            this.db.exec('ROLLBACK TO chatstate_write');
            this.db.exec('RELEASE chatstate_write');
          } catch {
            // SQLite has already ended the whole transaction (it does on some I/O errors): every
            // write of the group is lost, and fails with this write's error.
            throw error;
          }
          outcomes.push({ ok: false, error });
        }
      }
      if (this.unindexed >= INDEX_BATCH || (final && this.unindexed > 0)) this.indexBatch();
      this.db.exec('COMMIT');
    } catch (error) {
      this.rollback();
      // A lone write's own error (CONFLICT, NOT_FOUND) passes through translateError unchanged.
      const failure = translateError(error, this.label);
      for (const write of group) write.reject(failure);
      return;
    }
    group.forEach((write, index) => {
      const outcome = outcomes[index] as (typeof outcomes)[number];
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(translateError(outcome.error, this.label));
    });
  }

  readHead(id: string): Promise<HeadRecord | undefined> {
    return this.read(() => {
      const row = this.statements.readHead.get(id) as HeadRow | undefined;
      return row === undefined ? undefined : headOf(row, this.label);
    });
  }

  readAll(id: string): Promise<{ head: HeadRecord; messages: MessageRecord[] } | undefined> {
    return this.read(() => {
      const row = this.statements.readHead.get(id) as HeadRow | undefined;
      if (row === undefined) return undefined;
      const rows = this.statements.readMessages.all(id) as MessageRow[];
      return { head: headOf(row, this.label), messages: rows.map((message) => messageOf(message, id, this.label)) };
    });
  }

  readRange(id: string, range: DriverRange): Promise<MessageRecord[] | undefined> {
    return this.read(() => {
      const session = this.statements.exists.get(id) as { expires_at: number | null } | undefined;
      if (session === undefined || isExpired(session.expires_at, range.now)) return undefined;
      const rows = this.statements.readTail.all(
        id,
        range.afterSeq ?? 0,
        range.beforeSeq ?? Number.MAX_SAFE_INTEGER,
        // LIMIT -1 is SQLite's "no limit".
        range.limit ?? -1,
      ) as MessageRow[];
      return rows.reverse().map((message) => messageOf(message, id, this.label));
    });
  }

  /** Every ref read in one read transaction: each session's expiry once, then one key lookup per ref. */
  readRecordsAt(refs: readonly RecordRef[], now: number): Promise<Array<MessageRecord | undefined>> {
    return this.read(() => {
      const live = new Map<string, boolean>();
      return refs.map(({ sessionId, seq }) => {
        let found = live.get(sessionId);
        if (found === undefined) {
          const session = this.statements.exists.get(sessionId) as { expires_at: number | null } | undefined;
          found = session !== undefined && !isExpired(session.expires_at, now);
          live.set(sessionId, found);
        }
        if (!found) return undefined;
        const row = this.statements.readAt.get(sessionId, seq) as MessageRow | undefined;
        return row === undefined ? undefined : messageOf(row, sessionId, this.label);
      });
    });
  }

  append(id: string, commit: AppendCommit): Promise<AppendOutcome> {
    return this.write(() => {
      const head = this.statements.appendHead.get(id) as
        | {
            version: number;
            last_seq: number;
            user_id: string | null;
            expires_at: number | null;
            key_check: string | null;
          }
        | undefined;
      if (head === undefined || isExpired(head.expires_at, commit.now)) throw noSessionError(this.name, id);
      checkKeys(this.name, id, head.key_check ?? undefined, commit.keys?.expected);
      checkVersion(this.name, id, head.version, commit.expectedVersion);
      const appended: MessageRecord[] = [];
      const queued: Array<{ seq: number; id: string; text: string }> = [];
      const duplicates: string[] = [];
      let seq = head.last_seq;
      let tokens = 0;
      let title: string | undefined;
      for (const message of commit.messages) {
        if (this.statements.insertMessage.run(id, seq + 1, message.id, message.data).changes === 0) {
          duplicates.push(message.id);
          continue;
        }
        seq += 1;
        appended.push(Object.freeze({ seq, id: message.id, data: message.data }));
        if (message.text !== undefined) queued.push({ seq, id: message.id, text: message.text });
        tokens += message.tokens;
        title ??= message.title;
      }
      if (appended.length === 0) return { version: head.version, appended, duplicates };
      if (queued.length > 0) {
        queueMessages(this.activeMemory, id, head.user_id, queued);
        this.unindexed += queued.length;
      }
      // An append never removes a key check (only a save rewrites it): '' leaves the stored one.
      const keys = commit.keys?.next === undefined || commit.keys.next === '' ? null : commit.keys.next;
      this.statements.advanceHead.run(
        commit.updatedAt,
        appended.length,
        tokens,
        seq,
        title ?? null,
        commit.data ?? null,
        Date.parse(commit.updatedAt),
        keys,
        commit.kind ?? null,
        commit.kind ?? null,
        id,
      );
      return { version: head.version + 1, appended, duplicates };
    });
  }

  replace(id: string, commit: ReplaceCommit): Promise<void> {
    const { head } = commit;
    try {
      assertStorable(head.agentId, 'agentId', this.label);
      assertStorable(head.userId, 'userId', this.label);
      assertStorable(head.createdAt, 'createdAt', this.label);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.writeErasing(() => {
      if (commit.expectedVersion !== undefined || commit.expectedKeys !== undefined) {
        const row = this.statements.version.get(id) as { version: number; key_check: string | null } | undefined;
        if (row !== undefined) checkKeys(this.name, id, row.key_check ?? undefined, commit.expectedKeys);
        if (commit.expectedVersion !== undefined)
          checkVersion(this.name, id, row?.version ?? 0, commit.expectedVersion);
      }
      // A rewrite asked to erase what it drops (a forgotten fact) erases it from the files; other
      // rewrites (a compaction) leave freed index terms and log pages to later merges and
      // checkpoints, which cost in proportion to the whole index. A message is told by its seq and
      // id: one edited in place under both is not seen as dropped.
      const kept = new Set(commit.messages.map((message) => `${message.seq}:${message.id}`));
      const drops = (rows: unknown[]): boolean =>
        (rows as Array<{ seq: number; id: string }>).some((row) => !kept.has(`${row.seq}:${row.id}`));
      const removed = commit.erase === true && drops(this.statements.messageKeys.all(id));
      const removedText = removed && drops(this.activeMemory.indexedKeys.all(id));
      this.statements.deleteMessages.run(id);
      // The index is rewritten with the messages (at once: one segment for the whole session): the
      // old rows, queued or indexed, may name messages that are gone, or a user the session no longer has.
      forgetText(this.activeMemory, id);
      this.statements.upsertHead.run(...headValues({ ...head, id }));
      for (const message of commit.messages)
        this.statements.insertReplacement.run(id, message.seq, message.id, message.data);
      indexMessages(this.activeMemory, id, head.userId, commit.messages);
      return { value: undefined, removed, removedText };
    });
  }

  /** One write of the group commit: the version checked, the rows after `afterSeq` deleted, the new ones and the head written. */
  replaceTail(id: string, commit: TailCommit): Promise<void> {
    const { head, afterSeq } = commit;
    return this.write(() => {
      const row = this.statements.version.get(id) as { version: number } | undefined;
      if (row === undefined) throw noSessionError(this.name, id);
      checkVersion(this.name, id, row.version, commit.expectedVersion);
      for (const message of commit.messages)
        if (this.statements.messageIdBefore.get(id, message.id, afterSeq) !== undefined)
          throw reusedIdError(this.name, id, message.id);
      this.statements.deleteMessagesAfter.run(id, afterSeq);
      forgetTextAfter(this.activeMemory, id, afterSeq);
      for (const message of commit.messages)
        this.statements.insertReplacement.run(id, message.seq, message.id, message.data);
      this.statements.upsertHead.run(...headValues({ ...head, id }));
      const queued = commit.messages.flatMap((message) =>
        message.text === undefined ? [] : [{ seq: message.seq, id: message.id, text: message.text }],
      );
      if (queued.length > 0) {
        queueMessages(this.activeMemory, id, head.userId ?? null, queued);
        this.unindexed += queued.length;
      }
    });
  }

  list(query: ListArguments): Promise<HeadRecord[]> {
    return this.read(() => {
      const rows = this.statements.list(query).all(...listParameters(query)) as HeadRow[];
      return rows.flatMap((row) => listedHead(row, (r) => headOf(r, this.label), rawColumns) ?? []);
    });
  }

  /** The user's live sessions in one indexed query, damaged rows flagged as `list` flags them. */
  listMarks(userId: string, now: number): Promise<SessionMarkRecord[]> {
    return this.read(() => {
      const rows = this.statements.marks.all(userId, now) as HeadRow[];
      return rows.flatMap((row) => {
        const head = listedHead(row, (r) => headOf(r, this.label), rawColumns);
        return head === undefined ? [] : [markOfHead(head)];
      });
    });
  }

  remove(id: string): Promise<boolean> {
    return this.write(() => {
      forgetSession(this.activeMemory, id);
      this.statements.deleteMessages.run(id);
      return this.statements.deleteHead.run(id).changes > 0;
    });
  }

  /** Removes the user's rows in one write transaction (a crash leaves all or none) that erases them from the files. */
  forgetUser(target: ForgetTarget): Promise<DriverForgetResult> {
    return this.writeErasing(() => {
      const result = forgetUserRows(this.activeMemory, this.statements, target);
      // Erased even when nothing was found: a forget cut short after its commit is finished by calling again.
      return { value: result, removed: true, removedText: result.textRows > 0 };
    });
  }

  /**
   * A write whose deletes leave no byte in the files: `work` runs with `secure_delete` on (what it
   * frees is zeroed); when it removed index rows the index is merged in the same transaction (a
   * delete only marks a row's terms, which stay in their segments); when it removed anything the
   * write-ahead log is checkpointed to empty after the commit (the log keeps the pages' earlier
   * versions). The merge costs time in proportion to the whole index: only writes that erase pay it.
   */
  private async writeErasing<T>(work: () => Erasure<T>): Promise<T> {
    const erasure = await this.write(() => {
      const before = (this.db.prepare('PRAGMA secure_delete').get() as { secure_delete: number }).secure_delete;
      this.db.exec('PRAGMA secure_delete = ON');
      try {
        const done = work();
        if (done.removedText) this.activeMemory.optimizeIndex.run();
        return done;
      } finally {
        this.db.exec(`PRAGMA secure_delete = ${before === 1 ? 'ON' : 'OFF'}`);
      }
    });
    // Another connection reading may keep part of the log; its next checkpoint overwrites the rest.
    if (erasure.removed) this.guard(() => this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)'));
    return erasure.value;
  }

  purgeExpired(now: number, idPrefix?: string): Promise<number> {
    return this.write(() => {
      if (idPrefix === undefined) {
        forgetExpired(this.activeMemory, now);
        this.statements.purgeMessages.run(now);
        return this.statements.purgeHeads.run(now).changes;
      }
      // One namespace: its expired ids, each removed as `remove` does, all in this one transaction
      // (the expiry read and the removal see the same rows, so a session saved again stays).
      const rows = this.statements.expiredIdsUnder.all(now, idPrefix, prefixEnd(idPrefix)) as Array<{ id: string }>;
      let purged = 0;
      for (const { id } of rows) {
        forgetSession(this.activeMemory, id);
        this.statements.deleteMessages.run(id);
        purged += this.statements.deleteHead.run(id).changes;
      }
      return purged;
    });
  }

  readValues(ns: string, keys?: readonly string[]): Promise<ValueRecord[]> {
    return this.read(() => readValues(this.activeMemory, this.label, ns, keys));
  }

  writeValues(
    ns: string,
    entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
  ): Promise<void> {
    let checked: ReturnType<typeof checkedValues>;
    try {
      checked = checkedValues(this.label, ns, entries);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.write(() => writeValues(this.activeMemory, ns, checked, Date.now()));
  }

  async searchText(query: TextSearchQuery): Promise<TextSearchHit[]> {
    this.checkOpen();
    // Text still queued (by this connection or another process) is indexed first, in a write that
    // joins the group commit: a search sees every append acknowledged before it was called.
    if (this.guard(() => this.activeMemory.anyQueued.get() !== undefined)) {
      await this.write(() => {
        this.unindexed = 0;
        indexQueued(this.activeMemory);
      });
    }
    return this.read(() => searchIndex(this.activeMemory, query));
  }

  /** Commits the writes still queued (and indexes the queued text), then closes the connection if the driver opened it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush(true);
    if (this.ownsDatabase) this.guard(() => this.db.close());
  }
}
