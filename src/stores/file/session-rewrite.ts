/**
 * Installing a new snapshot with a fresh journal in place of a session's files: the one path for
 * replace, create and repairs, ordered so that a crash at any instant leaves either the old files
 * or the new ones — never a torn session, never a lost acknowledged append.
 * @module
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { JsonValue } from '../../message/schema.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';
import type { BeginCause } from './frame.js';
import { closeQuietly, fsyncDirectory, stampOf, statOrUndefined, unlinkIfPresent } from './fs-util.js';
import type { SessionPaths } from './paths.js';
import { collectGarbage, createJournal, inventory, keepAside, type FilesContext } from './session-dir.js';
import { idsOf, markDurable, release, type SessionState } from './session-state.js';
import {
  sourceOf,
  verifySource,
  writeTemporary,
  type SnapshotContent,
  type TemporarySnapshot,
} from './snapshot-file.js';

/** A journal generation no file of the session uses yet. */
export function nextGen(p: SessionPaths, state: SessionState | undefined): number {
  return Math.max(0, state?.gen ?? 0, state?.baseGen ?? 0, ...inventory(p).journals) + 1;
}

/** Whether the snapshot file on disk is the one `state` was read from. */
function snapshotIsCurrent(p: SessionPaths, state: SessionState | undefined): boolean {
  const { fs } = p;
  const stat = statOrUndefined(fs, p.snapshot);
  return state !== undefined && !state.fromBackup && stat !== undefined && stampOf(stat) === state.snapStamp;
}

/** The parts of a rewrite. */
export interface Rewrite {
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
export async function rewrite(
  context: FilesContext,
  p: SessionPaths,
  current: SessionState | undefined,
  next: Rewrite,
  isGone: (pid: number) => boolean,
): Promise<{ state: SessionState; keptAside: string[] }> {
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
    temporary = await writeTemporary(
      p,
      { gen, lineage: next.lineage, head: next.head, ...(next.extra === undefined ? {} : { extra: next.extra }) },
      next.content,
    );
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
      gaps: [],
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
