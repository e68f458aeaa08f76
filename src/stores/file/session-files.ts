/**
 * One session on disk: reading it (snapshot, then the journal chain; the backup when the snapshot
 * is missing or damaged; a recovery note when nothing is readable) and every write that changes
 * its files, each ordered so that a crash at any instant leaves either the old files or the new
 * ones — never a torn session, never a lost acknowledged append.
 *
 * Reads take no lock: snapshots are replaced by rename and journals only grow, so a reader sees a
 * consistent state and re-checks the snapshot at the end. Anything that must change files to be
 * read (truncating a torn tail, falling back to the backup, keeping damaged files aside) asks for
 * a locked read, which repairs.
 *
 * A state does not need every message in memory: it keeps the snapshot open (header and block
 * index) with the records the journals added after it, and reads the snapshot's records — all of
 * them, a range, or only their ids — when an operation needs them. Damage found in a part read
 * later (`SnapshotDamage`) is repaired like damage found when opening: under the lock, from the
 * backup.
 * @module
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { NotFoundError } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import { appendToHead, checkKeys, checkVersion, rangeOf } from '../../store/driver-helpers.js';
import type { AppendCommit, AppendOutcome, HeadRecord, MessageRange, MessageRecord, RecoveryNote, RecoveryNotice, ReplaceCommit } from '../../store/types.js';
import { journalLine, type BeginCause } from './frame.js';
import type { FileSystem } from './file-system.js';
import { closeQuietly, fdatasync, fsyncDirectory, removeTree, stampOf, statOrUndefined, unlinkIfPresent, writeFully } from './fs-util.js';
import { openJournal, replayOpen, type ReplayEnd } from './journal.js';
import type { SessionPaths } from './paths.js';
import { highest, isBelow, openWatermark, readWatermark, writeWatermark, type Watermark } from './watermark.js';
import { abandonedCreation, collectGarbage, createJournal, inventory, keepAside, onlyBegins, readMarker, recoverLost, type FilesContext } from './session-dir.js';
import {
  SnapshotDamage,
  closeSource,
  describe,
  loadIds,
  loadRange,
  loadRecords,
  readSnapshotFile,
  readSnapshotHeader,
  sourceOf,
  verifySource,
  writeTemporary,
  type SnapshotContent,
  type SnapshotRead,
  type SnapshotSource,
  type TemporarySnapshot,
} from './snapshot-file.js';

export type { FilesContext } from './session-dir.js';
export { SnapshotDamage, SnapshotGone } from './snapshot-file.js';

/** What the driver keeps in memory for a session it has read. */
export interface SessionState {
  /** The file system its files are on. */
  readonly fs: FileSystem;
  head: HeadRecord;
  lineage: string;
  /** Snapshot header fields of a newer version, written back by folds. */
  extra: Readonly<Record<string, JsonValue>> | undefined;
  /** The journal generation the snapshot names. */
  baseGen: number;
  /** The snapshot (or backup) the state continues, kept open. */
  source: SnapshotSource;
  /** Its records, when loaded. */
  base: MessageRecord[] | undefined;
  /** The records the journals added after it, ascending. */
  added: MessageRecord[];
  /** Every message id, when loaded (appends need them). */
  ids: Set<string> | undefined;
  /** Identity of the snapshot file read (undefined when it came from the backup). */
  snapStamp: string | undefined;
  fromBackup: boolean;
  /** The journal appends go to, its descriptor, and the bytes of it applied. */
  gen: number;
  fd: number | undefined;
  offset: number;
  /** Bytes of journal since the snapshot, and the snapshot's size: when to fold. */
  journalBytes: number;
  snapshotBytes: number;
  /** Records read from other writers that this process has not fsynced itself. */
  unsynced: boolean;
  /** The high-water mark file, while open for writing (see `markDurable`). */
  markFd: number | undefined;
  /** Why the snapshot could not be used, when the state came from the backup. */
  damage?: string;
}

/** Damage the store found and repaired, reported to `FileDriverOptions.onDamage`. */
export interface DamageReport {
  readonly sessionId: string;
  /**
   * `restored-from-backup`: the snapshot was missing or damaged, the backup and its journals were used.
   * `journal-damaged`: a journal record failed its checksum, or the journal was cut, emptied or
   * deleted below the session's high-water mark; what precedes the damage was kept, the journal copied aside.
   * `unreadable`: nothing was readable; a recovery session took the session's place.
   */
  readonly kind: RecoveryNotice['kind'];
  readonly reason: string;
  /** Damaged files moved or copied aside, relative to the store directory. */
  readonly keptAside: readonly string[];
  /** When acknowledged data was lost: the notice the session now carries (see `RecoveryNotice`). */
  readonly notice?: RecoveryNotice;
}

/** The result of reading a session. */
export type ReadResult =
  | { readonly kind: 'ok'; readonly state: SessionState }
  | { readonly kind: 'none' }
  | { readonly kind: 'recovered'; readonly note: RecoveryNote }
  /** Only from an unlocked read: the session needs a repair that only a locked read may make. */
  | { readonly kind: 'escalate' };

function idsOf(records: readonly MessageRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const record of records) ids.add(record.id);
  return ids;
}

function stateFrom(read: Extract<SnapshotRead, { kind: 'ok' }>, fromBackup: boolean): SessionState {
  const { source, records } = read;
  const { header } = source;
  return {
    fs: source.fs,
    head: header.head,
    lineage: header.lineage,
    extra: header.extra,
    baseGen: header.gen,
    source,
    base: records,
    added: [],
    // Loaded records come with their ids (a replay then also checks journal records against them).
    ids: read.ids,
    snapStamp: fromBackup ? undefined : source.stamp,
    fromBackup,
    gen: header.gen,
    fd: undefined,
    offset: 0,
    journalBytes: 0,
    snapshotBytes: source.size,
    unsynced: false,
    markFd: undefined,
  };
}

/** Closes the files a state holds open (it stays usable: they are opened again when needed). */
export function release(state: SessionState | undefined): void {
  if (state === undefined) return;
  closeQuietly(state.fs, state.fd);
  state.fd = undefined;
  closeQuietly(state.fs, state.markFd);
  state.markFd = undefined;
  closeSource(state.source);
}

/** Descriptors a state holds open. */
export function openFiles(state: SessionState): number {
  return (state.fd === undefined ? 0 : 1) + (state.source.fd === undefined ? 0 : 1) + (state.markFd === undefined ? 0 : 1);
}

/** Memory a state takes, roughly: what `cacheBytes` counts. */
export function memoryOf(state: SessionState): number {
  const light = (state.source.blocks?.length ?? 0) * 48 + (state.source.window?.bytes ?? 0);
  return (state.base === undefined ? light : state.snapshotBytes) + state.journalBytes + (state.ids === undefined ? 0 : state.ids.size * 64);
}

/**
 * Drops the snapshot's records from memory, keeping what reads them again (a schema-1 snapshot,
 * which has no index, is kept whole).
 */
export function unload(state: SessionState): void {
  if (state.base === undefined || state.source.blocks === undefined || state.fromBackup) return;
  state.base = undefined;
}

/** Every record of the session, the snapshot's read (and verified) if not in memory yet. */
export function allRecords(state: SessionState): MessageRecord[] {
  state.base ??= loadRecords(state.source);
  return state.added.length === 0 ? state.base.slice() : state.base.concat(state.added);
}

/** The records of `range` (the last `limit` of the seq window): from memory, or the snapshot blocks that hold them. */
export function rangeRecords(state: SessionState, range: MessageRange): MessageRecord[] {
  const tail = rangeOf(state.added, range);
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  if (tail.length >= limit) return tail;
  // Every snapshot record precedes every journal record: the rest of the window is in the snapshot.
  const rest: MessageRange = { ...range, ...(range.limit === undefined ? {} : { limit: limit - tail.length }) };
  const earlier = state.base === undefined ? loadRange(state.source, rest) : rangeOf(state.base, rest);
  return tail.length === 0 ? earlier : earlier.concat(tail);
}

/** Loads every message id (appends need them to skip messages already stored); `SnapshotDamage` if one is stored twice. */
export function ensureIds(state: SessionState): Set<string> {
  if (state.ids !== undefined) return state.ids;
  const ids = state.base === undefined ? new Set(loadIds(state.source)) : idsOf(state.base);
  const expected = (state.base?.length ?? (state.source.header.layout.kind === 'lines' ? state.source.header.layout.count : ids.size)) + state.added.length;
  for (const record of state.added) ids.add(record.id);
  if (ids.size !== expected) throw new SnapshotDamage(`session ${state.head.id} stores a message id twice`);
  state.ids = ids;
  return ids;
}

type ChainEnd = ReplayEnd | { readonly kind: 'vanished' } | { readonly kind: 'missing' };

/** Applies the journals after `state`'s position, following seals. */
function catchUp(p: SessionPaths, state: SessionState): ChainEnd {
  const { fs } = p;
  for (;;) {
    if (state.fd === undefined) {
      const fd = openJournal(fs, p.journal(state.gen));
      if (fd === undefined) return state.offset === 0 ? { kind: 'missing' } : { kind: 'vanished' };
      state.fd = fd;
    }
    const before = state.offset;
    const end = replayOpen(fs, state.fd, state, `journal ${state.gen} of ${p.id}`);
    if (state.offset > before) {
      state.journalBytes += state.offset - before;
      state.unsynced = true;
    }
    if (end.kind !== 'sealed') return end;
    closeQuietly(fs, state.fd);
    state.fd = undefined;
    state.gen = end.next;
    state.offset = 0;
  }
}

/** A journal generation no file of the session uses yet. */
function nextGen(p: SessionPaths, state: SessionState | undefined): number {
  return Math.max(0, state?.gen ?? 0, state?.baseGen ?? 0, ...inventory(p).journals) + 1;
}

/** Whether the snapshot file on disk is the one `state` was read from. */
function snapshotIsCurrent(p: SessionPaths, state: SessionState | undefined): boolean {
  const { fs } = p;
  const stat = statOrUndefined(fs, p.snapshot);
  return state !== undefined && !state.fromBackup && stat !== undefined && stampOf(stat) === state.snapStamp;
}

/** What a state's next snapshot is made of: its records in memory, or its snapshot's body and the added records. */
function contentOf(state: SessionState): { content: SnapshotContent; records: MessageRecord[] | undefined } {
  if (state.base !== undefined) {
    const records = state.base.concat(state.added);
    return { content: { records }, records };
  }
  return { content: { base: state.source, records: state.added.slice() }, records: undefined };
}

/**
 * Moves a state onto a snapshot just put in place that holds its records up to `lastSeq`: those
 * leave `added` (and join `base`, when the records are in memory).
 */
function rebase(state: SessionState, source: SnapshotSource, gen: number, lastSeq: number): void {
  const split = state.added.findIndex((record) => record.seq > lastSeq);
  const covered = split < 0 ? state.added : state.added.slice(0, split);
  if (state.base !== undefined && covered.length > 0) state.base = state.base.concat(covered);
  state.added = split < 0 ? [] : state.added.slice(split);
  closeSource(state.source);
  state.source = source;
  state.snapStamp = source.stamp;
  state.snapshotBytes = source.size;
  state.baseGen = gen;
  if (state.gen === gen) state.journalBytes = state.offset;
}

/** The parts of a rewrite. */
interface Rewrite {
  readonly head: HeadRecord;
  readonly content: SnapshotContent;
  /** The new snapshot's records, when they are in memory. */
  readonly records: MessageRecord[] | undefined;
  readonly lineage: string;
  readonly extra: Readonly<Record<string, JsonValue>> | undefined;
  readonly cause: BeginCause;
}

/**
 * Installs a new snapshot (with a fresh journal) in place of the current state — the one path
 * for replace, create and repairs. The order makes every crash point safe: new journal and
 * temporary snapshot flushed → old snapshot renamed to the backup (a damaged one is kept aside
 * instead) → temporary renamed in → directory flushed. Between the two renames a reader falls
 * back to the backup, which with its journals is the old state.
 */
async function rewrite(context: FilesContext, p: SessionPaths, current: SessionState | undefined, next: Rewrite, isGone: (pid: number) => boolean): Promise<{ state: SessionState; keptAside: string[] }> {
  const { fs } = p;
  const created = fs.mkdirSync(p.dir, { recursive: true });
  if (created !== undefined) {
    // A new directory exists durably once the directory holding it is flushed: flush each
    // parent of what was created, deepest first.
    for (let dir = path.dirname(p.dir); ; dir = path.dirname(dir)) {
      await fsyncDirectory(fs, dir);
      if (dir === path.dirname(created) || dir === path.dirname(dir)) break;
    }
  }
  const gen = nextGen(p, current);
  const journal = await createJournal(p, gen, next.head.version, next.lineage, next.cause);
  let keptAside: string[] = [];
  let temporary: TemporarySnapshot | undefined;
  try {
    temporary = await writeTemporary(p, { gen, lineage: next.lineage, head: next.head, ...(next.extra === undefined ? {} : { extra: next.extra }) }, next.content);
    let backupGen: number | undefined;
    // The snapshot being replaced becomes the backup only once every byte of it checked out.
    if (snapshotIsCurrent(p, current) && verifySource((current as SessionState).source)) {
      fs.renameSync(p.snapshot, p.backup);
      backupGen = current?.baseGen;
    } else if (statOrUndefined(fs, p.snapshot) !== undefined) {
      // Damaged (we could not read it): never make it the backup, never delete it.
      keptAside = await keepAside(context, p, [p.snapshot]);
    }
    fs.renameSync(temporary.file, p.snapshot);
    unlinkIfPresent(fs, p.marker);
    await fsyncDirectory(fs, p.dir);
    collectGarbage(p, backupGen, isGone);
    const state: SessionState = {
      fs,
      head: next.head,
      lineage: next.lineage,
      extra: next.extra,
      baseGen: gen,
      source: sourceOf(temporary, p.snapshot),
      base: next.records,
      added: [],
      ids: next.records === undefined ? undefined : idsOf(next.records),
      snapStamp: temporary.stamp,
      fromBackup: false,
      gen,
      fd: journal.fd,
      offset: journal.bytes,
      journalBytes: journal.bytes,
      snapshotBytes: temporary.size,
      unsynced: false,
      markFd: undefined,
    };
    release(current);
    // Only now is the new head durable: the mark may say so.
    markDurable(p, state, next.head);
    return { state, keptAside };
  } catch (error) {
    closeQuietly(fs, journal.fd);
    if (temporary !== undefined && fs.existsSync(temporary.file)) unlinkIfPresent(fs, temporary.file);
    throw error;
  }
}

/** A random lineage id (a new one for each replace). */
export function newLineage(): string {
  return randomBytes(8).toString('hex');
}

/** Options of a read. */
export interface ReadOptions {
  /** The caller holds the session's write lock: repairs are allowed. */
  readonly locked: boolean;
  /** Read and verify every record of the snapshot now (a full load, or a repair). */
  readonly full?: boolean;
  readonly isGone: (pid: number) => boolean;
  readonly report: (damage: DamageReport) => void;
}

/** Reads a session from scratch. */
async function readFull(context: FilesContext, p: SessionPaths, options: ReadOptions): Promise<ReadResult> {
  const { fs } = p;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    // The mark first: it only grows after what it describes is durable, so files read after it
    // can be below it only when acknowledged data is missing, never because a writer raced us.
    const mark = readWatermark(p);
    const primary = readSnapshotFile(fs, p.snapshot, p.id, 'snapshot', options.full === true);
    let read: SnapshotRead = primary;
    let fromBackup = false;
    let backup: SnapshotRead | undefined;
    if (primary.kind !== 'ok') {
      // A backup is read whole: the state made from it is written again as the snapshot.
      backup = readSnapshotFile(fs, p.backup, p.id, 'backup', true);
      if (backup.kind === 'ok') {
        read = backup;
        fromBackup = true;
      }
    }
    if (read.kind !== 'ok') {
      const found = inventory(p);
      if (!found.hasData || abandonedCreation(p, found)) return found.marker ? { kind: 'recovered', note: withFloor(readMarker(p), mark) } : { kind: 'none' };
      if (!options.locked) return { kind: 'escalate' };
      const reason = `snapshot: ${describe(primary)}; backup: ${describe(backup ?? primary)}`;
      const note = withFloor(await recoverLost(context, p, reason, found), mark);
      options.report({ sessionId: p.id, kind: 'unreadable', reason, keptAside: note.keptAside });
      return { kind: 'recovered', note };
    }
    const state = stateFrom(read, fromBackup);
    // Falling back to the backup changes files (the snapshot is rewritten): only under the lock.
    // Between the two renames of a fold the snapshot is briefly missing; the lock waits that out.
    if (fromBackup && !options.locked) {
      release(state);
      return { kind: 'escalate' };
    }
    if (fromBackup) state.damage = `snapshot: ${describe(primary)}`;
    const end = catchUp(p, state);
    if (end.kind === 'vanished') {
      release(state);
      continue;
    }
    if (!options.locked) {
      // The snapshot must still be the one read: otherwise a fold, replace or delete ran meanwhile.
      const stat = statOrUndefined(fs, p.snapshot);
      if (stat === undefined || stampOf(stat) !== state.snapStamp) {
        release(state);
        continue;
      }
      if (end.kind === 'corrupt' || beginIsDamaged(state, end) || isBelow(positionOf(state), mark)) {
        release(state);
        return { kind: 'escalate' };
      }
      return { kind: 'ok', state };
    }
    return { kind: 'ok', state: await settle(context, p, state, end, options, { mark }) };
  }
  if (!options.locked) return { kind: 'escalate' };
  throw new Error(`file: session ${p.id} kept changing while it was read under its lock`);
}

/**
 * True when the journal being read has no valid begin line although it exists: a journal is
 * reachable only after its begin line was flushed, so this is damage (emptied or overwritten),
 * not an unfinished write.
 */
function beginIsDamaged(state: SessionState, end: ChainEnd): boolean {
  return state.offset === 0 && (end.kind === 'end' || end.kind === 'torn');
}

/** A recovery note with the floor the lost session's mark sets for its successor. */
function withFloor(note: RecoveryNote, mark: Watermark | undefined): RecoveryNote {
  return mark === undefined ? note : { ...note, floor: { version: mark.version, lastSeq: mark.lastSeq } };
}

/** A state's position as a mark. */
function positionOf(state: { readonly head: HeadRecord }): Watermark {
  return { version: state.head.version, lastSeq: state.head.lastSeq };
}

/**
 * The recovery notice for a repair that lost acknowledged data: everything between what was read
 * back (`kept`) and the highest the session was known to reach (`reached`).
 */
function lossNotice(id: string, kind: RecoveryNotice['kind'], reason: string, kept: Watermark, reached: Watermark, keptAside: readonly string[]): RecoveryNotice {
  return {
    id,
    at: new Date().toISOString(),
    kind,
    reason,
    lost: { fromSeq: kept.lastSeq + 1, toSeq: reached.lastSeq, fromVersion: kept.version + 1, toVersion: reached.version },
    keptAside: [...keptAside],
  };
}

/**
 * Under the lock: makes the files of a state just read clean — a torn tail cut, damage repaired.
 * A state below the session's high-water mark lost acknowledged data (whatever the files look
 * like: a journal cut at a record boundary looks clean): the repair then records a recovery
 * notice, and version and sequence numbers go above the mark, never back.
 */
async function settle(context: FilesContext, p: SessionPaths, state: SessionState, end: ChainEnd, options: ReadOptions, known?: { readonly mark: Watermark | undefined }): Promise<SessionState> {
  const { fs } = p;
  const damaged = end.kind === 'corrupt' || beginIsDamaged(state, end);
  // A clean catch-up of a state this process already held needs no mark (a full read passes the
  // one it read first): a commit's cost stays one write.
  const clean = !damaged && !state.fromBackup && (end.kind === 'end' || end.kind === 'sealed');
  const mark = known !== undefined ? known.mark : clean ? undefined : readWatermark(p);
  const below = isBelow(positionOf(state), mark);
  if (damaged || state.fromBackup || below) {
    const keptAside: string[] = [];
    if (damaged || below) {
      // Never replay past a damaged record, never delete what follows it: the journal is copied aside.
      const journal = p.journal(state.gen);
      if ((statOrUndefined(fs, journal)?.size ?? 0) > 0) keptAside.push(...(await keepAside(context, p, [journal], true)));
    }
    // Journals after the chain belong to a history only a lost snapshot knew (a replace) or that
    // damage cut off: kept aside rather than collected later. Those holding only their begin
    // line (a fold or replace cut by a crash) hold nothing and go.
    const unreachable = inventory(p).journals.filter((gen) => gen > state.gen).map((gen) => p.journal(gen));
    for (const file of unreachable.filter((file) => onlyBegins(fs, file))) unlinkIfPresent(fs, file);
    keptAside.push(...(await keepAside(context, p, unreachable.filter((file) => statOrUndefined(fs, file) !== undefined))));
    // A snapshot that could not be used is kept aside now (not by the rewrite), so the notice names it.
    if (state.fromBackup && statOrUndefined(fs, p.snapshot) !== undefined) keptAside.push(...(await keepAside(context, p, [p.snapshot])));
    // After damage, the version and lastSeq go above anything the lost records claim and the mark
    // says, so no version or sequence number is ever given twice.
    const claimed = highest(end.kind === 'corrupt' ? { version: end.maxVersion, lastSeq: end.maxSeq } : { version: 0, lastSeq: 0 }, mark);
    const kept = positionOf(state);
    const moved = damaged || below;
    const version = moved ? Math.max(kept.version, claimed.version) + 1 : kept.version;
    const reasons = [
      state.damage,
      end.kind === 'corrupt' ? end.reason : beginIsDamaged(state, end) ? `journal ${state.gen} of ${p.id} has no valid begin record` : undefined,
      below ? `the session was read back at version ${kept.version} (seq ${kept.lastSeq}), below its high-water mark of version ${mark?.version ?? 0} (seq ${mark?.lastSeq ?? 0})` : undefined,
    ];
    const reason = reasons.filter(Boolean).join('; ');
    const kind = damaged || !state.fromBackup ? 'journal-damaged' : 'restored-from-backup';
    // A loss is known only against the mark: without one (an older session) the report says what was repaired.
    const notice = below && mark !== undefined ? lossNotice(`recovery-v${version}`, kind, reason, kept, highest(kept, mark), keptAside) : undefined;
    const head: HeadRecord = moved
      ? { ...state.head, version, lastSeq: Math.max(kept.lastSeq, claimed.lastSeq), ...(notice === undefined ? {} : { recovery: [...(state.head.recovery ?? []), notice] }) }
      : state.head;
    // The snapshot is rewritten from what was read (a damaged snapshot is kept aside, a good one becomes the backup).
    const { content, records } = contentOf(state);
    const written = await rewrite(context, p, state, { head, content, records, lineage: state.lineage, extra: state.extra, cause: 'repair' }, options.isGone);
    keptAside.push(...written.keptAside);
    options.report({ sessionId: p.id, kind, reason, keptAside, ...(notice === undefined ? {} : { notice }) });
    return written.state;
  }
  if (end.kind === 'missing') {
    // A journal the chain names is gone (its creation lost with the disk cache, or deleted by hand
    // while the mark says nothing was lost with it): it starts again empty.
    const journal = await createJournal(p, state.gen, state.head.version, state.lineage, 'repair');
    await fsyncDirectory(fs, p.dir);
    state.fd = journal.fd;
    state.offset = journal.bytes;
    state.journalBytes += journal.bytes;
  } else if (end.kind === 'torn' && state.fd !== undefined) {
    // Only an unacknowledged write can be cut short (the mark says so): drop it before anything is written after it.
    fs.ftruncateSync(state.fd, state.offset);
  }
  return state;
}

/**
 * Brings a cached state up to date (or reads the session when there is none): new journal
 * records of other processes are applied; a fold by another process keeps the cache; a replace
 * or delete reads again.
 */
export async function refresh(context: FilesContext, p: SessionPaths, state: SessionState | undefined, options: ReadOptions): Promise<ReadResult> {
  const { fs } = p;
  if (state === undefined || state.fromBackup) {
    release(state);
    return readFull(context, p, options);
  }
  const stat = statOrUndefined(fs, p.snapshot);
  if (stat === undefined) {
    release(state);
    return readFull(context, p, options);
  }
  if (stampOf(stat) !== state.snapStamp) {
    const read = readSnapshotFile(fs, p.snapshot, p.id, 'snapshot', false);
    const folded = read.kind === 'ok' ? read.source.header : undefined;
    // Another process folded: same lineage, up to a journal we already follow. Keep the cache.
    if (read.kind === 'ok' && folded !== undefined && folded.lineage === state.lineage && folded.gen >= state.baseGen && folded.gen <= state.gen && folded.head.version <= state.head.version) {
      rebase(state, read.source, folded.gen, folded.head.lastSeq);
    } else {
      if (read.kind === 'ok') closeSource(read.source);
      release(state);
      return readFull(context, p, options);
    }
  }
  const end = catchUp(p, state);
  if (end.kind === 'vanished' || end.kind === 'missing') {
    release(state);
    return readFull(context, p, options);
  }
  if ((end.kind === 'corrupt' || beginIsDamaged(state, end)) && !options.locked) {
    release(state);
    return { kind: 'escalate' };
  }
  if (options.full === true && state.base === undefined) {
    // Every byte is checked now (a repair): damage becomes a `SnapshotDamage` for the caller.
    state.base = loadRecords(state.source);
    ensureIds(state);
  }
  return { kind: 'ok', state: options.locked ? await settle(context, p, state, end, options) : state };
}

/** Head fields an append changed: a journal record stays small however large the head's data. */
function headChanges(before: HeadRecord, after: HeadRecord): Record<string, JsonValue> {
  const changes: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(after)) {
    if (key !== 'id' && value !== (before as unknown as Record<string, unknown>)[key]) changes[key] = value as JsonValue;
  }
  return changes;
}

/** True when `head` has expired at `now` (no check when `now` is not given). */
export function expired(head: HeadRecord, now: number | undefined): boolean {
  return now !== undefined && head.expiresAt !== undefined && head.expiresAt <= now;
}

/** Applies appends to a state (under the lock, its ids loaded) and returns the journal bytes that record them. */
export function applyAppends(store: string, id: string, state: SessionState, commits: readonly AppendCommit[]): { bytes: Buffer | undefined; outcomes: Array<AppendOutcome | Error> } {
  const ids = ensureIds(state);
  const lines: Buffer[] = [];
  const outcomes: Array<AppendOutcome | Error> = [];
  for (const commit of commits) {
    // An expired session is gone even before a purge removes it: an append must not revive it.
    if (expired(state.head, commit.now)) {
      outcomes.push(notFound(store, id));
      continue;
    }
    try {
      checkKeys(store, id, state.head.keys, commit.keys?.expected);
      checkVersion(store, id, state.head.version, commit.expectedVersion);
    } catch (error) {
      outcomes.push(error as Error);
      continue;
    }
    const { head, appended, duplicates } = appendToHead(state.head, commit, (messageId) => ids.has(messageId));
    if (appended.length > 0) {
      lines.push(journalLine({ k: 'add', from: state.head.version, head: headChanges(state.head, head), msgs: appended }));
      for (const record of appended) {
        state.added.push(record);
        ids.add(record.id);
      }
      state.head = head;
    }
    outcomes.push({ version: state.head.version, appended, duplicates });
  }
  return { bytes: lines.length <= 1 ? lines[0] : Buffer.concat(lines), outcomes };
}

/** Writes appended records to the journal (under the lock); `flushAppends` makes them durable. */
export function writeAppends(state: SessionState, bytes: Buffer | undefined): void {
  if (bytes === undefined) return;
  if (state.fd === undefined) throw new Error('file: no journal is open');
  writeFully(state.fs, state.fd, bytes);
  state.offset += bytes.length;
  state.journalBytes += bytes.length;
  state.unsynced = true;
}

/**
 * Flushes the journal when it holds records not yet flushed by this process — its own, or
 * another writer's it has read (acknowledging nothing that a power loss could still take).
 * `blocking` flushes on this thread: the caller found nothing else to do meanwhile, and the hop
 * to the thread pool and back would cost more than a fast disk's flush (see the driver).
 */
export function flushAppends(state: SessionState, blocking: boolean): Promise<void> {
  if (!state.unsynced || state.fd === undefined) return Promise.resolve();
  state.unsynced = false;
  if (!blocking) return fdatasync(state.fs, state.fd);
  state.fs.fdatasyncSync(state.fd);
  return Promise.resolve();
}

/**
 * Records that the session is durable up to `reached` in its high-water mark (see watermark.ts):
 * called only once what it describes was flushed. Best effort: a mark that cannot be written
 * loses no data, only the detection of a later loss, so its failure never fails the commit.
 */
export function markDurable(p: SessionPaths, state: SessionState, reached: Watermark): void {
  try {
    state.markFd ??= openWatermark(p);
    writeWatermark(state.fs, state.markFd, reached);
  } catch {
    closeQuietly(state.fs, state.markFd);
    state.markFd = undefined;
  }
}

/** `NOT_FOUND` for session `id`. */
export function notFound(store: string, id: string): NotFoundError {
  return new NotFoundError(`${store}: no session ${JSON.stringify(id)}`, { details: { id } });
}

/** Replaces (or creates) a session (under the lock, after a locked read). */
export async function replaceSession(context: FilesContext, p: SessionPaths, current: SessionState | undefined, commit: ReplaceCommit, isGone: (pid: number) => boolean): Promise<SessionState> {
  if (current !== undefined) checkKeys(context.store, p.id, current.head.keys, commit.expectedKeys);
  if (commit.expectedVersion !== undefined) checkVersion(context.store, p.id, current?.head.version ?? 0, commit.expectedVersion);
  const messages = commit.messages.map((record) => ({ seq: record.seq, id: record.id, data: record.data }));
  const rewritten = { head: { ...commit.head }, content: { records: messages }, records: messages, lineage: newLineage(), extra: undefined, cause: current === undefined ? 'create' : 'replace' } as const;
  const { state } = await rewrite(context, p, current, rewritten, isGone);
  return state;
}

/** A fold in progress: the state up to the seal, to be written as the next snapshot. */
export interface FoldPlan {
  readonly baseStamp: string;
  readonly baseGen: number;
  readonly gen: number;
  readonly lineage: string;
  readonly head: HeadRecord;
  /** The records up to the seal: in memory, or the base snapshot's body and the added records. */
  readonly content: SnapshotContent;
  readonly extra: Readonly<Record<string, JsonValue>> | undefined;
  temporary?: TemporarySnapshot;
}

/**
 * First step of a fold (under the write lock): start journal `gen + 1` and seal the current one,
 * so appends continue at once while the snapshot is written without the lock.
 */
export async function beginFold(p: SessionPaths, state: SessionState): Promise<FoldPlan | undefined> {
  const { fs } = p;
  if (state.fd === undefined || state.snapStamp === undefined) return undefined;
  const gen = nextGen(p, state);
  const journal = await createJournal(p, gen, state.head.version, state.lineage, 'fold');
  try {
    // The new journal must exist durably before a seal points readers at it.
    await fsyncDirectory(fs, p.dir);
    writeFully(fs, state.fd, journalLine({ k: 'seal', next: gen }));
    await fdatasync(fs, state.fd);
  } catch (error) {
    closeQuietly(fs, journal.fd);
    throw error;
  }
  const { content } = contentOf(state);
  const plan: FoldPlan = {
    baseStamp: state.snapStamp,
    baseGen: state.baseGen,
    gen,
    lineage: state.lineage,
    head: state.head,
    // The base snapshot is read again by name (and identity) while the fold writes: the state's
    // descriptor stays the state's.
    content: content.base === undefined ? content : { ...content, base: { ...content.base, fd: undefined } },
    extra: state.extra,
  };
  closeQuietly(fs, state.fd);
  state.fd = journal.fd;
  state.gen = gen;
  state.offset = journal.bytes;
  state.unsynced = false;
  return plan;
}

/** Second step (no lock): the snapshot of everything before the seal, flushed to a temporary file. */
export async function writeFold(p: SessionPaths, plan: FoldPlan): Promise<void> {
  try {
    plan.temporary = await writeTemporary(p, { gen: plan.gen, lineage: plan.lineage, head: plan.head, ...(plan.extra === undefined ? {} : { extra: plan.extra }) }, plan.content);
  } finally {
    closeSource(plan.content.base);
  }
}

/**
 * Last step (under the write lock): if nothing replaced the snapshot meanwhile, the old snapshot
 * becomes the backup and the new one takes its place; journals the backup no longer needs go.
 */
export async function finishFold(p: SessionPaths, state: SessionState | undefined, plan: FoldPlan, isGone: (pid: number) => boolean): Promise<boolean> {
  const { fs } = p;
  const temporary = plan.temporary;
  if (temporary === undefined) return false;
  const stat = statOrUndefined(fs, p.snapshot);
  if (stat === undefined || stampOf(stat) !== plan.baseStamp) {
    unlinkIfPresent(fs, temporary.file);
    return false;
  }
  fs.renameSync(p.snapshot, p.backup);
  fs.renameSync(temporary.file, p.snapshot);
  await fsyncDirectory(fs, p.dir);
  collectGarbage(p, plan.baseGen, isGone);
  if (state !== undefined && state.lineage === plan.lineage && state.snapStamp === plan.baseStamp) {
    rebase(state, sourceOf(temporary, p.snapshot), plan.gen, plan.head.lastSeq);
  }
  return true;
}

/** Deletes a session (under the lock): its directory is renamed away in one step, then removed. */
export async function removeSession(context: FilesContext, p: SessionPaths): Promise<boolean> {
  const { fs } = p;
  const found = inventory(p);
  if (!found.exists) return false;
  const existed = found.hasData && !abandonedCreation(p, found);
  const trash = path.join(context.paths.sessions, `.trash-${p.name}-${randomBytes(4).toString('hex')}`);
  fs.renameSync(p.dir, trash);
  await fsyncDirectory(fs, context.paths.sessions);
  await removeTree(fs, trash);
  return existed;
}

/** The head of a session from its snapshot header and journals, without reading its messages (for the index). */
export function readHeadOnly(p: SessionPaths): { head: HeadRecord; snap: string; gen: number; offset: number } | undefined {
  const { fs } = p;
  // The mark first (see `readFull`): a head read after it is below it only when data is missing.
  const mark = readWatermark(p);
  let header = readSnapshotHeader(fs, p.snapshot, p.id);
  let snap = header?.stamp ?? '-';
  if (header === undefined) {
    header = readSnapshotHeader(fs, p.backup, p.id);
    snap = '-';
  }
  if (header === undefined) return undefined;
  const target = { head: header.header.head, lineage: header.header.lineage, gen: header.header.gen, offset: 0 };
  for (;;) {
    const fd = openJournal(fs, p.journal(target.gen));
    if (fd === undefined) break;
    let end: ReturnType<typeof replayOpen>;
    try {
      end = replayOpen(fs, fd, target, `journal ${target.gen} of ${p.id}`);
    } finally {
      fs.closeSync(fd);
    }
    if (end.kind !== 'sealed') break;
    target.gen = end.next;
    target.offset = 0;
  }
  const kept = positionOf(target);
  // Damage no read has repaired yet is listed as such: the next load repairs it and tells the loss.
  const head = isBelow(kept, mark)
    ? { ...target.head, recovery: [...(target.head.recovery ?? []), lossNotice('recovery-pending', 'journal-damaged', 'found by the index, not repaired yet: the session is below its high-water mark', kept, highest(kept, mark), [])] }
    : target.head;
  return { head, snap, gen: target.gen, offset: target.offset };
}
