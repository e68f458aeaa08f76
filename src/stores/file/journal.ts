/**
 * Replaying journals: applying checksummed records to a session's head and messages, following
 * the seals that folds leave, and telling a torn tail (an unfinished write: dropped) from damage
 * in the middle (a bad record with good ones after it: replay stops there, never skips it).
 * @module
 */
import { constants } from 'node:fs';
import type { JsonValue } from '../../message/schema.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';
import {
  FrameError,
  journalLine,
  journalRecord,
  newerFormatError,
  parseLine,
  type BeginCause,
  type JournalRecord,
} from './frame.js';
import type { FileSystem } from './file-system.js';
import { errorCode, isMissing, readAt } from './fs-util.js';

/**
 * What a replay applies records to. Without `added`, only the head is followed (the index does
 * that); with `ids`, a record repeating a stored message id is damage.
 */
export interface ReplayTarget {
  head: HeadRecord;
  lineage: string;
  /** Current journal generation and the bytes of it already applied. */
  gen: number;
  offset: number;
  ids?: Set<string> | undefined;
  added?: MessageRecord[];
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

/** Applies `record` to `target`, or throws `ChainError` without changing anything. */
function apply(record: JournalRecord, target: ReplayTarget): void {
  if (record.k !== 'add') return;
  if (record.from !== target.head.version)
    throw new ChainError(`a record for version ${record.from} follows version ${target.head.version}`);
  let lastSeq = target.head.lastSeq;
  for (const message of record.msgs) {
    if (message.seq <= lastSeq) throw new ChainError(`message seq ${message.seq} does not follow ${lastSeq}`);
    if (target.ids?.has(message.id) === true) throw new ChainError(`message ${message.id} is stored twice`);
    lastSeq = message.seq;
  }
  const { id: _id, ...changes } = record.head as Record<string, JsonValue>;
  const head = withoutEmptyKind({ ...target.head, ...changes } as HeadRecord);
  if (!(head.version > record.from) || head.lastSeq !== lastSeq)
    throw new ChainError('a record with an inconsistent head');
  target.head = head;
  if (target.added !== undefined) {
    for (const message of record.msgs) {
      target.added.push(message);
      target.ids?.add(message.id);
    }
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
      if (record.k === 'add') {
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
