/**
 * Writes that change a session's records: appends (applied in memory, written to the journal,
 * flushed), replacing a session (a rewrite, see `session-rewrite.ts`) and removing it. An append
 * is acknowledged only once its journal bytes are flushed; the high-water mark follows.
 * @module
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { JsonValue } from '../../message/schema.js';
import { InvalidInputError } from '../../errors.js';
import {
  appendToHead,
  checkKeys,
  checkVersion,
  isExpired,
  noSessionError,
  reusedIdError,
} from '../../store/driver-helpers.js';
import type { AppendCommit, AppendOutcome, HeadRecord, ReplaceCommit, TailCommit } from '../../store/driver-types.js';
import { journalLine, type CutRecord } from './frame.js';
import { applyRecord } from './journal.js';
import { fdatasync, fsyncDirectory, removeTree, unlinkIfPresent, writeFully } from './fs-util.js';
import type { SessionPaths } from './paths.js';
import { abandonedCreation, collectGarbage, inventory, type FilesContext } from './session-dir.js';
import { newLineage, rewrite } from './session-rewrite.js';
import { ensureIds, rangeRecords, type SessionState } from './session-state.js';

/** Head fields an append changed: a journal record stays small however large the head's data. */
function headChanges(before: HeadRecord, after: HeadRecord): Record<string, JsonValue> {
  const changes: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(after)) {
    if (key !== 'id' && value !== (before as unknown as Record<string, unknown>)[key])
      changes[key] = value as JsonValue;
  }
  // A kind the append removed is written as '' (replay drops it): a missing field would keep the old one.
  if (before.kind !== undefined && after.kind === undefined) changes.kind = '';
  return changes;
}

/** Applies appends to a state (under the lock, its ids loaded) and returns the journal bytes that record them. */
export function applyAppends(
  store: string,
  id: string,
  state: SessionState,
  commits: readonly AppendCommit[],
): { bytes: Buffer | undefined; outcomes: Array<AppendOutcome | Error> } {
  const ids = ensureIds(state);
  const lines: Buffer[] = [];
  const outcomes: Array<AppendOutcome | Error> = [];
  for (const commit of commits) {
    // An expired session is gone even before a purge removes it: an append must not revive it.
    if (isExpired(state.head.expiresAt, commit.now)) {
      outcomes.push(noSessionError(store, id));
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
      lines.push(
        journalLine({ k: 'add', from: state.head.version, head: headChanges(state.head, head), msgs: appended }),
      );
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

/**
 * Applies a tail replace to a state (under the lock) and returns the one journal line that records
 * it: a cut, which replays exactly as it was applied here. `CONFLICT` on another version,
 * `INVALID_ARGUMENT` when a new message reuses an id the kept part holds; nothing changes then.
 */
export function applyTail(store: string, id: string, state: SessionState, commit: TailCommit): Buffer {
  checkVersion(store, id, state.head.version, commit.expectedVersion);
  const ids = ensureIds(state);
  const removed = commit.afterSeq > state.head.lastSeq ? [] : rangeRecords(state, { afterSeq: commit.afterSeq });
  const dropped = new Set(removed.map((record) => record.id));
  for (const message of commit.messages)
    if (ids.has(message.id) && !dropped.has(message.id)) throw reusedIdError(store, id, message.id);
  const unset = Object.keys(state.head).filter((key) => !(key in commit.head));
  const record: CutRecord = {
    k: 'cut',
    from: state.head.version,
    after: commit.afterSeq,
    head: headChanges(state.head, commit.head),
    ...(unset.length === 0 ? {} : { unset }),
    msgs: commit.messages.map((message) => ({ seq: message.seq, id: message.id, data: message.data })),
  };
  const line = journalLine(record);
  const wrong = applyRecord(record, state);
  if (wrong !== undefined) throw new InvalidInputError('INVALID_ARGUMENT', `${store}: tail replace of ${id}: ${wrong}`);
  // A cut into the snapshot's records leaves the ids to be read again: they are known here.
  if (state.ids === undefined) {
    for (const message of removed) ids.delete(message.id);
    for (const message of record.msgs) ids.add(message.id);
    state.ids = ids;
  }
  return line;
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

/** Replaces (or creates) a session (under the lock, after a locked read). */
export async function replaceSession(
  context: FilesContext,
  p: SessionPaths,
  current: SessionState | undefined,
  commit: ReplaceCommit,
  isGone: (pid: number) => boolean,
): Promise<SessionState> {
  if (current !== undefined) checkKeys(context.store, p.id, current.head.keys, commit.expectedKeys);
  if (commit.expectedVersion !== undefined)
    checkVersion(context.store, p.id, current?.head.version ?? 0, commit.expectedVersion);
  const messages = commit.messages.map((record) => ({ seq: record.seq, id: record.id, data: record.data }));
  const rewritten = {
    head: { ...commit.head },
    content: { records: messages },
    records: messages,
    lineage: newLineage(),
    extra: undefined,
    cause: current === undefined ? 'create' : 'replace',
  } as const;
  const { state } = await rewrite(context, p, current, rewritten, isGone);
  if (commit.erase === true) {
    // Erased on request (`SaveOptions.erase`): the old snapshot, now the backup, and the journals
    // before the new one hold the dropped messages. They go, at the cost of the fallback a
    // backup gives: damage to the new snapshot before the next fold would leave nothing to restore.
    unlinkIfPresent(p.fs, p.backup);
    collectGarbage(p, state.gen, isGone);
    await fsyncDirectory(p.fs, p.dir);
  }
  return state;
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
