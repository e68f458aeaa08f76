/**
 * The bytes of a snapshot.
 *
 * Schema 2 (written by this version):
 * ```
 * <crc> {"k":"snapshot","s":2,"gen":…,"lineage":…,"head":{…},"count":n,"body":B,"index":I,"ids":D}\n
 * body, B bytes: one line per message record, in seq order, cut into blocks of about 64 KiB
 * <crc> {"k":"blocks","s":2,"blocks":[seq, count, offset, crc32, …]}\n     (I bytes)
 * <crc> {"k":"ids","s":2,"ids":["…", …]}\n                               (D bytes)
 * ```
 * A record line is `{"seq":…,"id":…}<TAB><data>`: the record's stored string follows the tab
 * as it is, so reading a message parses its JSON once (in the core), not a second time as a
 * string inside the snapshot's JSON. A record whose data holds a newline or a lone surrogate
 * (which UTF-8 cannot carry) is written as one escaped JSON object instead; JSON text never holds
 * a raw tab, so the first tab always ends the record's fields. Each block's checksum is in the
 * index, so the last messages of a long session are read and verified without the rest: the
 * header, the index and the blocks that hold them. The ids line lets an append check ids without
 * reading any message.
 *
 * Schema 1 (older versions): the header says `bytes` and `crc` of a body that is one JSON array of
 * the records. It is read whole, and the next fold or save rewrites it as schema 2.
 * @module
 */
import { crc32 } from 'node:zlib';
import type { JsonValue } from '../../message/schema.js';
import type { HeadRecord, MessageRecord } from '../../store/driver-types.js';
import {
  LINE_SCHEMA,
  FrameError,
  frameLine,
  headRecord,
  hex,
  isCount,
  isObject,
  messageRecords,
  parseLine,
} from './frame.js';

/** A new block starts once the current one holds this many bytes. */
export const BLOCK_BYTES = 64 * 1024;

/** How a snapshot's records are laid out. */
export type SnapshotLayout =
  /** Schema 1: the body is one JSON array of records, with its length and checksum. */
  | { readonly kind: 'array'; readonly bytes: number; readonly crc: string }
  /** Schema 2: record lines, then the block index line and the ids line (byte lengths of each). */
  | {
      readonly kind: 'lines';
      readonly count: number;
      readonly body: number;
      readonly index: number;
      readonly ids: number;
    };

/** The header of a snapshot. */
export interface SnapshotHeader {
  /** Appends after this snapshot are in journal `gen` (and the journals its seals lead to). */
  readonly gen: number;
  /** Random id of the content's lineage: kept by folds, new on each replace. */
  readonly lineage: string;
  readonly head: HeadRecord;
  readonly layout: SnapshotLayout;
  /** Header fields of a newer version, written back by folds. */
  readonly extra?: Readonly<Record<string, JsonValue>>;
}

/** What a new snapshot's header says besides its layout. */
export type NewSnapshotHeader = Omit<SnapshotHeader, 'layout'>;

/** One block of record lines: its first seq, how many records, where it starts in the body, its checksum. */
export interface Block {
  readonly seq: number;
  readonly count: number;
  readonly offset: number;
  readonly crc: number;
}

/** A decoded snapshot. */
export interface Snapshot {
  readonly header: SnapshotHeader;
  readonly messages: MessageRecord[];
}

const HEADER_FIELDS = new Set(['k', 's', 'gen', 'lineage', 'head', 'bytes', 'crc', 'count', 'body', 'index', 'ids']);

/** The header of a snapshot from its first line; throws `FrameError`. */
export function decodeSnapshotHeader(buffer: Buffer): { header: SnapshotHeader; bodyStart: number } {
  const end = buffer.indexOf(0x0a);
  if (end < 0) throw new FrameError('snapshot header is incomplete');
  const fields = parseLine(buffer, 0, end);
  if (fields.k !== 'snapshot' || !isCount(fields.gen) || fields.gen < 1 || typeof fields.lineage !== 'string')
    throw new FrameError('malformed snapshot header');
  let layout: SnapshotLayout;
  if (fields.s === 1) {
    if (!isCount(fields.bytes) || typeof fields.crc !== 'string') throw new FrameError('malformed snapshot header');
    layout = { kind: 'array', bytes: fields.bytes, crc: fields.crc };
  } else {
    if (!isCount(fields.count) || !isCount(fields.body) || !isCount(fields.index) || !isCount(fields.ids))
      throw new FrameError('malformed snapshot header');
    layout = { kind: 'lines', count: fields.count, body: fields.body, index: fields.index, ids: fields.ids };
  }
  let extra: Record<string, JsonValue> | undefined;
  for (const key of Object.keys(fields)) if (!HEADER_FIELDS.has(key)) (extra ??= {})[key] = fields[key] as JsonValue;
  const header: SnapshotHeader = {
    gen: fields.gen,
    lineage: fields.lineage,
    head: headRecord(fields.head),
    layout,
    ...(extra === undefined ? {} : { extra }),
  };
  return { header, bodyStart: end + 1 };
}

/** Bytes a whole snapshot with this header has. */
export function snapshotSize(header: SnapshotHeader, bodyStart: number): number {
  const { layout } = header;
  return bodyStart + (layout.kind === 'array' ? layout.bytes : layout.body + layout.index + layout.ids);
}

/** Parses a whole frame line held in `buffer` (with its newline). */
function wholeLine(buffer: Buffer, what: string): Record<string, JsonValue> {
  if (buffer.length === 0 || buffer[buffer.length - 1] !== 0x0a) throw new FrameError(`${what} is incomplete`);
  return parseLine(buffer, 0, buffer.length - 1);
}

/** The block index of a schema-2 snapshot from its index line; throws `FrameError`. */
export function decodeIndex(
  buffer: Buffer,
  layout: Extract<SnapshotLayout, { kind: 'lines' }>,
  lastSeq: number,
): Block[] {
  const fields = wholeLine(buffer, 'snapshot index');
  const flat = fields.blocks;
  if (fields.k !== 'blocks' || !Array.isArray(flat) || flat.length % 4 !== 0)
    throw new FrameError('malformed snapshot index');
  const blocks: Block[] = [];
  let records = 0;
  let previousSeq = 0;
  for (let at = 0; at < flat.length; at += 4) {
    const [seq, count, offset, crc] = [flat[at], flat[at + 1], flat[at + 2], flat[at + 3]];
    if (
      !isCount(seq) ||
      !isCount(count) ||
      !isCount(offset) ||
      !isCount(crc) ||
      count === 0 ||
      seq <= previousSeq ||
      seq > lastSeq
    )
      throw new FrameError('malformed snapshot index');
    // Blocks tile the body: the first starts at 0, each later one after the one before, all inside it.
    const previous = blocks.at(-1);
    if ((previous === undefined ? offset !== 0 : offset <= previous.offset) || offset >= layout.body)
      throw new FrameError('snapshot index offsets are out of order');
    blocks.push({ seq, count, offset, crc });
    records += count;
    previousSeq = seq + count - 1;
  }
  if (records !== layout.count || (blocks.length === 0) !== (layout.body === 0))
    throw new FrameError(`snapshot index counts ${records} records, its header ${layout.count}`);
  return blocks;
}

/** The message ids of a schema-2 snapshot from its ids line; throws `FrameError`. */
export function decodeIds(buffer: Buffer, count: number): string[] {
  const fields = wholeLine(buffer, 'snapshot ids');
  const ids = fields.ids;
  if (fields.k !== 'ids' || !Array.isArray(ids) || ids.length !== count || !ids.every((id) => typeof id === 'string'))
    throw new FrameError('malformed snapshot ids');
  return ids as string[];
}

/** The end of block `index` in the body. */
export function blockEnd(blocks: readonly Block[], index: number, bodyBytes: number): number {
  return blocks[index + 1]?.offset ?? bodyBytes;
}

/**
 * The records of consecutive blocks `from` … `to` (inclusive), whose bytes are `bytes` (starting
 * at block `from`'s offset); each block's checksum and record count are verified. Throws `FrameError`.
 */
export function decodeBlocks(
  bytes: Buffer,
  blocks: readonly Block[],
  from: number,
  to: number,
  bodyBytes: number,
): MessageRecord[] {
  const records: MessageRecord[] = [];
  const base = (blocks[from] as Block).offset;
  for (let index = from; index <= to; index += 1) {
    const block = blocks[index] as Block;
    const start = block.offset - base;
    const end = blockEnd(blocks, index, bodyBytes) - base;
    if (end > bytes.length) throw new FrameError('snapshot body is shorter than its index says');
    const slice = bytes.subarray(start, end);
    if (crc32(slice) !== block.crc) throw new FrameError(`snapshot block at byte ${block.offset} fails its checksum`);
    const before = records.length;
    decodeLines(slice.toString('utf8'), records);
    const added = records.length - before;
    if (added !== block.count || (records[before] as MessageRecord).seq !== block.seq)
      throw new FrameError(`snapshot block at byte ${block.offset} does not hold what its index says`);
  }
  return records;
}

/**
 * The record of one line: its fields (`prefix`, JSON) and the stored string that followed the
 * tab (`data`; `undefined` for an escaped line, whose JSON holds it). Throws `FrameError`.
 */
function recordOf(prefix: string, data: string | undefined): MessageRecord {
  let fields: unknown;
  try {
    fields = JSON.parse(prefix);
  } catch {
    throw new FrameError('snapshot record line is not JSON');
  }
  if (!isObject(fields)) throw new FrameError('malformed snapshot record');
  const record = fields;
  // The stored string itself: the core parses it once, when it reads the message.
  if (data !== undefined) (record as { data: string }).data = data;
  if (!isCount(record.seq) || typeof record.id !== 'string' || typeof record.data !== 'string')
    throw new FrameError('snapshot holds a malformed message record');
  return record as unknown as MessageRecord;
}

/** Checks the checksum of every block of a body (without parsing a record); throws `FrameError`. */
export function verifyBlocks(body: Buffer, blocks: readonly Block[], bodyBytes: number): void {
  if (body.length !== bodyBytes) throw new FrameError('snapshot body is shorter than its index says');
  blocks.forEach((block, index) => {
    if (crc32(body.subarray(block.offset, blockEnd(blocks, index, bodyBytes))) !== block.crc)
      throw new FrameError(`snapshot block at byte ${block.offset} fails its checksum`);
  });
}

/** Checks every checksum of a whole snapshot (either schema) without parsing its records; throws `FrameError`. */
export function verifySnapshot(buffer: Buffer): void {
  const { header, bodyStart } = decodeSnapshotHeader(buffer);
  const size = snapshotSize(header, bodyStart);
  if (buffer.length !== size) throw new FrameError(`snapshot has ${buffer.length} bytes, its header says ${size}`);
  const { layout } = header;
  if (layout.kind === 'array') {
    if (hex(crc32(buffer.subarray(bodyStart))) !== layout.crc) throw new FrameError('snapshot body checksum mismatch');
    return;
  }
  const indexStart = bodyStart + layout.body;
  const blocks = decodeIndex(buffer.subarray(indexStart, indexStart + layout.index), layout, header.head.lastSeq);
  verifyBlocks(buffer.subarray(bodyStart, indexStart), blocks, layout.body);
  decodeIds(buffer.subarray(indexStart + layout.index), layout.count);
}

/**
 * The record of a line of the common form `{"seq":N,"id":"…"}<TAB>data` (an id without escapes),
 * read without `JSON.parse` (a full load reads one per message); `undefined` for any other form.
 */
function commonRecord(text: string, start: number, tab: number, newline: number): MessageRecord | undefined {
  if (!text.startsWith('{"seq":', start)) return undefined;
  let pos = start + 7;
  let seq = 0;
  for (let code = text.charCodeAt(pos); code >= 0x30 && code <= 0x39; code = text.charCodeAt(pos)) {
    seq = seq * 10 + (code - 0x30);
    pos += 1;
  }
  if (
    pos === start + 7 ||
    pos - start > 22 ||
    !text.startsWith(',"id":"', pos) ||
    text.charCodeAt(tab - 1) !== 0x7d ||
    text.charCodeAt(tab - 2) !== 0x22
  )
    return undefined;
  const id = text.slice(pos + 7, tab - 2);
  // A quote or backslash inside means escapes (or another field): the general reader takes it.
  if (id.includes('"') || id.includes('\\')) return undefined;
  return { seq, id, data: text.slice(tab + 1, newline) };
}

/** Parses the record lines of `text` (each ending in a newline) onto `into`, checking seq order. */
function decodeLines(text: string, into: MessageRecord[]): void {
  let previous = into.at(-1)?.seq ?? 0;
  let pos = 0;
  while (pos < text.length) {
    const newline = text.indexOf('\n', pos);
    if (newline < 0) throw new FrameError('snapshot record line without its newline');
    const tab = text.indexOf('\t', pos);
    const fast = tab >= 0 && tab < newline;
    const record =
      (fast ? commonRecord(text, pos, tab, newline) : undefined) ??
      (fast
        ? recordOf(text.slice(pos, tab), text.slice(tab + 1, newline))
        : recordOf(text.slice(pos, newline), undefined));
    if (record.seq <= previous) throw new FrameError('snapshot records are out of order');
    previous = record.seq;
    into.push(record);
    pos = newline + 1;
  }
}

// Lone surrogates: with the u flag a pair is one code point, so only unpaired halves match.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The line of one record (see the module comment). */
function recordLine(record: MessageRecord): string {
  const { data } = record;
  if (data.includes('\n') || LONE_SURROGATE.test(data)) return `${JSON.stringify(record)}\n`;
  // The common record has exactly its three fields; a newer version's extra fields are kept.
  let fields: string;
  if (Object.keys(record).length === 3) fields = `{"seq":${record.seq},"id":${JSON.stringify(record.id)}}`;
  else {
    const { data: _data, ...rest } = record as MessageRecord & Record<string, JsonValue>;
    fields = JSON.stringify(rest);
  }
  return `${fields}\t${data}\n`;
}

/**
 * Builds a schema-2 snapshot: the verified body of an older snapshot can be taken over as it is
 * (a fold copies bytes instead of re-encoding every message), then records are added.
 */
export class SnapshotBuilder {
  private readonly chunks: Buffer[] = [];
  private readonly blocks: Block[] = [];
  private readonly ids: string[] = [];
  private body = 0;
  private lastSeq = 0;
  // The block being filled.
  private pending: string[] = [];
  private pendingBytes = 0;
  private pendingSeq = 0;
  private pendingCount = 0;

  /** Takes over the body, blocks and ids of a schema-2 snapshot (already verified). */
  addBody(body: Buffer, blocks: readonly Block[], ids: readonly string[]): void {
    this.flushBlock();
    if (blocks.length === 0) return;
    const first = blocks[0] as Block;
    if (first.seq <= this.lastSeq) throw new Error('file: snapshot blocks out of order');
    for (const block of blocks) this.blocks.push({ ...block, offset: block.offset - first.offset + this.body });
    const last = blocks.at(-1) as Block;
    this.lastSeq = last.seq + last.count - 1;
    this.chunks.push(body);
    this.body += body.length;
    for (const id of ids) this.ids.push(id);
  }

  /** Adds records (ascending seq, above everything added so far). */
  addRecords(records: readonly MessageRecord[]): void {
    for (const record of records) {
      if (record.seq <= this.lastSeq) throw new Error('file: snapshot records out of order');
      this.lastSeq = record.seq;
      const line = recordLine(record);
      if (this.pendingCount === 0) this.pendingSeq = record.seq;
      this.pending.push(line);
      this.pendingCount += 1;
      this.ids.push(record.id);
      // Close enough to the byte length for cutting blocks (exact lengths come from the encoded bytes).
      this.pendingBytes += line.length;
      if (this.pendingBytes >= BLOCK_BYTES) this.flushBlock();
    }
  }

  private flushBlock(): void {
    if (this.pendingCount === 0) return;
    const bytes = Buffer.from(this.pending.join(''), 'utf8');
    this.blocks.push({ seq: this.pendingSeq, count: this.pendingCount, offset: this.body, crc: crc32(bytes) });
    this.chunks.push(bytes);
    this.body += bytes.length;
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingCount = 0;
  }

  /** The snapshot's bytes, in order, and its block index. */
  finish(header: NewSnapshotHeader): { chunks: Buffer[]; blocks: Block[] } {
    this.flushBlock();
    if (this.lastSeq > header.head.lastSeq) throw new Error('file: a snapshot holds a message above its lastSeq');
    const flat: number[] = [];
    for (const block of this.blocks) flat.push(block.seq, block.count, block.offset, block.crc);
    const index = frameLine({ k: 'blocks', s: LINE_SCHEMA, blocks: flat });
    const ids = frameLine({ k: 'ids', s: LINE_SCHEMA, ids: this.ids });
    const { extra, ...known } = header;
    const first = frameLine({
      ...extra,
      k: 'snapshot',
      s: LINE_SCHEMA,
      ...known,
      count: this.ids.length,
      body: this.body,
      index: index.length,
      ids: ids.length,
    });
    return { chunks: [first, ...this.chunks, index, ids], blocks: this.blocks };
  }
}

/** The bytes of a schema-2 snapshot of `messages`. */
export function encodeSnapshot(header: NewSnapshotHeader, messages: readonly MessageRecord[]): Buffer {
  const builder = new SnapshotBuilder();
  builder.addRecords(messages);
  return Buffer.concat(builder.finish(header).chunks);
}

/** A whole snapshot (either schema); throws `FrameError` when any byte of it is damaged. */
export function decodeSnapshot(buffer: Buffer): Snapshot {
  const { header, bodyStart } = decodeSnapshotHeader(buffer);
  const size = snapshotSize(header, bodyStart);
  if (buffer.length !== size) throw new FrameError(`snapshot has ${buffer.length} bytes, its header says ${size}`);
  const { layout } = header;
  let messages: MessageRecord[];
  if (layout.kind === 'array') {
    const body = buffer.subarray(bodyStart);
    if (hex(crc32(body)) !== layout.crc) throw new FrameError('snapshot body checksum mismatch');
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      throw new FrameError('snapshot body is not JSON');
    }
    messages = messageRecords(value, 'snapshot body');
  } else {
    const indexStart = bodyStart + layout.body;
    const blocks = decodeIndex(buffer.subarray(indexStart, indexStart + layout.index), layout, header.head.lastSeq);
    const ids = decodeIds(buffer.subarray(indexStart + layout.index), layout.count);
    messages =
      blocks.length === 0
        ? []
        : decodeBlocks(buffer.subarray(bodyStart, indexStart), blocks, 0, blocks.length - 1, layout.body);
    for (let index = 0; index < ids.length; index += 1)
      if (ids[index] !== (messages[index] as MessageRecord).id)
        throw new FrameError('snapshot ids do not match its records');
  }
  const last = messages.at(-1);
  if (last !== undefined && last.seq > header.head.lastSeq)
    throw new FrameError('snapshot holds a message above its lastSeq');
  return { header, messages };
}
