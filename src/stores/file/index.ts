/**
 * The file store, chatstate's embedded default: a directory, one folder per session holding an
 * append-only journal of checksummed records beside an atomically replaced snapshot and its
 * backup. An append writes and fsyncs only the journal, so its cost does not grow with the
 * session; the journal is folded into a new snapshot in the background once it is large.
 *
 * Within a process, operations on one session run in order and concurrent appends share one
 * write and one fsync (group commit, pipelined: the next batch is written while the callers of
 * the last one are answered); appends to different sessions fsync in parallel on the thread pool,
 * and a lone append on a fast disk fsyncs on the event loop's thread (the round trip would cost
 * as much as the fsync). Between processes, a lock per session serializes writers (a hard link,
 * kept across operations that follow closely, given up when idle or when another process waits),
 * and each writer first applies what the others appended. Snapshots hold one line per message
 * with a block index, so reading the tail of a long session reads only its last blocks. See
 * `session-files.ts` for the crash-safety argument of each write.
 *
 * Durability is what `fdatasync` gives: on macOS it reaches the drive but not through the
 * drive's own cache (Node has no `F_FULLFSYNC`).
 * @module
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatstateError, CollaboratorError, InvalidInputError, errorMessage } from '../../errors.js';
import { RECORD_SCHEMA } from '../../store/codec.js';
import { sortAndPage } from '../../store/driver-helpers.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { AppendCommit, AppendOutcome, DriverCapabilities, DriverRange, HeadRecord, MessageRecord, RecoveryNote, ReplaceCommit, SessionStore, StoreDriver } from '../../store/types.js';
import { nodeFileSystem, type FileSystem } from './file-system.js';
import { ensureDirectory, errorCode, unlinkIfPresent } from './fs-util.js';
import { hasWaiters, lock, processIsGone, retainLockOwner, tryLock, unlock, type HeldLock } from './lock.js';
import { storePaths, type SessionPaths, type StorePaths } from './paths.js';
import { SessionIndex } from './session-index.js';
import { ValueFiles } from './value-files.js';
import {
  SnapshotDamage,
  SnapshotGone,
  allRecords,
  applyAppends,
  beginFold,
  ensureIds,
  expired,
  finishFold,
  flushAppends,
  markDurable,
  memoryOf,
  notFound,
  openFiles,
  rangeRecords,
  refresh,
  release,
  removeSession,
  replaceSession,
  unload,
  writeAppends,
  writeFold,
  type DamageReport,
  type FilesContext,
  type FoldPlan,
  type ReadResult,
  type SessionState,
} from './session-files.js';

/** Options of the file driver. */
export interface FileDriverOptions {
  /** Fold the journal into a new snapshot once it holds this many bytes (or half the snapshot's size, if larger). @default 1 MiB */
  readonly foldBytes?: number;
  /** How long to wait for another process's lock on a session before failing with `UNAVAILABLE`. @default 10000 */
  readonly lockTimeoutMs?: number;
  /**
   * Memory for sessions' records kept between calls. Beyond it the least recently used sessions
   * keep only their head, snapshot index and journal records (tail reads and appends need no
   * more), then are dropped. @default 64 MiB
   */
  readonly cacheBytes?: number;
  /**
   * Journals and snapshots kept open between calls; a session beyond it opens its files again by
   * name when used. Well under the usual limit of 1024 descriptors per process. @default 256
   */
  readonly maxOpenFiles?: number;
  /**
   * Called when damaged files were found and repaired (kept aside, never deleted): for logs and
   * alerts. A session that could not be read at all also comes back as a recovery session.
   */
  readonly onDamage?: (report: DamageReport) => void;
  /**
   * The file system the store's files go through (everything but its locks): a layer that
   * records or shapes what the store does, as the crash-consistency tests use. @default Node's `fs`
   */
  readonly fileSystem?: FileSystem;
}

/** Options of `fileStore`: the core store options and the driver's. */
export type FileStoreOptions = SessionStoreOptions & FileDriverOptions;

export type { DamageReport } from './session-files.js';

const NAME = 'file';
/** Locks of another host (a shared network directory) are trusted this long. */
const FOREIGN_STALE_MS = 30_000;
/** Sessions remembered between calls, whatever their size. */
const MAX_SLOTS = 4096;
/**
 * A session's lock is kept across operations that follow each other closely (a lease): taking and
 * releasing it are two directory changes, and under a lease the files need no new check (no other
 * process can have written). It is given up once the session has been idle for `LEASE_IDLE_MS`,
 * and after `LEASE_MS` of continuous use as soon as another process waits for it (the waiter
 * leaves a marker), followed by a short pause so that the waiter gets its turn.
 */
const LEASE_MS = 20;
const LEASE_IDLE_MS = 2;
const YIELD_MS = 3;
/**
 * Leases kept while idle, at most: beyond this many, the least recently used are released at once,
 * so locks and open files stay bounded however many sessions are touched in a short while (or in a
 * chain of promises that holds the timers off).
 */
const MAX_IDLE_LEASES = 16;
/**
 * A journal flush runs on the event loop's own thread when nothing else of this store waits and
 * the disk's recent flushes took at most this long: a thread-pool round trip costs about as much
 * as a fast disk's whole flush, and blocking for a fraction of a millisecond holds nobody up.
 * Slower disks, and any concurrency, flush on the thread pool so other work goes on meanwhile.
 */
const BLOCKING_FLUSH_MAX_MS = 1;
/** Once appends overlapped (one arrived while another waited or flushed), flushes go to the thread pool for this long (renewed while they overlap). */
const CONCURRENT_HOLD_MS = 20;

interface Pending {
  readonly commit: AppendCommit;
  readonly resolve: (outcome: AppendOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/** A batch of appends written to the journal, its fsync under way. */
interface Flight {
  readonly batch: Pending[];
  outcomes: Array<AppendOutcome | Error>;
  /** Set when the write or the fsync failed: every append of the batch fails with it. */
  failure: unknown;
  synced: Promise<void>;
  /** Records the batch in the session's high-water mark, once its callers were answered (see `settle`). */
  marked?: () => void;
}

/**
 * Answers the callers of a batch (once: a settled batch is emptied), then moves the high-water
 * mark: a mark written after the answer can only lag behind what is durable, which is safe, and
 * its write stays off the appends' latency.
 */
function settle(flight: Flight): void {
  const batch = flight.batch.splice(0);
  batch.forEach((pending, index) => {
    const outcome = flight.failure === undefined ? flight.outcomes[index] : undefined;
    if (outcome === undefined) pending.reject(flight.failure);
    else if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  });
  const marked = flight.failure === undefined ? flight.marked : undefined;
  flight.marked = undefined;
  // After the callers' own continuations (queued first): the answer does not wait for the mark.
  if (marked !== undefined) queueMicrotask(marked);
}

/** One session's place in this process: its cached state and the queue of its operations. */
interface Slot {
  readonly paths: SessionPaths;
  state: SessionState | undefined;
  tail: Promise<unknown>;
  busy: number;
  pending: Pending[];
  batchQueued: boolean;
  folding: boolean;
  /** The inter-process lock while this process holds it, since when, and the idle release scheduled. */
  lease: HeldLock | undefined;
  leaseSince: number;
  idleRelease: NodeJS.Timeout | undefined;
  /** After a capped lease, when this process may take the lock again. */
  yieldUntil: number;
  /** Counts leases taken; `verified` is the lease under which `state` was last checked against the files. */
  leases: number;
  verified: number;
  /** The memory and open files of `state` as last counted in the store's totals. */
  countedBytes: number;
  countedFiles: number;
}

/**
 * The error a caller sees: chatstate errors as they are; a file-system error (disk full, I/O
 * error, permission) as `STORAGE_FAILED` naming the store and the errno code; anything else (a
 * bug) untouched.
 */
function translate(error: unknown): unknown {
  if (ChatstateError.isInstance(error)) return error;
  const code = errorCode(error);
  if (code === undefined) return error;
  return new CollaboratorError('STORAGE_FAILED', `${NAME}: ${errorMessage(error)}`, { cause: error, details: { errno: code } });
}

/** Runs a public operation, translating its errors. */
async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw translate(error);
  }
}

function positive(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new InvalidInputError('INVALID_ARGUMENT', `file: ${what} must be a positive number`);
  return value;
}

// What `readAll` returns beside a recovery note: nothing (the core builds the recovery session).
function emptyHead(id: string): HeadRecord {
  const epoch = new Date(0).toISOString();
  return { id, schema: RECORD_SCHEMA, version: 0, createdAt: epoch, updatedAt: epoch, messageCount: 0, tokenCount: 0, lastSeq: 0, data: '{}' };
}

class FileDriver implements StoreDriver {
  readonly name = NAME;
  /** Expiry is judged under the session's lock, in the append itself (and in the range read): no head read first. */
  readonly capabilities: DriverCapabilities = Object.freeze({ expiryInCommit: true });
  private readonly paths: StorePaths;
  private readonly context: FilesContext;
  private readonly index: SessionIndex;
  private readonly slots = new Map<string, Slot>();
  /** Memory and open files of the sessions in memory (see `account`). */
  private cachedBytes = 0;
  private openCount = 0;
  /** Slots whose lease is kept while idle, least recently used first. */
  private readonly idleLeases = new Set<Slot>();
  private readonly background = new Set<Promise<void>>();
  private readonly foldBytes: number;
  private readonly lockTimeoutMs: number;
  private readonly cacheBytes: number;
  private readonly maxOpenFiles: number;
  private closed = false;
  /** Appends accepted and not yet answered, flushes running, and how long flushes take lately (moving average). */
  private accepted = 0;
  private flushing = 0;
  private flushMs = 0;
  /** Until when flushes go to the thread pool (appends overlapped lately). */
  private concurrentUntil = 0;
  /** Gives up the lock owner file this store keeps (see `retainLockOwner`). */
  private releaseOwner: (() => void) | undefined;
  private ownerRetained = false;
  private readonly isGone = processIsGone;
  private readonly report: (damage: DamageReport) => void;
  private readonly values: ValueFiles;

  constructor(directory: string, options: FileDriverOptions) {
    if (typeof directory !== 'string' || directory.length === 0) throw new InvalidInputError('INVALID_ARGUMENT', 'file: the store needs a directory');
    this.paths = storePaths(directory, options.fileSystem);
    this.context = { store: NAME, paths: this.paths };
    this.index = new SessionIndex(this.paths);
    this.foldBytes = positive(options.foldBytes, 1 << 20, 'foldBytes');
    this.lockTimeoutMs = positive(options.lockTimeoutMs, 10_000, 'lockTimeoutMs');
    this.cacheBytes = positive(options.cacheBytes, 64 << 20, 'cacheBytes');
    this.maxOpenFiles = positive(options.maxOpenFiles, 256, 'maxOpenFiles');
    this.values = new ValueFiles(this.paths, { store: NAME, lockTimeoutMs: this.lockTimeoutMs, foreignStaleMs: FOREIGN_STALE_MS });
    const onDamage = options.onDamage;
    this.report = (damage) => {
      try {
        onDamage?.(damage);
      } catch {
        // A failing listener must not fail the read that repaired the session.
      }
    };
  }

  private checkOpen(): void {
    if (this.closed) throw new InvalidInputError('INVALID_ARGUMENT', `${NAME}: the store is closed`);
  }

  /** The slot of `id` (validated again here: this driver may be used without the core). */
  private slot(id: string): Slot {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = {
        paths: this.paths.session(id),
        state: undefined,
        tail: Promise.resolve(),
        busy: 0,
        pending: [],
        batchQueued: false,
        folding: false,
        lease: undefined,
        leaseSince: 0,
        idleRelease: undefined,
        yieldUntil: 0,
        leases: 0,
        verified: -1,
        countedBytes: 0,
        countedFiles: 0,
      };
    } else {
      this.slots.delete(id);
    }
    // Map order is the least-recently-used order of the cache.
    this.slots.set(id, slot);
    return slot;
  }

  /** Runs `operation` after the session's earlier operations (in this process). */
  private run<T>(slot: Slot, operation: () => Promise<T>): Promise<T> {
    slot.busy += 1;
    const result = slot.tail.then(operation);
    slot.tail = result.then(
      () => this.done(slot),
      () => this.done(slot),
    );
    return result;
  }

  private done(slot: Slot): void {
    slot.busy -= 1;
    this.account(slot);
    this.trim();
  }

  /** Brings the store's totals up to date with a slot's state (states change only in operations and `trim`). */
  private account(slot: Slot): void {
    const bytes = slot.state === undefined ? 0 : memoryOf(slot.state);
    const files = slot.state === undefined ? 0 : openFiles(slot.state);
    this.cachedBytes += bytes - slot.countedBytes;
    this.openCount += files - slot.countedFiles;
    slot.countedBytes = bytes;
    slot.countedFiles = files;
  }

  /**
   * Keeps memory within `cacheBytes` (and `MAX_SLOTS`) and open files within `maxOpenFiles`,
   * least recently used sessions first: their snapshot's records are dropped first (the session
   * stays open: its head, block index and journal records, enough for appends and tail reads),
   * then whole sessions; beyond the file limit, files are closed (opened again by name when used).
   */
  private trim(): void {
    if (this.cachedBytes <= this.cacheBytes && this.openCount <= this.maxOpenFiles && this.slots.size <= MAX_SLOTS) return;
    const idle = (slot: Slot): boolean => slot.busy === 0 && slot.pending.length === 0 && !slot.batchQueued && !slot.folding && slot.lease === undefined;
    for (const slot of this.slots.values()) {
      if (this.cachedBytes <= this.cacheBytes) break;
      if (slot.state === undefined || !idle(slot)) continue;
      unload(slot.state);
      this.account(slot);
    }
    for (const [id, slot] of this.slots) {
      const evict = this.cachedBytes > this.cacheBytes || this.slots.size > MAX_SLOTS;
      if (!evict && this.openCount <= this.maxOpenFiles) break;
      if (!idle(slot)) continue;
      // Kept or not, its files are opened again by name when the session is used again.
      release(slot.state);
      if (evict) {
        slot.state = undefined;
        this.slots.delete(id);
      }
      this.account(slot);
    }
  }

  /** Runs `operation` holding the session's inter-process write lock (see `LEASE_MS`). */
  private async locked<T>(slot: Slot, operation: () => Promise<T>): Promise<T> {
    if (slot.idleRelease !== undefined) {
      clearTimeout(slot.idleRelease);
      slot.idleRelease = undefined;
    }
    this.idleLeases.delete(slot);
    if (slot.lease === undefined) {
      const wait = slot.yieldUntil - Date.now();
      if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait));
      // With links to a kept owner file, a missing locks directory is made again where the link fails.
      if (this.releaseOwner === undefined) ensureDirectory(nodeFileSystem, this.paths.locks);
      slot.lease = await lock(slot.paths.writeLock, { timeoutMs: this.lockTimeoutMs, foreignStaleMs: FOREIGN_STALE_MS, store: NAME });
      slot.leaseSince = Date.now();
      slot.leases += 1;
      // From now on a lock is a link to an owner file kept for the store's life: no file is created per lock.
      if (!this.ownerRetained && !this.closed) {
        this.ownerRetained = true;
        this.releaseOwner = retainLockOwner(this.paths.locks);
      }
    }
    try {
      return await operation();
    } finally {
      if (Date.now() - slot.leaseSince >= LEASE_MS) {
        if (hasWaiters(slot.paths.writeLock, { foreignStaleMs: FOREIGN_STALE_MS })) {
          // Another process waits: let go, and pause a moment so that it gets the lock.
          this.releaseLease(slot);
          slot.yieldUntil = Date.now() + YIELD_MS;
        } else {
          slot.leaseSince = Date.now();
        }
      }
      if (slot.lease !== undefined) {
        slot.idleRelease = setTimeout(() => {
          slot.idleRelease = undefined;
          this.releaseLease(slot);
        }, LEASE_IDLE_MS);
        this.idleLeases.add(slot);
        for (const oldest of this.idleLeases) {
          if (this.idleLeases.size <= MAX_IDLE_LEASES) break;
          this.releaseLease(oldest);
        }
      }
    }
  }

  private releaseLease(slot: Slot): void {
    this.idleLeases.delete(slot);
    if (slot.idleRelease !== undefined) {
      clearTimeout(slot.idleRelease);
      slot.idleRelease = undefined;
    }
    if (slot.lease === undefined) return;
    const lease = slot.lease;
    slot.lease = undefined;
    unlock(lease);
  }

  /**
   * Reads under the lock, repairing what needs it; the slot keeps the result. `full` reads and
   * verifies every record of the snapshot (a repair of damage found in a part read later).
   */
  private async readLocked(slot: Slot, full = false): Promise<ReadResult> {
    // Checked under this very lease: no other process can have written since.
    if (!full && slot.state !== undefined && slot.verified === slot.leases && !slot.state.fromBackup) return { kind: 'ok', state: slot.state };
    if (full) this.forget(slot);
    const result = await refresh(this.context, slot.paths, slot.state, { locked: true, full, isGone: this.isGone, report: this.report });
    slot.state = result.kind === 'ok' ? result.state : undefined;
    slot.verified = slot.leases;
    return result;
  }

  /** Drops a session's state (its files are read again by the next operation). */
  private forget(slot: Slot): void {
    release(slot.state);
    slot.state = undefined;
  }

  /** Reads without the lock when it can (the common case), with it when the files need a repair. */
  private async read(slot: Slot, full = false): Promise<Exclude<ReadResult, { kind: 'escalate' }>> {
    const result = await refresh(this.context, slot.paths, slot.state, { locked: false, full, isGone: this.isGone, report: this.report });
    slot.state = result.kind === 'ok' ? result.state : undefined;
    if (result.kind !== 'escalate') return result;
    const repaired = await this.locked(slot, () => this.readLocked(slot));
    if (repaired.kind === 'escalate') throw new Error('file: a locked read cannot escalate');
    return repaired;
  }

  /**
   * Reads the session (`full`: with every record) and runs `use` on its state, which may read
   * more of the snapshot. Damage found in a part read later is repaired under the lock (from the
   * backup, like damage found when opening) and `use` runs again; a snapshot replaced while its
   * descriptor was closed is simply read again. `locked`: the caller holds the lock already.
   */
  private async withState<T>(slot: Slot, use: (state: SessionState) => T, options: { full?: boolean; locked?: boolean } = {}): Promise<{ kind: 'ok'; value: T } | { kind: 'none' } | { kind: 'recovered'; note: RecoveryNote }> {
    let repair = false;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const result = options.locked === true ? await this.readLocked(slot, repair) : repair ? await this.locked(slot, () => this.readLocked(slot, true)) : await this.read(slot, options.full);
        if (result.kind === 'escalate') throw new Error('file: a locked read cannot escalate');
        if (result.kind !== 'ok') return result;
        return { kind: 'ok', value: use(result.state) };
      } catch (error) {
        if (attempt >= 3 || !(error instanceof SnapshotDamage || error instanceof SnapshotGone)) throw error;
        this.forget(slot);
        if (error instanceof SnapshotDamage) repair = true;
      }
    }
  }

  async readHead(id: string): Promise<HeadRecord | undefined> {
    this.checkOpen();
    const slot = this.slot(id);
    // Under a lease this process still holds, checked under that lease, with nothing of its own
    // queued: no process can have changed the files, so the head in memory is the head on disk.
    if (slot.lease !== undefined && slot.state !== undefined && slot.verified === slot.leases && slot.busy === 0 && slot.pending.length === 0 && !slot.state.fromBackup) {
      return slot.state.head;
    }
    return this.run(slot, async () => {
      const result = await this.read(slot);
      return result.kind === 'ok' ? result.state.head : undefined;
    });
  }

  async readAll(id: string): Promise<{ head: HeadRecord; messages: MessageRecord[]; recovered?: RecoveryNote } | undefined> {
    this.checkOpen();
    const slot = this.slot(id);
    return this.run(slot, async () => {
      const result = await this.withState(slot, (state) => ({ head: state.head, messages: allRecords(state) }), { full: true });
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
    const slot = this.slot(id);
    return this.run(slot, async () => {
      // An expired session reads as absent (`range.now`), judged on the head read with the records.
      const result = await this.withState(slot, (state) => (expired(state.head, range.now) ? undefined : rangeRecords(state, range)));
      return result.kind === 'ok' ? result.value : undefined;
    });
  }

  append(id: string, commit: AppendCommit): Promise<AppendOutcome> {
    try {
      this.checkOpen();
      const slot = this.slot(id);
      return new Promise<AppendOutcome>((resolve, reject) => {
        this.accepted += 1;
        const answered = (): void => {
          this.accepted -= 1;
        };
        slot.pending.push({
          commit,
          resolve: (outcome) => {
            answered();
            resolve(outcome);
          },
          reject: (error) => {
            answered();
            reject(error);
          },
        });
        // Group commit: appends that arrive while an earlier batch holds the session share the next write and fsync.
        if (!slot.batchQueued) {
          slot.batchQueued = true;
          void this.run(slot, () => this.commitBatch(slot));
        }
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Group commit, pipelined: the appends waiting for a session are written together and flushed
   * with one fsync; when that fsync returns, the appends that arrived meanwhile are written and
   * their fsync started before the first batch is acknowledged, so the disk works while callers
   * prepare their next appends. Runs until nothing waits, or for at most one lease.
   */
  private async commitBatch(slot: Slot): Promise<void> {
    const flights: Flight[] = [];
    try {
      await this.locked(slot, async () => {
        const started = Date.now();
        let current = await this.startFlight(slot, slot.pending.splice(0));
        flights.push(current);
        for (;;) {
          await current.synced;
          const more = current.failure === undefined && slot.pending.length > 0 && Date.now() - started < LEASE_MS;
          const next = more ? await this.startFlight(slot, slot.pending.splice(0)) : undefined;
          if (next !== undefined) flights.push(next);
          const done = flights.shift() as Flight;
          // A batch already follows: its mark will cover this one (one small write per run of batches).
          if (next !== undefined) done.marked = undefined;
          settle(done);
          if (next === undefined) return;
          current = next;
        }
      });
    } catch (error) {
      // The lock could not be taken (or a read failed): nothing of these batches was written.
      for (const flight of flights) flight.failure ??= error;
      if (flights.length === 0) flights.push({ batch: slot.pending.splice(0), outcomes: [], failure: error, synced: Promise.resolve() });
    } finally {
      for (const flight of flights) settle(flight);
      // Appends that came after the last batch of this run start the next run.
      if (slot.pending.length > 0) void this.run(slot, () => this.commitBatch(slot));
      else slot.batchQueued = false;
    }
    this.maybeFold(slot);
  }

  /** Writes one batch to the journal and starts its fsync (under the lock). */
  private async startFlight(slot: Slot, batch: Pending[]): Promise<Flight> {
    const flight: Flight = { batch, outcomes: [], failure: undefined, synced: Promise.resolve() };
    const forget = (error: unknown): void => {
      flight.failure = error;
      // Memory is ahead of the disk now: forget it, the next operation reads the files again.
      release(slot.state);
      slot.state = undefined;
    };
    // Appends skip messages already stored: every id must be at hand (read once, then kept).
    const result = await this.withState(slot, (state) => (ensureIds(state), state), { locked: true });
    if (result.kind !== 'ok') {
      flight.outcomes = batch.map(() => notFound(NAME, slot.paths.id));
      return flight;
    }
    const state = result.value;
    const applied = applyAppends(NAME, slot.paths.id, state, batch.map((pending) => pending.commit));
    flight.outcomes = applied.outcomes;
    // What this batch reaches, for the high-water mark once it is flushed (a later batch may be applied by then).
    const reached = { version: state.head.version, lastSeq: state.head.lastSeq };
    try {
      writeAppends(state, applied.bytes);
      flight.synced = this.flush(state, batch.length).catch(forget);
      if (applied.bytes !== undefined) {
        flight.marked = () => {
          if (slot.state === state) markDurable(slot.paths, state, reached);
        };
      }
    } catch (error) {
      forget(error);
    }
    return flight;
  }

  /**
   * Flushes a journal after a batch of `size` appends was written: on this thread when nothing
   * else of the store waits and its sessions are not being written concurrently (see
   * `BLOCKING_FLUSH_MAX_MS`), on the thread pool otherwise, so that flushes of several sessions
   * overlap.
   */
  private async flush(state: SessionState, size: number): Promise<void> {
    const started = performance.now();
    // Appends overlapping now: several writers are at work. Their flushes stay on the thread pool
    // for a while, so that writers resumed one by one by flushes do not fall into taking turns on
    // this thread, where their flushes would never overlap. One writer going from session to
    // session never overlaps with itself, and keeps flushing here.
    if (this.flushing > 0 || this.accepted > size) this.concurrentUntil = started + CONCURRENT_HOLD_MS;
    const blocking = started >= this.concurrentUntil && this.flushMs <= BLOCKING_FLUSH_MAX_MS;
    this.flushing += 1;
    try {
      await flushAppends(state, blocking);
    } finally {
      this.flushing -= 1;
      this.flushMs = this.flushMs * 0.8 + (performance.now() - started) * 0.2;
    }
  }

  async replace(id: string, commit: ReplaceCommit): Promise<void> {
    this.checkOpen();
    const slot = this.slot(id);
    await this.run(slot, () =>
      this.locked(slot, async () => {
        const result = await this.readLocked(slot);
        slot.state = await replaceSession(this.context, slot.paths, result.kind === 'ok' ? result.state : undefined, commit, this.isGone);
      }),
    );
  }

  async list(query: Parameters<StoreDriver['list']>[0]): Promise<HeadRecord[]> {
    this.checkOpen();
    return sortAndPage(await this.index.heads(), query);
  }

  async remove(id: string): Promise<boolean> {
    this.checkOpen();
    const slot = this.slot(id);
    return this.run(slot, () =>
      this.locked(slot, async () => {
        release(slot.state);
        slot.state = undefined;
        return this.values.afterRemoval(id, await removeSession(this.context, slot.paths));
      }),
    );
  }

  readValues(ns: string, keys?: readonly string[]): ReturnType<StoreDriver['readValues']> {
    this.checkOpen();
    return this.values.read(ns, keys);
  }

  writeValues(ns: string, entries: Parameters<StoreDriver['writeValues']>[1]): Promise<void> {
    this.checkOpen();
    return this.values.write(ns, entries);
  }

  async purgeExpired(now: number): Promise<number> {
    this.checkOpen();
    const expired = (await this.index.heads()).filter((head) => head.expiresAt !== undefined && head.expiresAt <= now);
    let purged = 0;
    for (const candidate of expired) {
      const slot = this.slot(candidate.id);
      const removed = await this.run(slot, () =>
        this.locked(slot, async () => {
          // Checked again under the lock: another process may have extended or replaced it.
          const result = await this.readLocked(slot);
          if (result.kind !== 'ok' || result.state.head.expiresAt === undefined || result.state.head.expiresAt > now) return false;
          release(slot.state);
          slot.state = undefined;
          return this.values.afterRemoval(candidate.id, await removeSession(this.context, slot.paths));
        }),
      );
      if (removed) purged += 1;
    }
    return purged;
  }

  /** Starts a background fold when the journal has grown past the threshold. */
  private maybeFold(slot: Slot): void {
    const state = slot.state;
    if (state === undefined || slot.folding || this.closed) return;
    if (state.journalBytes < Math.max(this.foldBytes, state.snapshotBytes / 2)) return;
    slot.folding = true;
    const task: Promise<void> = this.fold(slot)
      // A failed fold loses nothing (the journal still holds everything); the next append retries it.
      .catch(() => undefined)
      .finally(() => {
        slot.folding = false;
        this.background.delete(task);
      });
    this.background.add(task);
  }

  private async fold(slot: Slot): Promise<void> {
    // Let the acknowledgments of the batch that triggered the fold go out first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // One folder per session across processes; a held fold lock means someone else is on it.
    const foldLock = tryLock(slot.paths.foldLock, { foreignStaleMs: FOREIGN_STALE_MS });
    if (foldLock === undefined) return;
    let plan: FoldPlan | undefined;
    try {
      plan = await this.run(slot, () =>
        this.locked(slot, async () => {
          const result = await this.readLocked(slot);
          if (result.kind !== 'ok' || result.state.journalBytes < Math.max(this.foldBytes, result.state.snapshotBytes / 2)) return undefined;
          return beginFold(slot.paths, result.state);
        }),
      );
      if (plan === undefined) return;
      const started = plan;
      try {
        await writeFold(slot.paths, started);
      } catch (error) {
        if (!(error instanceof SnapshotDamage)) throw error;
        // The snapshot being folded is damaged (in a part no read had touched): repair it now,
        // from the backup under the lock, rather than let every later fold fail on it.
        await this.run(slot, () => this.locked(slot, () => this.readLocked(slot, true)));
        return;
      }
      await this.run(slot, () =>
        this.locked(slot, async () => {
          const result = await this.readLocked(slot);
          return finishFold(slot.paths, result.kind === 'ok' ? result.state : undefined, started, this.isGone);
        }),
      );
    } finally {
      // Installed snapshots were renamed away; anything left is a fold that did not finish.
      if (plan?.temporary !== undefined) unlinkIfPresent(this.paths.fs, plan.temporary.file);
      unlock(foldLock);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Pending writes finish first: queued batches, then folds in flight.
    await Promise.all([...this.slots.values()].map((slot) => slot.tail));
    await Promise.all([...this.background]);
    await Promise.all([...this.slots.values()].map((slot) => slot.tail));
    for (const slot of this.slots.values()) {
      this.releaseLease(slot);
      release(slot.state);
    }
    this.slots.clear();
    this.cachedBytes = 0;
    this.openCount = 0;
    this.releaseOwner?.();
    this.releaseOwner = undefined;
  }
}

/** The file driver: sessions as journals and snapshots under `directory`. */
export function fileDriver(directory: string, options: FileDriverOptions = {}): StoreDriver {
  const driver = new FileDriver(directory, options);
  // Every error leaves through here: file-system errors become chatstate errors naming the store.
  return {
    name: driver.name,
    capabilities: driver.capabilities,
    readHead: (id) => guarded(() => driver.readHead(id)),
    readAll: (id) => guarded(() => driver.readAll(id)),
    readRange: (id, range) => guarded(() => driver.readRange(id, range)),
    append: (id, commit) => guarded(() => driver.append(id, commit)),
    replace: (id, commit) => guarded(() => driver.replace(id, commit)),
    list: (query) => guarded(() => driver.list(query)),
    remove: (id) => guarded(() => driver.remove(id)),
    purgeExpired: (now) => guarded(() => driver.purgeExpired(now)),
    readValues: (ns, keys) => guarded(() => driver.readValues(ns, keys)),
    writeValues: (ns, entries) => guarded(() => driver.writeValues(ns, entries)),
    close: () => guarded(() => driver.close()),
  };
}

/** A `SessionStore` in `directory` (created when first written): chatstate's embedded default. */
export function fileStore(directory: string, options: FileStoreOptions = {}): SessionStore {
  return createSessionStore(fileDriver(directory, options), options);
}

/** The directory a `file:` URL names: `file:DIR` relative to the working directory, `file:///abs/dir` absolute. */
export function filePathFromUrl(url: string): string {
  const invalid = (why: string) => new InvalidInputError('INVALID_ARGUMENT', `Cannot open store ${JSON.stringify(url.slice(0, 200))}: ${why}`);
  if (!/^file:/i.test(url)) throw invalid('expected file:DIR or file:///absolute/dir');
  if (url.includes('\0')) throw invalid('the path contains a NUL byte');
  if (/^file:\/\//i.test(url)) {
    try {
      return fileURLToPath(`file:${url.slice('file:'.length)}`);
    } catch (error) {
      throw invalid(`not a local file URL (${(error as Error).message})`);
    }
  }
  const directory = url.slice('file:'.length);
  if (directory.length === 0) throw invalid('expected a directory after file:, such as file:./sessions');
  return path.resolve(directory);
}
