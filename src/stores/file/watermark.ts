/**
 * A session's high-water mark: the highest version and sequence number it was ever acknowledged
 * at, kept in a small file beside its snapshot and journals (`DIR/sessions/<name>/watermark`).
 * A session read back below its mark lost acknowledged data (a damaged, cut or deleted journal; a
 * snapshot restored from an older backup): the store then says so in a recovery notice and moves
 * the version and sequence numbers above the mark, so neither ever goes backwards or is reused.
 *
 * The mark is written only after what it describes is durable (after the journal's flush, after a
 * rewrite's directory flush), and is itself never flushed: a crash can only leave it behind the
 * data, never ahead of it, so a crash alone never looks like a loss. What a power loss takes from
 * it is protection against damage found later, not data. Writing it costs one small write to an
 * open file per commit (no flush, no new file).
 * @module
 */
import { constants } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { FileSystem } from './file-system.js';
import { isMissing, writeFully } from './fs-util.js';
import type { SessionPaths } from './paths.js';

/** How far a session got. */
export interface Watermark {
  readonly version: number;
  readonly lastSeq: number;
}

/**
 * The mark's bytes: `CSWM`, format 1, three bytes of padding, the version and the last seq as
 * 64-bit floats (every safe integer fits), and the CRC-32 of the 24 bytes before it. Binary and
 * fixed-size: it is written after every commit, so it costs a fraction of a microsecond to build,
 * and a write torn by a crash fails its checksum.
 */
const MAGIC = 0x4d575343; // "CSWM" read as a little-endian uint32
const FORMAT = 1;
const SIZE = 28;

function encode(mark: Watermark): Buffer {
  const bytes = Buffer.alloc(SIZE);
  bytes.writeUInt32LE(MAGIC, 0);
  bytes[4] = FORMAT;
  bytes.writeDoubleLE(mark.version, 8);
  bytes.writeDoubleLE(mark.lastSeq, 16);
  bytes.writeUInt32LE(crc32(bytes.subarray(0, 24)), 24);
  return bytes;
}

/** The mark on disk, or `undefined` when there is none or it cannot be read (a torn write): nothing is known then. */
export function readWatermark(p: SessionPaths): Watermark | undefined {
  let bytes: Buffer;
  try {
    bytes = p.fs.readFileSync(p.watermark);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  // A newer format, damage or a torn write alike: the mark only ever adds protection, so it is ignored.
  if (
    bytes.length < SIZE ||
    bytes.readUInt32LE(0) !== MAGIC ||
    bytes[4] !== FORMAT ||
    bytes.readUInt32LE(24) !== crc32(bytes.subarray(0, 24))
  )
    return undefined;
  const version = bytes.readDoubleLE(8);
  const lastSeq = bytes.readDoubleLE(16);
  const count = (value: number): boolean => Number.isSafeInteger(value) && value >= 0;
  return count(version) && count(lastSeq) ? { version, lastSeq } : undefined;
}

/** True when `state` is below `mark`: acknowledged data is missing. */
export function isBelow(state: Watermark, mark: Watermark | undefined): boolean {
  return mark !== undefined && (mark.version > state.version || mark.lastSeq > state.lastSeq);
}

/** The higher of two marks, field by field. */
export function highest(a: Watermark, b: Watermark | undefined): Watermark {
  return b === undefined ? a : { version: Math.max(a.version, b.version), lastSeq: Math.max(a.lastSeq, b.lastSeq) };
}

/** Writes `mark` over the file open as `fd` (opened by `openWatermark`), in place at offset 0. */
export function writeWatermark(fs: FileSystem, fd: number, mark: Watermark): void {
  writeFully(fs, fd, encode(mark), 0);
}

/** The bytes of `mark` as the file holds them (for tools and tests that set a mark). */
export function watermarkBytes(mark: Watermark): Buffer {
  return encode(mark);
}

/** Opens (creating) the mark file of `p` for writing. */
export function openWatermark(p: SessionPaths): number {
  // Not O_APPEND: the mark is rewritten in place at offset 0.
  return p.fs.openSync(p.watermark, constants.O_RDWR | constants.O_CREAT, 0o644);
}
