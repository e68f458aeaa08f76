/**
 * Reading one session: its snapshot, then the journal chain; the backup when the snapshot is
 * missing or damaged; a recovery note when nothing is readable.
 *
 * Reads take no lock: snapshots are replaced by rename and journals only grow, so a reader sees a
 * consistent state and re-checks the snapshot at the end. Anything that must change files to be
 * read (truncating a torn tail, falling back to the backup, keeping damaged files aside) asks for
 * a locked read, which repairs (see `session-repair.ts`).
 * @module
 */
import type { HeadRecord, RecoveryNote } from '../../store/driver-types.js';
import { closeQuietly, stampOf, statOrUndefined } from './fs-util.js';
import { openJournal, replayOpen } from './journal.js';
import type { SessionPaths } from './paths.js';
import { abandonedCreation, inventory, readMarker, recoverLost, type FilesContext } from './session-dir.js';
import { beginIsDamaged, lossNotice, settle, withFloor, type ChainEnd, type RepairOptions } from './session-repair.js';
import { ensureIds, positionOf, rebase, release, stateFrom, type SessionState } from './session-state.js';
import {
  closeSource,
  describe,
  loadRecords,
  readSnapshotFile,
  readSnapshotHeader,
  type SnapshotRead,
} from './snapshot-file.js';
import { READ_ATTEMPTS } from './tuning.js';
import { highest, isBelow, readWatermark } from './watermark.js';

/** The result of reading a session. */
export type ReadResult =
  | { readonly kind: 'ok'; readonly state: SessionState }
  | { readonly kind: 'none' }
  | { readonly kind: 'recovered'; readonly note: RecoveryNote }
  /** Only from an unlocked read: the session needs a repair that only a locked read may make. */
  | { readonly kind: 'escalate' };

/** Options of a read. */
export interface ReadOptions extends RepairOptions {
  /** The caller holds the session's write lock: repairs are allowed. */
  readonly locked: boolean;
  /** Read and verify every record of the snapshot now (a full load, or a repair). */
  readonly full?: boolean;
}

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

/** Reads a session from scratch. */
async function readFull(context: FilesContext, p: SessionPaths, options: ReadOptions): Promise<ReadResult> {
  const { fs } = p;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
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
      if (!found.hasData || abandonedCreation(p, found))
        return found.marker ? { kind: 'recovered', note: withFloor(readMarker(p), mark) } : { kind: 'none' };
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
  throw new Error(`${context.store}: session ${p.id} kept changing while it was read under its lock`);
}

/**
 * Brings a cached state up to date (or reads the session when there is none): new journal
 * records of other processes are applied; a fold by another process keeps the cache; a replace
 * or delete reads again.
 */
export async function refresh(
  context: FilesContext,
  p: SessionPaths,
  state: SessionState | undefined,
  options: ReadOptions,
): Promise<ReadResult> {
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
    if (
      read.kind === 'ok' &&
      folded !== undefined &&
      folded.lineage === state.lineage &&
      folded.gen >= state.baseGen &&
      folded.gen <= state.gen &&
      folded.head.version <= state.head.version
    ) {
      rebase(state, read.source, folded.gen, folded.head);
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

/** The head of a session from its snapshot header and journals, without reading its messages (for the index). */
export function readHeadOnly(
  p: SessionPaths,
): { head: HeadRecord; snap: string; gen: number; offset: number } | undefined {
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
    ? {
        ...target.head,
        recovery: [
          ...(target.head.recovery ?? []),
          lossNotice(
            'recovery-pending',
            'journal-damaged',
            'found by the index, not repaired yet: the session is below its high-water mark',
            kept,
            highest(kept, mark),
            [],
          ),
        ],
      }
    : target.head;
  return { head, snap, gen: target.gen, offset: target.offset };
}
