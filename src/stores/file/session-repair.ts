/**
 * Repairs made under a session's lock once a read found what needs them: a torn tail cut, a
 * journal that lost its begin line or a record recreated, a damaged snapshot replaced from its
 * backup, a session below its high-water mark given a recovery notice. Damaged files are kept
 * aside (moved or copied to lost+found), never deleted.
 * @module
 */
import type { HeadRecord, RecoveryNote } from '../../store/driver-types.js';
import type { RecoveryNotice } from '../../store/session-store-types.js';
import { fsyncDirectory, statOrUndefined, unlinkIfPresent } from './fs-util.js';
import type { ReplayEnd } from './journal.js';
import type { SessionPaths } from './paths.js';
import { createJournal, inventory, keepAside, onlyBegins, type FilesContext } from './session-dir.js';
import { rewrite } from './session-rewrite.js';
import { contentOf, positionOf, type SessionState } from './session-state.js';
import { highest, isBelow, readWatermark, type Watermark } from './watermark.js';

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

/** What a repair needs besides the files: which processes are gone (their leftovers may go) and where damage is reported. */
export interface RepairOptions {
  readonly isGone: (pid: number) => boolean;
  readonly report: (damage: DamageReport) => void;
}

/** How replaying a session's journal chain ended. */
export type ChainEnd = ReplayEnd | { readonly kind: 'vanished' } | { readonly kind: 'missing' };

/**
 * True when the journal being read has no valid begin line although it exists: a journal is
 * reachable only after its begin line was flushed, so this is damage (emptied or overwritten),
 * not an unfinished write.
 */
export function beginIsDamaged(state: SessionState, end: ChainEnd): boolean {
  return state.offset === 0 && (end.kind === 'end' || end.kind === 'torn');
}

/** A recovery note with the floor the lost session's mark sets for its successor. */
export function withFloor(note: RecoveryNote, mark: Watermark | undefined): RecoveryNote {
  return mark === undefined ? note : { ...note, floor: { version: mark.version, lastSeq: mark.lastSeq } };
}

/**
 * The recovery notice for a repair that lost acknowledged data: everything between what was read
 * back (`kept`) and the highest the session was known to reach (`reached`).
 */
export function lossNotice(
  id: string,
  kind: RecoveryNotice['kind'],
  reason: string,
  kept: Watermark,
  reached: Watermark,
  keptAside: readonly string[],
): RecoveryNotice {
  return {
    id,
    at: new Date().toISOString(),
    kind,
    reason,
    lost: {
      fromSeq: kept.lastSeq + 1,
      toSeq: reached.lastSeq,
      fromVersion: kept.version + 1,
      toVersion: reached.version,
    },
    keptAside: [...keptAside],
  };
}

/**
 * Under the lock: makes the files of a state just read clean — a torn tail cut, damage repaired.
 * A state below the session's high-water mark lost acknowledged data (whatever the files look
 * like: a journal cut at a record boundary looks clean): the repair then records a recovery
 * notice, and version and sequence numbers go above the mark, never back.
 */
export async function settle(
  context: FilesContext,
  p: SessionPaths,
  state: SessionState,
  end: ChainEnd,
  options: RepairOptions,
  known?: { readonly mark: Watermark | undefined },
): Promise<SessionState> {
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
      if ((statOrUndefined(fs, journal)?.size ?? 0) > 0)
        keptAside.push(...(await keepAside(context, p, [journal], true)));
    }
    // Journals after the chain belong to a history only a lost snapshot knew (a replace) or that
    // damage cut off: kept aside rather than collected later. Those holding only their begin
    // line (a fold or replace cut by a crash) hold nothing and go.
    const unreachable = inventory(p)
      .journals.filter((gen) => gen > state.gen)
      .map((gen) => p.journal(gen));
    for (const file of unreachable.filter((file) => onlyBegins(fs, file))) unlinkIfPresent(fs, file);
    keptAside.push(
      ...(await keepAside(
        context,
        p,
        unreachable.filter((file) => statOrUndefined(fs, file) !== undefined),
      )),
    );
    // A snapshot that could not be used is kept aside now (not by the rewrite), so the notice names it.
    if (state.fromBackup && statOrUndefined(fs, p.snapshot) !== undefined)
      keptAside.push(...(await keepAside(context, p, [p.snapshot])));
    // After damage, the version and lastSeq go above anything the lost records claim and the mark
    // says, so no version or sequence number is ever given twice.
    const claimed = highest(
      end.kind === 'corrupt' ? { version: end.maxVersion, lastSeq: end.maxSeq } : { version: 0, lastSeq: 0 },
      mark,
    );
    const kept = positionOf(state);
    const moved = damaged || below;
    const version = moved ? Math.max(kept.version, claimed.version) + 1 : kept.version;
    const reasons = [
      state.damage,
      end.kind === 'corrupt'
        ? end.reason
        : beginIsDamaged(state, end)
          ? `journal ${state.gen} of ${p.id} has no valid begin record`
          : undefined,
      below
        ? `the session was read back at version ${kept.version} (seq ${kept.lastSeq}), below its high-water mark of version ${mark?.version ?? 0} (seq ${mark?.lastSeq ?? 0})`
        : undefined,
    ];
    const reason = reasons.filter(Boolean).join('; ');
    const kind = damaged || !state.fromBackup ? 'journal-damaged' : 'restored-from-backup';
    // A loss is known only against the mark: without one (an older session) the report says what was repaired.
    const notice =
      below && mark !== undefined
        ? lossNotice(`recovery-v${version}`, kind, reason, kept, highest(kept, mark), keptAside)
        : undefined;
    const head: HeadRecord = moved
      ? {
          ...state.head,
          version,
          lastSeq: Math.max(kept.lastSeq, claimed.lastSeq),
          ...(notice === undefined ? {} : { recovery: [...(state.head.recovery ?? []), notice] }),
        }
      : state.head;
    // The snapshot is rewritten from what was read (a damaged snapshot is kept aside, a good one becomes the backup).
    const { content, records } = contentOf(state);
    const written = await rewrite(
      context,
      p,
      state,
      { head, content, records, lineage: state.lineage, extra: state.extra, cause: 'repair' },
      options.isGone,
    );
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
