/**
 * Replaying journals: applying checksummed records to a session's head and messages, following
 * the seals that folds leave, and telling a torn tail (an unfinished write: dropped) from damage
 * in the middle (a bad record with good ones after it: replay stops there, never skips it).
 * @module
 */
import { constants } from 'node:fs';
import type { JsonValue } from '../../message/schema.js';
import { countBelow } from '../../store/driver-helpers.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';
import {
  FrameError,
  journalLine,
  journalRecord,
  newerFormatError,
  parseLine,
  type AddRecord,
  type BeginCause,
  type CutRecord,
  type JournalRecord,
} from './frame.js';
import type { FileSystem } from './file-system.js';
import { errorCode, isMissing, readAt } from './fs-util.js';

/**
 * Seqs a tail cut removed, `after` excluded, `upTo` included, by the cut of `version` (merged
 * cuts keep the highest). A seq is never given again, so a gap stays true of every later state.
 */
export interface Gap {
  readonly after: number;
  readonly upTo: number;
  readonly version: number;
}

/**
 * What a replay applies records to. Without `added`, only the head is followed (the index does
 * that); with `ids`, a record repeating a stored message id is damage. A cut removes what it
 * drops from `added` at once and records a gap in `gaps`, which the snapshot's records (not in
 * `added`) are read through (see `session-state.ts`).
 */
export interface ReplayTarget {
  head: HeadRecord;
  lineage: string;
  /** Current journal generation and the bytes of it already applied. */
  gen: number;
  offset: number;
  ids?: Set<string> | undefined;
  added?: MessageRecord[];
  gaps?: Gap[];
}

/** `gaps` with `gap` added, overlapping or touching gaps merged, ascending. */
export function withGap(gaps: readonly Gap[], gap: Gap): Gap[] {
  const merged: Gap[] = [];
  let next = gap;
  for (const other of gaps) {
    if (other.upTo < next.after || other.after > next.upTo) merged.push(other);
    else
      next = {
        after: Math.min(other.after, next.after),
        upTo: Math.max(other.upTo, next.upTo),
        version: Math.max(other.version, next.version),
      };
  }
  merged.push(next);
  return merged.sort((a, b) => a.after - b.after);
}

/** How a replay of one journal ended. */
export type ReplayEnd =
  | { readonly kind: 'end' }
  | { readonly kind: 'sealed'; readonly next: number }
  /** An unfinished last record: a write in progress, or one a crash cut (never acknowledged). */
  | { readonly kind: 'torn' }
  /** A damaged record with valid records after it; the highest seq and version those claim. */
  | { readonly kind: 'corrupt'; readonly reason: string; readonly maxSeq: number; readonly maxVersion: number };

/** A record that parses but does not continue the target: damage, reported like a checksum failure. */
class ChainError extends Error {}

function checkBegin(record: JournalRecord, target: ReplayTarget, atStart: boolean): void {
  if (record.k === 'begin') {
    if (!atStart) throw new ChainError('a begin record in the middle of a journal');
    if (record.gen !== target.gen || record.lineage !== target.lineage || record.v !== target.head.version) {
      throw new ChainError(`journal ${target.gen} begins another history (gen ${record.gen}, version ${record.v})`);
    }
  } else if (atStart) {
    throw new ChainError(`journal ${target.gen} has no begin record`);
  }
}

/** `head` without a `kind` of `''`: how an append that removed the kind records it. */
function withoutEmptyKind(head: HeadRecord): HeadRecord {
  if (head.kind !== '') return head;
  const { kind: _removed, ...rest } = head;
  return rest;
}

/**
 * The head `record` leads to from `target`'s, checked: its messages follow `lastSeq` and none is
 * `stored` already; throws `ChainError`.
 */
function nextHead(record: AddRecord | CutRecord, target: ReplayTarget, stored: (id: string) => boolean): HeadRecord {
  if (record.from !== target.head.version)
    throw new ChainError(`a record for version ${record.from} follows version ${target.head.version}`);
  let lastSeq = target.head.lastSeq;
  for (const message of record.msgs) {
    if (message.seq <= lastSeq) throw new ChainError(`message seq ${message.seq} does not follow ${lastSeq}`);
    if (stored(message.id)) throw new ChainError(`message ${message.id} is stored twice`);
    lastSeq = message.seq;
  }
  const { id: _id, ...changes } = record.head as Record<string, JsonValue>;
  const head = { ...target.head, ...changes } as Record<string, unknown>;
  if (record.k === 'cut') for (const key of record.unset ?? []) delete head[key];
  if (!((head.version as number) > record.from) || head.lastSeq !== lastSeq)
    throw new ChainError('a record with an inconsistent head');
  return withoutEmptyKind(head as unknown as HeadRecord);
}

/**
 * Applies a cut: checked first (nothing changes on a `ChainError`). Ids stay known only when the
 * cut removes journal records alone; one that reaches the snapshot's records drops them (their ids
 * are not at hand here: `ensureIds` reads them again, through the gaps).
 */
function applyCut(record: CutRecord, target: ReplayTarget): void {
  if (record.after > target.head.lastSeq)
    throw new ChainError(`a cut after seq ${record.after} beyond seq ${target.head.lastSeq}`);
  const added = target.added;
  const keep = added === undefined ? 0 : countBelow(added, record.after + 1);
  const first = added?.[0];
  // Snapshot records all precede the journal's: a cut at or after the first journal record keeps them all.
  const ids = added !== undefined && first !== undefined && record.after >= first.seq - 1 ? target.ids : undefined;
  const removed = new Set(
    ids === undefined || added === undefined ? [] : added.slice(keep).map((message) => message.id),
  );
  const head = nextHead(record, target, (id) => ids?.has(id) === true && !removed.has(id));
  // Every cut leaves a gap, also one that removed journal records only: a fold begun before it
  // may put them in the snapshot this state moves onto.
  const gap = { after: record.after, upTo: target.head.lastSeq, version: head.version };
  target.head = head;
  if (gap.upTo > gap.after) target.gaps = withGap(target.gaps ?? [], gap);
  if (added !== undefined) {
    added.length = keep;
    for (const id of removed) ids?.delete(id);
    for (const message of record.msgs) {
      added.push(message);
      ids?.add(message.id);
    }
    target.ids = ids;
  }
}

/** Applies `record` to `target`, or throws `ChainError` without changing anything. */
function apply(record: JournalRecord, target: ReplayTarget): void {
  if (record.k === 'cut') {
    applyCut(record, target);
    return;
  }
  if (record.k !== 'add') return;
  const ids = target.ids;
  const head = nextHead(record, target, (id) => ids?.has(id) === true);
  target.head = head;
  if (target.added !== undefined) {
    for (const message of record.msgs) {
      target.added.push(message);
      target.ids?.add(message.id);
    }
  }
}

/**
 * Applies a record this process writes itself (a tail cut) to its state, as a replay will: the
 * reason when it does not continue the state (nothing changed then), `undefined` once applied.
 */
export function applyRecord(record: JournalRecord, target: ReplayTarget): string | undefined {
  try {
    apply(record, target);
    return undefined;
  } catch (error) {
    if (error instanceof ChainError) return error.message;
    throw error;
  }
}

function damaged(buffer: Buffer, from: number, reason: string): ReplayEnd {
  let maxSeq = 0;
  let maxVersion = 0;
  let valid = false;
  let pos = from;
  while (pos < buffer.length) {
    const newline = buffer.indexOf(0x0a, pos);
    if (newline < 0) break;
    try {
      const record = journalRecord(parseLine(buffer, pos, newline));
      valid = true;
      if (record.k === 'add' || record.k === 'cut') {
        for (const message of record.msgs) maxSeq = Math.max(maxSeq, message.seq);
        const version = record.head.version;
        if (typeof version === 'number') maxVersion = Math.max(maxVersion, version);
      }
    } catch {
      // Still damaged: keep looking for a valid record.
    }
    pos = newline + 1;
  }
  return valid ? { kind: 'corrupt', reason, maxSeq, maxVersion } : { kind: 'torn' };
}

/**
 * Replays the bytes of journal `target.gen` from `target.offset` (the bytes are `buffer`),
 * advancing `target.offset` past each record applied.
 */
export function replayBuffer(buffer: Buffer, target: ReplayTarget, what: string): ReplayEnd {
  let pos = 0;
  while (pos < buffer.length) {
    const newline = buffer.indexOf(0x0a, pos);
    if (newline < 0) return { kind: 'torn' };
    let record: JournalRecord;
    try {
      record = journalRecord(parseLine(buffer, pos, newline));
      checkBegin(record, target, target.offset === 0);
      apply(record, target);
    } catch (error) {
      if (error instanceof FrameError && error.newer) throw newerFormatError(what, error.message);
      if (error instanceof FrameError || error instanceof ChainError)
        return damaged(buffer, newline + 1, `${what}: ${error.message} at byte ${target.offset}`);
      throw error;
    }
    target.offset += newline + 1 - pos;
    pos = newline + 1;
    if (record.k === 'seal') return { kind: 'sealed', next: record.next };
  }
  return { kind: 'end' };
}

/** Opens a journal for reading and appending (read-only where the store cannot be written); `undefined` when missing. */
export function openJournal(fs: FileSystem, file: string): number | undefined {
  try {
    return fs.openSync(file, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if (isMissing(error)) return undefined;
    const code = errorCode(error);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      try {
        return fs.openSync(file, 'r');
      } catch (retry) {
        if (isMissing(retry)) return undefined;
        throw retry;
      }
    }
    throw error;
  }
}

/** Replays the unread bytes of the open journal `fd`; `vanished` when it was deleted or truncated under us. */
export function replayOpen(
  fs: FileSystem,
  fd: number,
  target: ReplayTarget,
  what: string,
): ReplayEnd | { readonly kind: 'vanished' } {
  const stat = fs.fstatSync(fd);
  if (stat.nlink === 0 || stat.size < target.offset) return { kind: 'vanished' };
  if (stat.size === target.offset) return { kind: 'end' };
  return replayBuffer(readAt(fs, fd, target.offset, stat.size - target.offset), target, what);
}

/** The first line of a new journal. */
export function beginLine(gen: number, version: number, lineage: string, cause: BeginCause): Buffer {
  return journalLine({ k: 'begin', gen, v: version, lineage, cause });
}
