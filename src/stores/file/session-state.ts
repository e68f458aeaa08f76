/**
 * A session's state in memory, and what reads it further. A state does not need every message in
 * memory: it keeps the snapshot open (header and block index) with the records the journals added
 * after it, and reads the snapshot's records — all of them, a range, or only their ids — when an
 * operation needs them. Damage found in a part read later (`SnapshotDamage`) is repaired like
 * damage found when opening: under the lock, from the backup (see `session-repair.ts`).
 * @module
 */
import type { JsonValue } from '../../message/schema.js';
import { rangeOf } from '../../store/driver-helpers.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';
import type { MessageRange } from '../../store/session-store-types.js';
import type { FileSystem } from './file-system.js';
import { closeQuietly } from './fs-util.js';
import type { SessionPaths } from './paths.js';
import {
  SnapshotDamage,
  closeSource,
  loadIds,
  loadRange,
  loadRecords,
  type SnapshotContent,
  type SnapshotRead,
  type SnapshotSource,
} from './snapshot-file.js';
import { openWatermark, writeWatermark, type Watermark } from './watermark.js';
import type { Gap } from './journal.js';

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
  /** The records the journals added after it, ascending (a tail cut removes from it at once). */
  added: MessageRecord[];
  /** Seqs tail cuts removed since the snapshot: its records are read through them (see `baseRecords`). */
  gaps: Gap[];
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

/** The ids of `records`. */
export function idsOf(records: readonly MessageRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const record of records) ids.add(record.id);
  return ids;
}

/** The gaps that can hold records of the snapshot (its records all have a seq up to its head's `lastSeq`). */
function baseGaps(state: SessionState): Gap[] {
  const top = state.source.header.head.lastSeq;
  return state.gaps.filter((gap) => gap.after < top);
}

/** `records` without those a gap removed. */
function outsideGaps(records: MessageRecord[], gaps: readonly Gap[]): MessageRecord[] {
  if (gaps.length === 0) return records;
  return records.filter((record) => !gaps.some((gap) => record.seq > gap.after && record.seq <= gap.upTo));
}

/** The snapshot's records still in the session (read and verified if not in memory yet). */
function baseRecords(state: SessionState): MessageRecord[] {
  state.base ??= loadRecords(state.source);
  return outsideGaps(state.base, baseGaps(state));
}

/** The state of a snapshot (or backup) just opened, before any journal is applied. */
export function stateFrom(read: Extract<SnapshotRead, { kind: 'ok' }>, fromBackup: boolean): SessionState {
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
    gaps: [],
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
  return (
    (state.fd === undefined ? 0 : 1) + (state.source.fd === undefined ? 0 : 1) + (state.markFd === undefined ? 0 : 1)
  );
}

/** Memory a state takes, roughly: what `cacheBytes` counts. */
export function memoryOf(state: SessionState): number {
  const light = (state.source.blocks?.length ?? 0) * 48 + (state.source.window?.bytes ?? 0);
  return (
    (state.base === undefined ? light : state.snapshotBytes) +
    state.journalBytes +
    (state.ids === undefined ? 0 : state.ids.size * 64)
  );
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
  const base = baseRecords(state);
  return state.added.length === 0 ? base.slice() : base.concat(state.added);
}

/** The records of `range` (the last `limit` of the seq window): from memory, or the snapshot blocks that hold them. */
export function rangeRecords(state: SessionState, range: MessageRange): MessageRecord[] {
  const tail = rangeOf(state.added, range);
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  if (tail.length >= limit) return tail;
  // Every snapshot record precedes every journal record: the rest of the window is in the snapshot.
  const rest: MessageRange = { ...range, ...(range.limit === undefined ? {} : { limit: limit - tail.length }) };
  const gaps = baseGaps(state);
  let earlier: MessageRecord[];
  if (state.base !== undefined) earlier = rangeOf(outsideGaps(state.base, gaps), rest);
  else if (gaps.length === 0) earlier = loadRange(state.source, rest);
  else {
    // The window read from the snapshot is widened by what the gaps can hold, then they are taken out.
    const span = gaps.reduce((sum, gap) => sum + gap.upTo - gap.after, 0);
    const wide = outsideGaps(
      loadRange(state.source, rest.limit === undefined ? rest : { ...rest, limit: rest.limit + span }),
      gaps,
    );
    earlier = rest.limit === undefined || wide.length <= rest.limit ? wide : wide.slice(wide.length - rest.limit);
  }
  return tail.length === 0 ? earlier : earlier.concat(tail);
}

/** Loads every message id (appends need them to skip messages already stored); `SnapshotDamage` if one is stored twice. */
export function ensureIds(state: SessionState): Set<string> {
  if (state.ids !== undefined) return state.ids;
  let ids: Set<string>;
  let expected: number;
  if (state.base !== undefined) {
    const base = baseRecords(state);
    ids = idsOf(base);
    expected = base.length;
  } else {
    ids = new Set(loadIds(state.source));
    expected = state.source.header.layout.kind === 'lines' ? state.source.header.layout.count : ids.size;
    // The snapshot's records a cut removed: read by the blocks that hold them (gaps do not overlap).
    for (const gap of baseGaps(state)) {
      for (const record of loadRange(state.source, { afterSeq: gap.after, beforeSeq: gap.upTo + 1 })) {
        ids.delete(record.id);
        expected -= 1;
      }
    }
  }
  expected += state.added.length;
  for (const record of state.added) ids.add(record.id);
  if (ids.size !== expected) throw new SnapshotDamage(`session ${state.head.id} stores a message id twice`);
  state.ids = ids;
  return ids;
}

/** What a state's next snapshot is made of: its records in memory, or its snapshot's body and the added records. */
export function contentOf(state: SessionState): { content: SnapshotContent; records: MessageRecord[] | undefined } {
  // A snapshot body can be taken over only as a whole: one a cut reached is written from its records.
  if (state.base !== undefined || baseGaps(state).length > 0) {
    const records = baseRecords(state).concat(state.added);
    return { content: { records }, records };
  }
  return { content: { base: state.source, records: state.added.slice() }, records: undefined };
}

/**
 * Moves a state onto a snapshot just put in place that holds its records up to `head` (its
 * `lastSeq` and `version`): those leave `added` (and join `base`, when the records are in memory);
 * the gaps of cuts up to its version are in it already.
 */
export function rebase(
  state: SessionState,
  source: SnapshotSource,
  gen: number,
  head: Pick<HeadRecord, 'lastSeq' | 'version'>,
): void {
  const { lastSeq } = head;
  const split = state.added.findIndex((record) => record.seq > lastSeq);
  const covered = split < 0 ? state.added : state.added.slice(0, split);
  if (state.base !== undefined) state.base = outsideGaps(state.base, baseGaps(state)).concat(covered);
  state.gaps = state.gaps.filter((gap) => gap.version > head.version);
  state.added = split < 0 ? [] : state.added.slice(split);
  closeSource(state.source);
  state.source = source;
  state.snapStamp = source.stamp;
  state.snapshotBytes = source.size;
  state.baseGen = gen;
  if (state.gen === gen) state.journalBytes = state.offset;
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

/** A state's position as a mark. */
export function positionOf(state: { readonly head: HeadRecord }): Watermark {
  return { version: state.head.version, lastSeq: state.head.lastSeq };
}
