/**
 * The file store, chatstate's embedded default: a directory, one folder per session holding an
 * append-only journal of checksummed records beside an atomically replaced snapshot and its
 * backup. An append writes and fsyncs only the journal, so its cost does not grow with the
 * session; the journal is folded into a new snapshot in the background once it is large.
 *
 * Within a process, operations on one session run in order and concurrent appends share one
 * write and one fsync (group commit, pipelined: the next batch is written while the callers of
 * the last one are answered); appends to different sessions fsync in parallel. Between
 * processes, a lock per session serializes writers (kept across back-to-back operations, given
 * up when idle or when another process waits), and each writer first applies what the others
 * appended. See `session-files.ts` for the crash-safety argument of each write.
 *
 * Durability is what `fdatasync` gives: on macOS it reaches the drive but not through the
 * drive's own cache (Node has no `F_FULLFSYNC`).
 * @module
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatstateError, CollaboratorError, InvalidInputError, errorMessage } from '../../errors.js';
import { RECORD_SCHEMA } from '../../store/codec.js';
import { rangeOf, sortAndPage } from '../../store/driver-helpers.js';
import { createSessionStore, type SessionStoreOptions } from '../../store/session-store.js';
import type { AppendCommit, AppendOutcome, HeadRecord, MessageRange, MessageRecord, RecoveryNote, ReplaceCommit, SessionStore, StoreDriver } from '../../store/types.js';
import { ensureDirectory, errorCode, unlinkIfPresent } from './fs-util.js';
import { hasWaiters, lock, processIsGone, tryLock, unlock, type HeldLock } from './lock.js';
import { storePaths, type SessionPaths, type StorePaths } from './paths.js';
import { SessionIndex } from './session-index.js';
import {
  applyAppends,
  beginFold,
  finishFold,
  notFound,
  refresh,
  release,
  removeSession,
  replaceSession,
  flushAppends,
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
  /** Memory for sessions kept parsed between calls; the least recently used are dropped beyond it. @default 64 MiB */
  readonly cacheBytes?: number;
  /**
   * Called when damaged files were found and repaired (kept aside, never deleted): for logs and
   * alerts. A session that could not be read at all also comes back as a recovery session.
   */
  readonly onDamage?: (report: DamageReport) => void;
}

/** Options of `fileStore`: the core store options and the driver's. */
export type FileStoreOptions = SessionStoreOptions & FileDriverOptions;

export type { DamageReport } from './session-files.js';

const NAME = 'file';
/** Locks of another host (a shared network directory) are trusted this long. */
const FOREIGN_STALE_MS = 30_000;
/** Journals kept open between calls (a session beyond it reopens its journal by name); well under the usual 1024 descriptors. */
const MAX_OPEN_JOURNALS = 128;
/** Sessions remembered between calls, whatever their size. */
const MAX_SLOTS = 4096;
/**
 * A session's lock is kept across back-to-back operations (a lease): creating and removing a lock
 * changes a directory, which also makes the next fsync heavier. It is given up as soon as the
 * session is idle (the next turn of the event loop), and after this long even when it is not,
 * followed by a short pause so that waiting processes get their turn.
 */
const LEASE_MS = 20;
const YIELD_MS = 3;

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
}

/** Answers the callers of a batch (once: a settled batch is emptied). */
function settle(flight: Flight): void {
  const batch = flight.batch.splice(0);
  batch.forEach((pending, index) => {
    const outcome = flight.failure === undefined ? flight.outcomes[index] : undefined;
    if (outcome === undefined) pending.reject(flight.failure);
    else if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  });
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
  idleRelease: NodeJS.Immediate | undefined;
  /** After a capped lease, when this process may take the lock again. */
  yieldUntil: number;
  /** Counts leases taken; `verified` is the lease under which `state` was last checked against the files. */
  leases: number;
  verified: number;
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
  private readonly paths: StorePaths;
  private readonly context: FilesContext;
  private readonly index: SessionIndex;
  private readonly slots = new Map<string, Slot>();
  private readonly background = new Set<Promise<void>>();
  private readonly foldBytes: number;
  private readonly lockTimeoutMs: number;
  private readonly cacheBytes: number;
  private closed = false;
  private readonly isGone = processIsGone;
  private readonly report: (damage: DamageReport) => void;

  constructor(directory: string, options: FileDriverOptions) {
    if (typeof directory !== 'string' || directory.length === 0) throw new InvalidInputError('INVALID_ARGUMENT', 'file: the store needs a directory');
    this.paths = storePaths(directory);
    this.context = { store: NAME, paths: this.paths };
    this.index = new SessionIndex(this.paths);
    this.foldBytes = positive(options.foldBytes, 1 << 20, 'foldBytes');
    this.lockTimeoutMs = positive(options.lockTimeoutMs, 10_000, 'lockTimeoutMs');
    this.cacheBytes = positive(options.cacheBytes, 64 << 20, 'cacheBytes');
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
    this.trim();
  }

  /**
   * Drops idle sessions from memory beyond `cacheBytes` (and `MAX_SLOTS`), and closes idle
   * journals beyond `MAX_OPEN_JOURNALS`, least recently used first.
   */
  private trim(): void {
    let total = 0;
    let open = 0;
    for (const slot of this.slots.values()) {
      if (slot.state === undefined) continue;
      total += slot.state.snapshotBytes + slot.state.journalBytes;
      if (slot.state.fd !== undefined) open += 1;
    }
    for (const [id, slot] of this.slots) {
      const evict = total > this.cacheBytes || this.slots.size > MAX_SLOTS;
      if (!evict && open <= MAX_OPEN_JOURNALS) break;
      if (slot.busy > 0 || slot.pending.length > 0 || slot.batchQueued || slot.folding || slot.lease !== undefined) continue;
      const state = slot.state;
      if (state?.fd !== undefined) open -= 1;
      if (evict) {
        if (state !== undefined) total -= state.snapshotBytes + state.journalBytes;
        release(state);
        this.slots.delete(id);
      } else {
        // Kept in memory; its journal is reopened by name when the session is used again.
        release(state);
      }
    }
  }

  /** Runs `operation` holding the session's inter-process write lock (see `LEASE_MS`). */
  private async locked<T>(slot: Slot, operation: () => Promise<T>): Promise<T> {
    if (slot.idleRelease !== undefined) {
      clearImmediate(slot.idleRelease);
      slot.idleRelease = undefined;
    }
    if (slot.lease === undefined) {
      const wait = slot.yieldUntil - Date.now();
      if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait));
      ensureDirectory(this.paths.locks);
      slot.lease = await lock(slot.paths.writeLock, { timeoutMs: this.lockTimeoutMs, foreignStaleMs: FOREIGN_STALE_MS, store: NAME });
      slot.leaseSince = Date.now();
      slot.leases += 1;
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
        slot.idleRelease = setImmediate(() => {
          slot.idleRelease = undefined;
          this.releaseLease(slot);
        });
      }
    }
  }

  private releaseLease(slot: Slot): void {
    if (slot.idleRelease !== undefined) {
      clearImmediate(slot.idleRelease);
      slot.idleRelease = undefined;
    }
    if (slot.lease === undefined) return;
    const lease = slot.lease;
    slot.lease = undefined;
    unlock(lease);
  }

  /** Reads under the lock, repairing what needs it; the slot keeps the result. */
  private async readLocked(slot: Slot): Promise<ReadResult> {
    // Checked under this very lease: no other process can have written since.
    if (slot.state !== undefined && slot.verified === slot.leases && !slot.state.fromBackup) return { kind: 'ok', state: slot.state };
    const result = await refresh(this.context, slot.paths, slot.state, { locked: true, isGone: this.isGone, report: this.report });
    slot.state = result.kind === 'ok' ? result.state : undefined;
    slot.verified = slot.leases;
    return result;
  }

  /** Reads without the lock when it can (the common case), with it when the files need a repair. */
  private async read(slot: Slot): Promise<Exclude<ReadResult, { kind: 'escalate' }>> {
    const result = await refresh(this.context, slot.paths, slot.state, { locked: false, isGone: this.isGone, report: this.report });
    slot.state = result.kind === 'ok' ? result.state : undefined;
    if (result.kind !== 'escalate') return result;
    const repaired = await this.locked(slot, () => this.readLocked(slot));
    if (repaired.kind === 'escalate') throw new Error('file: a locked read cannot escalate');
    return repaired;
  }

  async readHead(id: string): Promise<HeadRecord | undefined> {
    this.checkOpen();
    const slot = this.slot(id);
    return this.run(slot, async () => {
      const result = await this.read(slot);
      return result.kind === 'ok' ? result.state.head : undefined;
    });
  }

  async readAll(id: string): Promise<{ head: HeadRecord; messages: MessageRecord[]; recovered?: RecoveryNote } | undefined> {
    this.checkOpen();
    const slot = this.slot(id);
    return this.run(slot, async () => {
      const result = await this.read(slot);
      switch (result.kind) {
        case 'ok':
          return { head: result.state.head, messages: result.state.messages.slice() };
        case 'recovered':
          return { head: emptyHead(id), messages: [], recovered: result.note };
        case 'none':
          return undefined;
        default:
          return result satisfies never;
      }
    });
  }

  async readRange(id: string, range: MessageRange): Promise<MessageRecord[] | undefined> {
    this.checkOpen();
    const slot = this.slot(id);
    return this.run(slot, async () => {
      const result = await this.read(slot);
      return result.kind === 'ok' ? rangeOf(result.state.messages, range) : undefined;
    });
  }

  append(id: string, commit: AppendCommit): Promise<AppendOutcome> {
    try {
      this.checkOpen();
      const slot = this.slot(id);
      return new Promise<AppendOutcome>((resolve, reject) => {
        slot.pending.push({ commit, resolve, reject });
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
          settle(flights.shift() as Flight);
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
    const result = await this.readLocked(slot);
    if (result.kind !== 'ok') {
      flight.outcomes = batch.map(() => notFound(NAME, slot.paths.id));
      return flight;
    }
    const state = result.state;
    const applied = applyAppends(NAME, slot.paths.id, state, batch.map((pending) => pending.commit));
    flight.outcomes = applied.outcomes;
    try {
      writeAppends(state, applied.bytes);
      flight.synced = flushAppends(state).catch(forget);
    } catch (error) {
      forget(error);
    }
    return flight;
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
        return removeSession(this.context, slot.paths);
      }),
    );
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
          return removeSession(this.context, slot.paths);
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
      await writeFold(slot.paths, started);
      await this.run(slot, () =>
        this.locked(slot, async () => {
          const result = await this.readLocked(slot);
          return finishFold(slot.paths, result.kind === 'ok' ? result.state : undefined, started, this.isGone);
        }),
      );
    } finally {
      // Installed snapshots were renamed away; anything left is a fold that did not finish.
      if (plan?.temporary !== undefined) unlinkIfPresent(plan.temporary.file);
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
  }
}

/** The file driver: sessions as journals and snapshots under `directory`. */
export function fileDriver(directory: string, options: FileDriverOptions = {}): StoreDriver {
  const driver = new FileDriver(directory, options);
  // Every error leaves through here: file-system errors become chatstate errors naming the store.
  return {
    name: driver.name,
    readHead: (id) => guarded(() => driver.readHead(id)),
    readAll: (id) => guarded(() => driver.readAll(id)),
    readRange: (id, range) => guarded(() => driver.readRange(id, range)),
    append: (id, commit) => guarded(() => driver.append(id, commit)),
    replace: (id, commit) => guarded(() => driver.replace(id, commit)),
    list: (query) => guarded(() => driver.list(query)),
    remove: (id) => guarded(() => driver.remove(id)),
    purgeExpired: (now) => guarded(() => driver.purgeExpired(now)),
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
