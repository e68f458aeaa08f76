/**
 * The bytes of the file store: checksummed journal lines and checksummed snapshots.
 *
 * A journal line is `<crc32 of the JSON, 8 hex digits> <JSON>\n`: a line whose checksum fails,
 * or that has no newline yet, is never applied. A snapshot is one checksummed header line (with
 * the head and the checksum and length of the body) followed by the body, a JSON array of message
 * records. Every record carries `s`, the schema of this format; fields this version does not
 * know are kept in memory and written back when the store rewrites the record.
 * @module
 */
import { crc32 } from 'node:zlib';
import { DataError } from '../../errors.js';
import type { JsonValue } from '../../message/schema.js';
import type { HeadRecord, MessageRecord } from '../../store/types.js';

/** Schema of the file store's own records (journal lines, snapshot headers, the index). */
export const FILE_SCHEMA = 1;

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

/** Last line of a journal that a fold retired: appends continue in journal `next`. */
export interface SealRecord {
  readonly k: 'seal';
  readonly next: number;
}

/** A journal line. */
export type JournalRecord = BeginRecord | AddRecord | SealRecord;

/** The header of a snapshot. */
export interface SnapshotHeader {
  /** Appends after this snapshot are in journal `gen` (and the journals its seals lead to). */
  readonly gen: number;
  /** Random id of the content's lineage: kept by folds, new on each replace. */
  readonly lineage: string;
  readonly head: HeadRecord;
  /** Byte length and checksum of the body. */
  readonly bytes: number;
  readonly crc: string;
  /** Header fields of a newer version, written back by folds. */
  readonly extra?: Readonly<Record<string, JsonValue>>;
}

/** A decoded snapshot. */
export interface Snapshot {
  readonly header: SnapshotHeader;
  readonly messages: MessageRecord[];
}

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
  return new DataError('CORRUPT', `file: ${what} uses file-store schema ${String(schema)}, newer than this version reads (${FILE_SCHEMA}); upgrade chatstate`, {
    details: { reason: 'newer-format', schema },
  });
}

function hex(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** A checksummed line for `value`. */
export function frameLine(value: object): Buffer {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  const line = Buffer.allocUnsafe(json.length + 10);
  line.write(hex(crc32(json)), 0, 'latin1');
  line[8] = 0x20;
  json.copy(line, 9);
  line[line.length - 1] = 0x0a;
  return line;
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
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
  if (typeof value.s !== 'number' || !Number.isInteger(value.s) || value.s < 1) throw new FrameError('line has no schema');
  if (value.s > FILE_SCHEMA) throw new FrameError(`schema ${value.s}`, true);
  return value;
}

function messageRecords(value: unknown, what: string): MessageRecord[] {
  if (!Array.isArray(value)) throw new FrameError(`${what} is not an array`);
  let previous = 0;
  for (const record of value as unknown[]) {
    if (!isObject(record) || !isCount(record.seq) || record.seq <= previous || typeof record.id !== 'string' || typeof record.data !== 'string') {
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
      if (!isCount(value.gen) || !isCount(value.v) || typeof value.lineage !== 'string' || typeof value.cause !== 'string') throw new FrameError('malformed begin record');
      return value as unknown as BeginRecord;
    case 'add':
      if (!isCount(value.from) || !isObject(value.head)) throw new FrameError('malformed add record');
      messageRecords(value.msgs, 'add record');
      return value as unknown as AddRecord;
    case 'seal':
      if (!isCount(value.next)) throw new FrameError('malformed seal record');
      return value as unknown as SealRecord;
    default:
      throw new FrameError(`unknown record kind ${JSON.stringify(value.k)}`);
  }
}

/** A journal line for `record`. */
export function journalLine(record: JournalRecord): Buffer {
  return frameLine({ s: FILE_SCHEMA, ...record });
}

const HEAD_NUMBERS = ['schema', 'version', 'messageCount', 'tokenCount', 'lastSeq'] as const;

function headRecord(value: unknown): HeadRecord {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.createdAt !== 'string' || typeof value.updatedAt !== 'string' || typeof value.data !== 'string') {
    throw new FrameError('malformed head');
  }
  for (const key of HEAD_NUMBERS) if (!isCount(value[key])) throw new FrameError(`malformed head: ${key}`);
  return value as unknown as HeadRecord;
}

const HEADER_FIELDS = new Set(['k', 's', 'gen', 'lineage', 'head', 'bytes', 'crc']);

/** The bytes of a snapshot. */
export function encodeSnapshot(header: Omit<SnapshotHeader, 'bytes' | 'crc'>, messages: readonly MessageRecord[]): Buffer {
  const body = Buffer.from(JSON.stringify(messages), 'utf8');
  const { extra, ...known } = header;
  const line = frameLine({ ...extra, k: 'snapshot', s: FILE_SCHEMA, ...known, bytes: body.length, crc: hex(crc32(body)) });
  return Buffer.concat([line, body]);
}

/** The header of a snapshot from its first line; throws `FrameError`. */
export function decodeSnapshotHeader(buffer: Buffer): { header: SnapshotHeader; bodyStart: number } {
  const end = buffer.indexOf(0x0a);
  if (end < 0) throw new FrameError('snapshot header is incomplete');
  const fields = parseLine(buffer, 0, end);
  if (fields.k !== 'snapshot' || !isCount(fields.gen) || fields.gen < 1 || typeof fields.lineage !== 'string' || !isCount(fields.bytes) || typeof fields.crc !== 'string') {
    throw new FrameError('malformed snapshot header');
  }
  let extra: Record<string, JsonValue> | undefined;
  for (const key of Object.keys(fields)) if (!HEADER_FIELDS.has(key)) (extra ??= {})[key] = fields[key] as JsonValue;
  const header: SnapshotHeader = {
    gen: fields.gen,
    lineage: fields.lineage,
    head: headRecord(fields.head),
    bytes: fields.bytes,
    crc: fields.crc,
    ...(extra === undefined ? {} : { extra }),
  };
  return { header, bodyStart: end + 1 };
}

/** A whole snapshot; throws `FrameError` when any byte of it is damaged. */
export function decodeSnapshot(buffer: Buffer): Snapshot {
  const { header, bodyStart } = decodeSnapshotHeader(buffer);
  if (buffer.length - bodyStart !== header.bytes) throw new FrameError(`snapshot body has ${buffer.length - bodyStart} bytes, its header says ${header.bytes}`);
  const body = buffer.subarray(bodyStart);
  if (hex(crc32(body)) !== header.crc) throw new FrameError('snapshot body checksum mismatch');
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new FrameError('snapshot body is not JSON');
  }
  const messages = messageRecords(value, 'snapshot body');
  const last = messages.at(-1);
  if (last !== undefined && last.seq > header.head.lastSeq) throw new FrameError('snapshot holds a message above its lastSeq');
  return { header, messages };
}
