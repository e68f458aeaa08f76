/**
 * The file store, chatstate's embedded default: a directory, one folder per session holding an
 * append-only journal of checksummed records beside an atomically replaced snapshot and its
 * backup. An append writes and fsyncs only the journal, so its cost does not grow with the
 * session; the journal is folded into a new snapshot in the background once it is large.
 *
 * Within a process, operations on one session run in order (`session-cache.ts`) and concurrent
 * appends share one write and one fsync (`group-commit.ts`); appends to different sessions fsync
 * in parallel on the thread pool, and a lone append on a fast disk fsyncs on the event loop's
 * thread (`flush-policy.ts`). Between processes, a lock per session serializes writers, kept
 * across operations that follow closely (`leases.ts`), and each writer first applies what the
 * others appended. Snapshots hold one line per message with a block index, so reading the tail of
 * a long session reads only its last blocks. The `session-*.ts` files give the crash-safety
 * argument of each read and write; `tuning.ts` holds every timing and size knob.
 *
 * Durability is what `fdatasync` gives: on macOS it reaches the drive but not through the
 * drive's own cache (Node has no `F_FULLFSYNC`).
 * @module
 */
import { RECORD_SCHEMA } from '../../store/codec.js';
import { NO_COUNTS, addCounts } from '../../store/forget.js';
import { VECTOR_KEY_PREFIX, isUserNamespace } from '../../store/values.js';
import { closedError, isExpired, marksOfHeads, sortAndPage } from '../../store/driver-helpers.js';
import type {
  AppendCommit,
  AppendOutcome,
  DriverCapabilities,
  DriverForgetResult,
  DriverRange,
  ForgetTarget,
  HeadRecord,
  MessageRecord,
  RecoveryNote,
  ReplaceCommit,
  SessionMarkRecord,
  StoreDriver,
  TailCommit,
} from '../../store/driver-types.js';
import { FlushPolicy } from './flush-policy.js';
import { FoldScheduler } from './fold-scheduler.js';
import { GroupCommit } from './group-commit.js';
import { Leases } from './leases.js';
import { mentions, ownerMark, removeLeftovers, removeLostAndFound, unlistedSessionsOf } from './forget-user.js';
import { processIsGone, tryLock, unlock } from './lock.js';
import { FILE_DRIVER_SHAPE, fileDriverSettings, type FileDriverOptions } from './options.js';
import { storePaths } from './paths.js';
import { SessionCache } from './session-cache.js';
import type { FilesContext } from './session-dir.js';
import { SessionIndex } from './session-index.js';
import { SessionReader } from './session-reader.js';
import { inventory } from './session-dir.js';
import { readHeadOnly } from './session-read.js';
import { allRecords, rangeRecords, release } from './session-state.js';
import { removeSession, replaceSession } from './session-write.js';
import { checkedUnderLease, forgetState, type Slot } from './slot.js';
import { guarded } from './storage-errors.js';
import { FOREIGN_STALE_MS } from './tuning.js';
import { ValueFiles } from './value-files.js';

// What `readAll` returns beside a recovery note: nothing (the core builds the recovery session).
function emptyHead(id: string): HeadRecord {
  const epoch = new Date(0).toISOString();
  return {
    id,
    schema: RECORD_SCHEMA,
    version: 0,
    createdAt: epoch,
    updatedAt: epoch,
    messageCount: 0,
    tokenCount: 0,
    lastSeq: 0,
    data: '{}',
  };
}

/** The driver: each public operation, over the parts that keep the sessions. */
class FileDriver implements StoreDriver {
  readonly name: string;
  readonly capabilities: DriverCapabilities = FILE_DRIVER_SHAPE.capabilities;
  private readonly context: FilesContext;
  private readonly index: SessionIndex;
  private readonly values: ValueFiles;
  private readonly cache: SessionCache;
  private readonly leases: Leases;
  private readonly reader: SessionReader;
  private readonly folds: FoldScheduler;
  private readonly commits: GroupCommit;
  private closed = false;

  constructor(directory: string, options: FileDriverOptions) {
    const settings = fileDriverSettings(directory, options);
    const store = settings.name;
    const isClosed = () => this.closed;
    const isGone = processIsGone;
    const paths = storePaths(settings.directory, settings.fileSystem, store);
    this.name = store;
    this.index = new SessionIndex(paths);
    const index = this.index;
    this.context = { store, paths, lastOwner: (id) => index.lastOwner(id) };
    this.values = new ValueFiles(paths, {
      store,
      lockTimeoutMs: settings.lockTimeoutMs,
      foreignStaleMs: FOREIGN_STALE_MS,
    });
    this.cache = new SessionCache(paths, settings);
    this.leases = new Leases(paths, { store, lockTimeoutMs: settings.lockTimeoutMs, isClosed });
    this.reader = new SessionReader(this.context, this.leases, { isGone, report: settings.report });
    this.folds = new FoldScheduler({
      foldBytes: settings.foldBytes,
      cache: this.cache,
      leases: this.leases,
      reader: this.reader,
      isGone,
      isClosed,
    });
    this.commits = new GroupCommit({
      store,
      cache: this.cache,
      leases: this.leases,
      reader: this.reader,
      flushes: new FlushPolicy(),
      folds: this.folds,
    });
  }

  private checkOpen(): void {
    if (this.closed) throw closedError(this.name);
  }

  async readHead(id: string): Promise<HeadRecord | undefined> {
    this.checkOpen();
    const slot = this.cache.slot(id);
    // Under a lease this process still holds, checked under that lease, with nothing of its own
    // queued: no process can have changed the files, so the head in memory is the head on disk.
    if (slot.lease !== undefined && slot.busy === 0 && slot.pending.length === 0 && checkedUnderLease(slot))
      return slot.state.head;
    return this.cache.run(slot, async () => {
      const result = await this.reader.read(slot);
      return result.kind === 'ok' ? result.state.head : undefined;
    });
  }

  async readAll(
    id: string,
  ): Promise<{ head: HeadRecord; messages: MessageRecord[]; recovered?: RecoveryNote } | undefined> {
    this.checkOpen();
    const slot = this.cache.slot(id);
    return this.cache.run(slot, async () => {
      const result = await this.reader.withState(slot, (state) => ({ head: state.head, messages: allRecords(state) }), {
        full: true,
      });
      switch (result.kind) {
        case 'ok':
          return result.value;
        case 'recovered':
          return { head: emptyHead(id), messages: [], recovered: result.note };
        case 'none':
          return undefined;
        default:
          return result satisfies never;
      }
    });
  }

  async readRange(id: string, range: DriverRange): Promise<MessageRecord[] | undefined> {
    this.checkOpen();
    const slot = this.cache.slot(id);
    return this.cache.run(slot, async () => {
      // An expired session reads as absent (`range.now`), judged on the head read with the records.
      const result = await this.reader.withState(slot, (state) =>
        isExpired(state.head.expiresAt, range.now) ? undefined : rangeRecords(state, range),
      );
      return result.kind === 'ok' ? result.value : undefined;
    });
  }

  append(id: string, commit: AppendCommit): Promise<AppendOutcome> {
    try {
      this.checkOpen();
      return this.commits.append(this.cache.slot(id), commit);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A tail replace in one journal record (see `GroupCommit.replaceTail`). */
  replaceTail(id: string, commit: TailCommit): Promise<void> {
    try {
      this.checkOpen();
      return this.commits.replaceTail(this.cache.slot(id), commit);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async replace(id: string, commit: ReplaceCommit): Promise<void> {
    this.checkOpen();
    const slot = this.cache.slot(id);
    await this.cache.run(slot, () =>
      this.leases.locked(slot, async () => {
        const result = await this.reader.readLocked(slot);
        slot.state = await replaceSession(
          this.context,
          slot.paths,
          result.kind === 'ok' ? result.state : undefined,
          commit,
          processIsGone,
        );
      }),
    );
  }

  async list(query: Parameters<StoreDriver['list']>[0]): Promise<HeadRecord[]> {
    this.checkOpen();
    return sortAndPage(await this.index.heads(), query);
  }

  /** The user's marks from the session index (`list`'s own source), without sorting or paging every head. */
  async listMarks(userId: string, now: number): Promise<SessionMarkRecord[]> {
    this.checkOpen();
    return marksOfHeads(await this.index.heads(), userId, now);
  }

  async remove(id: string): Promise<boolean> {
    this.checkOpen();
    const slot = this.cache.slot(id);
    return this.cache.run(slot, () => this.leases.locked(slot, () => this.removeLocked(slot)));
  }

  readValues(ns: string, keys?: readonly string[]): ReturnType<StoreDriver['readValues']> {
    this.checkOpen();
    return this.values.read(ns, keys);
  }

  writeValues(ns: string, entries: Parameters<StoreDriver['writeValues']>[1]): Promise<void> {
    this.checkOpen();
    return this.values.write(ns, entries);
  }

  async purgeExpired(now: number, idPrefix?: string): Promise<number> {
    this.checkOpen();
    const expired = (await this.index.heads()).filter(
      (head) => isExpired(head.expiresAt, now) && (idPrefix === undefined || head.id.startsWith(idPrefix)),
    );
    let purged = 0;
    for (const candidate of expired) {
      const slot = this.cache.slot(candidate.id);
      const removed = await this.cache.run(slot, () =>
        this.leases.locked(slot, async () => {
          // Checked again under the lock: another process may have extended or replaced it.
          const result = await this.reader.readLocked(slot);
          if (result.kind !== 'ok' || !isExpired(result.state.head.expiresAt, now)) return false;
          return this.removeLocked(slot);
        }),
      );
      if (removed) purged += 1;
    }
    return purged;
  }

  /** Removes everything of one user (see `forget-user.ts`): safe to run again after a crash cut it short. */
  async forgetUser(target: ForgetTarget): Promise<DriverForgetResult> {
    this.checkOpen();
    const { paths } = this.context;
    const mark = ownerMark(target.userId);
    const heads = await this.index.heads();
    const candidates = heads.filter((head) => head.userId === target.userId).map((head) => head.id);
    candidates.push(...unlistedSessionsOf(paths, new Set(heads.map((head) => head.id)), mark));
    let counts = NO_COUNTS;
    const sessionIds: string[] = [];
    const forget = async (id: string, owned: (userId: string | undefined) => boolean): Promise<void> => {
      const removed = await this.forgetSession(id, owned, mark);
      if (removed === undefined) return;
      counts = addCounts(counts, removed);
      if ((removed.sessions ?? 0) > 0) sessionIds.push(id);
    };
    for (const id of candidates) await forget(id, (userId) => userId === target.userId);
    const lost = await removeLostAndFound(paths, new Set(sessionIds), mark);
    // A recovery session (no owner) in the place of a lost session of the user's goes with it.
    for (const id of lost.sessions) if (!sessionIds.includes(id)) await forget(id, (userId) => userId === undefined);
    const values = await this.values.removeOwned((ns) => isUserNamespace(ns, target));
    const leftovers = (await removeLeftovers(paths)) + (await this.values.removeTrash());
    counts = addCounts(counts, { values: values.values, files: lost.files + values.files + leftovers });
    // The index file held the removed heads (titles are message text): it is written again without them.
    await this.index.heads();
    return { ...counts, sessionIds };
  }

  /**
   * Removes session `id` under its lock when its head says `owned` (or, unreadable, its files hold
   * `mark`): its values first, then its directory. `undefined` when it is not the user's.
   */
  private async forgetSession(
    id: string,
    owned: (userId: string | undefined) => boolean,
    mark: Buffer,
  ): Promise<Partial<DriverForgetResult> | undefined> {
    const slot = this.cache.slot(id);
    const removed = await this.cache.run(slot, () =>
      this.leases.locked(slot, async () => {
        let head: HeadRecord | undefined;
        try {
          head = readHeadOnly(slot.paths)?.head;
        } catch {
          head = undefined;
        }
        const found = inventory(slot.paths);
        if (!found.exists) return undefined;
        const ours =
          head !== undefined ? owned(head.userId) : owned(undefined) || mentions(slot.paths.fs, slot.paths.dir, mark);
        if (!ours) return undefined;
        const values = await this.values.removeSessionValues(id, VECTOR_KEY_PREFIX);
        forgetState(slot);
        const existed = await removeSession(this.context, slot.paths);
        return {
          sessions: existed || head !== undefined ? 1 : 0,
          messages: head?.messageCount ?? 0,
          sessionValues: values.values,
          vectors: values.vectors,
          files: found.names.length + values.files,
        };
      }),
    );
    this.leases.release(slot);
    // A fold lock a killed folder left names the session: it goes too, unless a live process holds it.
    if (!slot.folding) {
      const fold = tryLock(slot.paths.foldLock, { foreignStaleMs: FOREIGN_STALE_MS });
      if (fold !== undefined) unlock(fold);
    }
    this.cache.drop(id);
    return removed;
  }

  /** Deletes the session of `slot` and its values (under its lock). */
  private async removeLocked(slot: Slot): Promise<boolean> {
    forgetState(slot);
    return this.values.afterRemoval(slot.paths.id, await removeSession(this.context, slot.paths));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Pending writes finish first: queued batches, then folds in flight.
    await this.cache.drained();
    await this.folds.drained();
    await this.cache.drained();
    this.cache.clear((slot) => {
      this.leases.release(slot);
      release(slot.state);
    });
    this.leases.close();
  }
}

/** The file driver: sessions as journals and snapshots under `directory`. */
export function fileDriver(directory: string, options: FileDriverOptions = {}): StoreDriver {
  const driver = new FileDriver(directory, options);
  const store = driver.name;
  // Every error leaves through here: file-system errors become chatstate errors naming the store.
  return {
    name: store,
    capabilities: driver.capabilities,
    readHead: (id) => guarded(store, () => driver.readHead(id)),
    readAll: (id) => guarded(store, () => driver.readAll(id)),
    readRange: (id, range) => guarded(store, () => driver.readRange(id, range)),
    append: (id, commit) => guarded(store, () => driver.append(id, commit)),
    replace: (id, commit) => guarded(store, () => driver.replace(id, commit)),
    replaceTail: (id, commit) => guarded(store, () => driver.replaceTail(id, commit)),
    list: (query) => guarded(store, () => driver.list(query)),
    listMarks: (userId, now) => guarded(store, () => driver.listMarks(userId, now)),
    remove: (id) => guarded(store, () => driver.remove(id)),
    purgeExpired: (now, idPrefix) => guarded(store, () => driver.purgeExpired(now, idPrefix)),
    forgetUser: (target) => guarded(store, () => driver.forgetUser(target)),
    readValues: (ns, keys) => guarded(store, () => driver.readValues(ns, keys)),
    writeValues: (ns, entries) => guarded(store, () => driver.writeValues(ns, entries)),
    close: () => guarded(store, () => driver.close()),
  };
}
