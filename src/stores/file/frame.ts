/**
 * The lines of the file store: every journal line, snapshot header and index line is
 * `<crc32 of the JSON, 8 hex digits> <JSON>\n`, and a line whose checksum fails, or that has no
 * newline yet, is never used. Every such record carries `s`, the schema of the file format; fields
 * this version does not know are kept in memory and written back when the store rewrites the
 * record. The snapshot layout is in `snapshot-format.ts`.
 * @module
 */
import { crc32 } from 'node:zlib';
import { DataError } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';

/**
 * The newest schema of the file store's own records (journal lines, snapshot headers, the index)
 * this version reads. 1: snapshots hold their messages as one JSON array; 2: one line per message
 * with a block index (journal lines are the same in both); 3: a journal may hold tail cuts.
 */
export const FILE_SCHEMA = 3;

/**
 * The schema written on every line but a tail cut: a session never cut stays readable by the
 * versions that read schema 2.
 */
export const LINE_SCHEMA = 2;

/**
 * The schema of a tail cut's line: a version that reads only schema 2 refuses the journal as
 * newer (never as damage) until a fold has taken the cut into a snapshot.
 */
export const CUT_SCHEMA = 3;

/** Why a journal starts: the snapshot it continues was created, folded, replaced or repaired. */
export type BeginCause = 'create' | 'fold' | 'replace' | 'repair';

/** First line of every journal: which snapshot lineage and version it continues. */
export interface BeginRecord {
  readonly k: 'begin';
  readonly gen: number;
  readonly v: number;
  readonly lineage: string;
  readonly cause: BeginCause;
}

/** An append: the head fields it changed and the messages it added. */
export interface AddRecord {
  readonly k: 'add';
  /** The version it applies to: replay stops at a record that does not continue the chain. */
  readonly from: number;
  readonly head: Readonly<Record<string, JsonValue>>;
  readonly msgs: readonly MessageRecord[];
}

/**
 * A tail replace: the messages with a seq above `after` are removed, `msgs` (every seq above the
 * stored `lastSeq`) are added and the head changes by `head`, as one record.
 */
export interface CutRecord {
  readonly k: 'cut';
  /** The version it applies to, as `AddRecord.from`. */
  readonly from: number;
  readonly after: number;
  readonly head: Readonly<Record<string, JsonValue>>;
  /** Head fields the cut removed (a key check dropped), when there are any. */
  readonly unset?: readonly string[];
  readonly msgs: readonly MessageRecord[];
}

/** Last line of a journal that a fold retired: appends continue in journal `next`. */
export interface SealRecord {
  readonly k: 'seal';
  readonly next: number;
}

/** A journal line. */
export type JournalRecord = BeginRecord | AddRecord | CutRecord | SealRecord;

/** Stored data that cannot be used; `newer` marks data of a newer format, which is never treated as damage. */
export class FrameError extends Error {
  constructor(
    message: string,
    readonly newer = false,
  ) {
    super(message);
  }
}

/** The `DataError` thrown for records of a format newer than this version reads. */
export function newerFormatError(what: string, schema: unknown): DataError {
  return new DataError(
    'CORRUPT',
    `file: ${what} uses file-store schema ${String(schema)}, newer than this version reads (${FILE_SCHEMA}); upgrade chatstate`,
    {
      details: { reason: 'newer-format', schema },
    },
  );
}

/** `value` as 8 hex digits (how line checksums are written). */
export function hex(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** A checksummed line for `value`. */
export function frameLine(value: object): Buffer {
  // Encoded once, straight into the line (a journal record is written on every append).
  const json = JSON.stringify(value);
  const length = Buffer.byteLength(json, 'utf8');
  const line = Buffer.allocUnsafe(length + 10);
  line.write(json, 9, 'utf8');
  line.write(hex(crc32(line.subarray(9, 9 + length))), 0, 'latin1');
  line[8] = 0x20;
  line[line.length - 1] = 0x0a;
  return line;
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a non-negative safe integer. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Parses one line (without its newline); throws `FrameError` when it is damaged. */
export function parseLine(buffer: Buffer, start: number, end: number): Record<string, JsonValue> {
  if (end - start < 11 || buffer[start + 8] !== 0x20) throw new FrameError('malformed line');
  const expected = buffer.toString('latin1', start, start + 8);
  const json = buffer.subarray(start + 9, end);
  if (hex(crc32(json)) !== expected) throw new FrameError('checksum mismatch');
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    throw new FrameError('checksum matches but the line is not JSON');
  }
  if (!isObject(value)) throw new FrameError('line is not an object');
  if (typeof value.s !== 'number' || !Number.isInteger(value.s) || value.s < 1)
    throw new FrameError('line has no schema');
  if (value.s > FILE_SCHEMA) throw new FrameError(`schema ${value.s}`, true);
  return value;
}

/** Checks an array of message records (ascending seq, string id and data); extra fields stay on the objects. */
export function messageRecords(value: unknown, what: string): MessageRecord[] {
  if (!Array.isArray(value)) throw new FrameError(`${what} is not an array`);
  let previous = 0;
  for (const record of value as unknown[]) {
    if (
      !isObject(record) ||
      !isCount(record.seq) ||
      record.seq <= previous ||
      typeof record.id !== 'string' ||
      typeof record.data !== 'string'
    ) {
      throw new FrameError(`${what} holds a malformed message record`);
    }
    previous = record.seq;
  }
  // Extra fields of a newer version stay on the objects and are written back by folds.
  return value as MessageRecord[];
}

/** The journal record a parsed line holds; throws `FrameError` when it is not one. */
export function journalRecord(value: Record<string, JsonValue>): JournalRecord {
  switch (value.k) {
    case 'begin':
      if (
        !isCount(value.gen) ||
        !isCount(value.v) ||
        typeof value.lineage !== 'string' ||
        typeof value.cause !== 'string'
      )
        throw new FrameError('malformed begin record');
      return value as unknown as BeginRecord;
    case 'add':
      if (!isCount(value.from) || !isObject(value.head)) throw new FrameError('malformed add record');
      messageRecords(value.msgs, 'add record');
      return value as unknown as AddRecord;
    case 'cut':
      if (
        !isCount(value.from) ||
        !isCount(value.after) ||
        !isObject(value.head) ||
        (value.unset !== undefined &&
          (!Array.isArray(value.unset) || !value.unset.every((key) => typeof key === 'string' && key !== 'id')))
      )
        throw new FrameError('malformed cut record');
      messageRecords(value.msgs, 'cut record');
      return value as unknown as CutRecord;
    case 'seal':
      if (!isCount(value.next)) throw new FrameError('malformed seal record');
      return value as unknown as SealRecord;
    default:
      throw new FrameError(`unknown record kind ${JSON.stringify(value.k)}`);
  }
}

/** A journal line for `record`. */
export function journalLine(record: JournalRecord): Buffer {
  return frameLine({ s: record.k === 'cut' ? CUT_SCHEMA : LINE_SCHEMA, ...record });
}

const HEAD_NUMBERS = ['schema', 'version', 'messageCount', 'tokenCount', 'lastSeq'] as const;

/** The head record a parsed value holds; throws `FrameError` when it is not one. */
export function headRecord(value: unknown): HeadRecord {
  if (
    !isObject(value) ||
    typeof value.id !== 'string' ||
    typeof value.createdAt !== 'string' ||
    typeof value.updatedAt !== 'string' ||
    typeof value.data !== 'string'
  ) {
    throw new FrameError('malformed head');
  }
  for (const key of HEAD_NUMBERS) if (!isCount(value[key])) throw new FrameError(`malformed head: ${key}`);
  return value as unknown as HeadRecord;
}
