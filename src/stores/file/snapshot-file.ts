/**
 * Snapshot files: opening one (its header and block index only, or every record, verified),
 * reading parts of it later — a range of messages, the ids, every record — through the
 * descriptor it was opened with, and writing a new one to a flushed temporary file that a rename
 * then puts in place.
 *
 * An open snapshot keeps its descriptor, so what is read later is the very file that was opened,
 * even once a fold or replace renamed another file into its place. A descriptor closed to save
 * file handles is opened again by name, and used only if the file is still the same one.
 * @module
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { countBelow, rangeOf } from '../../store/driver-helpers.js';
import type { MessageRecord } from '../../store/driver-types.js';
import type { MessageRange } from '../../store/session-store-types.js';
import { FrameError, newerFormatError } from './frame.js';
import type { FileSystem } from './file-system.js';
import { closeQuietly, fsync, isMissing, readAt, stampOf, unlinkIfPresent, writeFullyAsync } from './fs-util.js';
import type { SessionPaths } from './paths.js';
import {
  SnapshotBuilder,
  blockEnd,
  decodeBlocks,
  decodeIds,
  decodeIndex,
  decodeSnapshot,
  decodeSnapshotHeader,
  snapshotSize,
  verifyBlocks,
  verifySnapshot,
  type Block,
  type NewSnapshotHeader,
  type SnapshotHeader,
} from './snapshot-format.js';
import { WINDOW_BYTES } from './tuning.js';

/** A snapshot file opened for reading. */
export interface SnapshotSource {
  /** The file system it is on. */
  readonly fs: FileSystem;
  /** The name it was opened by (the snapshot or its backup). */
  readonly file: string;
  readonly header: SnapshotHeader;
  readonly bodyStart: number;
  /** The block index (schema 2); `undefined` for a schema-1 snapshot, which is only read whole. */
  readonly blocks: readonly Block[] | undefined;
  readonly stamp: string;
  readonly size: number;
  /** Its descriptor, while kept open. */
  fd: number | undefined;
  /** Every byte was checked (read whole, or written by this process). */
  verified: boolean;
  /** The records of the blocks read last (see `loadRange`), kept while small. */
  window?: { readonly first: number; readonly last: number; readonly records: MessageRecord[]; readonly bytes: number };
}

/** A snapshot file opened: verified (with its records when asked for), missing, or damaged (with why). */
export type SnapshotRead =
  | {
      readonly kind: 'ok';
      readonly source: SnapshotSource;
      readonly records: MessageRecord[] | undefined;
      readonly ids: Set<string> | undefined;
    }
  | { readonly kind: 'missing' }
  | { readonly kind: 'damaged'; readonly reason: string };

/** Damage found in a part of a snapshot read after it was opened (a block failing its checksum). */
export class SnapshotDamage extends Error {}

/** The snapshot a state was read from was replaced while its descriptor was closed: read the session again. */
export class SnapshotGone extends Error {}

/** Why a snapshot file could not be used, in a few words. */
export function describe(read: SnapshotRead): string {
  return read.kind === 'damaged' ? read.reason : read.kind;
}

/** Reads the header line of the open file `fd` (of `size` bytes); throws `FrameError`. */
function readHeader(fs: FileSystem, fd: number, size: number): { header: SnapshotHeader; bodyStart: number } {
  let length = Math.min(size, 16_384);
  for (;;) {
    const buffer = readAt(fs, fd, 0, length);
    if (buffer.indexOf(0x0a) >= 0 || length >= size) return decodeSnapshotHeader(buffer);
    length = Math.min(size, length * 4);
  }
}

/**
 * Opens and checks a snapshot file: its header, its size, and its block index — or, with `full`
 * (and always for a schema-1 snapshot), every byte, returning the records. The descriptor stays
 * open in the source (`closeSource` closes it).
 */
export function readSnapshotFile(fs: FileSystem, file: string, id: string, what: string, full: boolean): SnapshotRead {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    throw error;
  }
  let keep = false;
  try {
    const stat = fs.fstatSync(fd);
    const stamp = stampOf(stat);
    try {
      const { header, bodyStart } = readHeader(fs, fd, stat.size);
      if (header.head.id !== id)
        return { kind: 'damaged', reason: `it belongs to session ${JSON.stringify(header.head.id)}` };
      const size = snapshotSize(header, bodyStart);
      if (size !== stat.size) return { kind: 'damaged', reason: `it has ${stat.size} bytes, its header says ${size}` };
      const { layout } = header;
      let blocks: Block[] | undefined;
      let records: MessageRecord[] | undefined;
      let ids: Set<string> | undefined;
      if (full || layout.kind === 'array') {
        const snapshot = decodeSnapshot(readAt(fs, fd, 0, stat.size));
        records = snapshot.messages;
        ids = new Set<string>();
        for (const record of records) {
          if (ids.has(record.id)) return { kind: 'damaged', reason: `message ${record.id} is stored twice` };
          ids.add(record.id);
        }
      }
      if (layout.kind === 'lines')
        blocks = decodeIndex(readAt(fs, fd, bodyStart + layout.body, layout.index), layout, header.head.lastSeq);
      keep = true;
      return {
        kind: 'ok',
        source: { fs, file, header, bodyStart, blocks, stamp, size: stat.size, fd, verified: records !== undefined },
        records,
        ids,
      };
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      if (error.newer) throw newerFormatError(`the ${what} of ${id}`, error.message);
      return { kind: 'damaged', reason: stat.size === 0 ? 'empty' : error.message };
    }
  } finally {
    if (!keep) fs.closeSync(fd);
  }
}

/** Closes a source's descriptor (it is opened again by name when needed). */
export function closeSource(source: SnapshotSource | undefined): void {
  if (source?.fd === undefined) return;
  closeQuietly(source.fs, source.fd);
  source.fd = undefined;
}

/** The source's descriptor, opened again by name if it was closed; `SnapshotGone` if the file changed. */
function descriptor(source: SnapshotSource): number {
  if (source.fd !== undefined) return source.fd;
  const { fs } = source;
  let fd: number;
  try {
    fd = fs.openSync(source.file, 'r');
  } catch (error) {
    if (isMissing(error)) throw new SnapshotGone(`${source.file} is gone`);
    throw error;
  }
  if (stampOf(fs.fstatSync(fd)) !== source.stamp) {
    fs.closeSync(fd);
    throw new SnapshotGone(`${source.file} was replaced`);
  }
  source.fd = fd;
  return fd;
}

/** Runs a decode, turning damage into `SnapshotDamage`. */
function checked<T>(source: SnapshotSource, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof FrameError) throw new SnapshotDamage(`${path.basename(source.file)}: ${error.message}`);
    throw error;
  }
}

/** Every record of the snapshot, verified. */
export function loadRecords(source: SnapshotSource): MessageRecord[] {
  const fd = descriptor(source);
  const records = checked(source, () => decodeSnapshot(readAt(source.fs, fd, 0, source.size)).messages);
  source.verified = true;
  return records;
}

/** Every message id of the snapshot, in seq order. */
export function loadIds(source: SnapshotSource): string[] {
  const { layout } = source.header;
  if (layout.kind === 'array') return loadRecords(source).map((record) => record.id);
  const fd = descriptor(source);
  return checked(source, () =>
    decodeIds(readAt(source.fs, fd, source.bodyStart + layout.body + layout.index, layout.ids), layout.count),
  );
}

/**
 * The records of `range` (see `rangeOf`) from the snapshot, reading only the blocks that can
 * hold them: for the last `limit` messages, the last blocks, whatever the session's length.
 */
export function loadRange(source: SnapshotSource, range: MessageRange): MessageRecord[] {
  const { blocks, header } = source;
  const { layout } = header;
  if (blocks === undefined || layout.kind === 'array') return rangeOf(loadRecords(source), range);
  const after = range.afterSeq ?? 0;
  const before = range.beforeSeq ?? Number.POSITIVE_INFINITY;
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  // The last block that can hold a record below `before`: the last whose first seq is below it.
  const last = countBelow(blocks, before) - 1;
  if (last < 0) return [];
  // Earlier blocks while the later ones (all below `before`) hold fewer than `limit` records and
  // records above `after` can precede them.
  let first = last;
  let covered = 0;
  while (first > 0 && covered < limit && (blocks[first] as Block).seq - 1 > after) {
    first -= 1;
    covered += (blocks[first] as Block).count;
  }
  let window = source.window;
  if (window === undefined || first < window.first || last > window.last) {
    const start = (blocks[first] as Block).offset;
    const end = blockEnd(blocks, last, layout.body);
    const fd = descriptor(source);
    const records = checked(source, () =>
      decodeBlocks(readAt(source.fs, fd, source.bodyStart + start, end - start), blocks, first, last, layout.body),
    );
    window = { first, last, records, bytes: end - start };
    // A chat reads its last messages again and again: the blocks that hold them stay decoded.
    if (window.bytes <= WINDOW_BYTES) source.window = window;
  }
  return rangeOf(window.records, range);
}

/** Checks every byte of the snapshot (before it becomes the backup); false when any is damaged. */
export function verifySource(source: SnapshotSource): boolean {
  if (source.verified) return true;
  try {
    const fd = descriptor(source);
    checked(source, () => verifySnapshot(readAt(source.fs, fd, 0, source.size)));
    source.verified = true;
    return true;
  } catch (error) {
    if (error instanceof SnapshotDamage || error instanceof SnapshotGone) return false;
    throw error;
  }
}

/** Reads only the header line of a snapshot (the index needs nothing more). */
export function readSnapshotHeader(
  fs: FileSystem,
  file: string,
  id: string,
): { header: SnapshotHeader; stamp: string; size: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    try {
      const { header } = readHeader(fs, fd, stat.size);
      return header.head.id === id ? { header, stamp: stampOf(stat), size: stat.size } : undefined;
    } catch (error) {
      if (error instanceof FrameError && error.newer) throw newerFormatError(`the snapshot of ${id}`, error.message);
      if (error instanceof FrameError) return undefined;
      throw error;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** What a new snapshot is made of: the verified body of an older snapshot (optional), then records. */
export interface SnapshotContent {
  readonly base?: SnapshotSource;
  readonly records: readonly MessageRecord[];
}

/**
 * The bytes of a new snapshot. A schema-2 base is taken over as bytes, each block verified on the
 * way (`SnapshotDamage` otherwise); a schema-1 base is read and written again as schema 2.
 */
function buildSnapshot(header: NewSnapshotHeader, content: SnapshotContent): { chunks: Buffer[]; blocks: Block[] } {
  const builder = new SnapshotBuilder();
  const { base } = content;
  if (base !== undefined) {
    const { layout } = base.header;
    if (layout.kind === 'array' || base.blocks === undefined) builder.addRecords(loadRecords(base));
    else if (base.blocks.length > 0) {
      const fd = descriptor(base);
      const body = readAt(base.fs, fd, base.bodyStart, layout.body);
      // Every block's checksum is checked: nothing damaged is carried into the new snapshot.
      checked(base, () => verifyBlocks(body, base.blocks as readonly Block[], layout.body));
      base.verified = true;
      builder.addBody(body, base.blocks, loadIds(base));
    }
  }
  builder.addRecords(content.records);
  return builder.finish(header);
}

/** A snapshot written and flushed to a temporary file, not yet in place. */
export interface TemporarySnapshot {
  readonly fs: FileSystem;
  readonly file: string;
  readonly stamp: string;
  readonly size: number;
  readonly header: SnapshotHeader;
  readonly bodyStart: number;
  readonly blocks: readonly Block[];
}

/**
 * Writes a complete snapshot to a temporary file and flushes it; returns the file, its identity
 * and layout. Asynchronous: a large session's snapshot must not hold up other sessions' commits.
 */
export async function writeTemporary(
  p: SessionPaths,
  header: NewSnapshotHeader,
  content: SnapshotContent,
): Promise<TemporarySnapshot> {
  const { chunks, blocks } = buildSnapshot(header, content);
  const { header: written, bodyStart } = decodeSnapshotHeader(chunks[0] as Buffer);
  const bytes = Buffer.concat(chunks);
  const file = path.join(p.dir, `snapshot.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const { fs } = p;
  const fd = fs.openSync(file, 'wx', 0o644);
  try {
    await writeFullyAsync(fs, fd, bytes, 0);
    await fsync(fs, fd);
    const stat = fs.fstatSync(fd);
    return { fs, file, stamp: stampOf(stat), size: stat.size, header: written, bodyStart, blocks };
  } catch (error) {
    unlinkIfPresent(fs, file);
    throw error;
  } finally {
    closeQuietly(fs, fd);
  }
}

/** The source of a temporary snapshot once it was renamed to `file` (written by us: verified, closed). */
export function sourceOf(temporary: TemporarySnapshot, file: string): SnapshotSource {
  return {
    fs: temporary.fs,
    file,
    header: temporary.header,
    bodyStart: temporary.bodyStart,
    blocks: temporary.blocks,
    stamp: temporary.stamp,
    size: temporary.size,
    fd: undefined,
    verified: true,
  };
}
