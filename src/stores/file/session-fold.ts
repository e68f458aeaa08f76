/**
 * Folding a session's journal into a new snapshot, in three steps so that appends go on meanwhile:
 * under the lock, seal the journal and start the next one; without it, write the snapshot of
 * everything before the seal to a temporary file; under the lock again, put it in place (the old
 * snapshot becomes the backup) unless something replaced the snapshot meanwhile.
 * @module
 */
import type { JsonValue } from '../../message/schema.js';
import type { HeadRecord } from '../../store/driver-types.js';
import { journalLine } from './frame.js';
import {
  closeQuietly,
  fdatasync,
  fsyncDirectory,
  stampOf,
  statOrUndefined,
  unlinkIfPresent,
  writeFully,
} from './fs-util.js';
import type { SessionPaths } from './paths.js';
import { collectGarbage, createJournal } from './session-dir.js';
import { nextGen } from './session-rewrite.js';
import { contentOf, rebase, type SessionState } from './session-state.js';
import {
  closeSource,
  sourceOf,
  writeTemporary,
  type SnapshotContent,
  type TemporarySnapshot,
} from './snapshot-file.js';

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
    plan.temporary = await writeTemporary(
      p,
      {
        gen: plan.gen,
        lineage: plan.lineage,
        head: plan.head,
        ...(plan.extra === undefined ? {} : { extra: plan.extra }),
      },
      plan.content,
    );
  } finally {
    closeSource(plan.content.base);
  }
}

/**
 * Last step (under the write lock): if nothing replaced the snapshot meanwhile, the old snapshot
 * becomes the backup and the new one takes its place; journals the backup no longer needs go.
 */
export async function finishFold(
  p: SessionPaths,
  state: SessionState | undefined,
  plan: FoldPlan,
  isGone: (pid: number) => boolean,
): Promise<boolean> {
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
    rebase(state, sourceOf(temporary, p.snapshot), plan.gen, plan.head);
  }
  return true;
}
