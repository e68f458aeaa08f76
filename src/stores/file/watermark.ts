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
import { FrameError, frameLine, isCount, parseLine } from './frame.js';
import type { FileSystem } from './file-system.js';
import { closeQuietly, isMissing, writeFully } from './fs-util.js';
import type { SessionPaths } from './paths.js';

/** How far a session got. */
export interface Watermark {
  readonly version: number;
  readonly lastSeq: number;
}

/** The mark on disk, or `undefined` when there is none or it cannot be read (a torn write): nothing is known then. */
export function readWatermark(p: SessionPaths): Watermark | undefined {
  let text: Buffer;
  try {
    text = p.fs.readFileSync(p.watermark);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  const end = text.indexOf(0x0a);
  if (end < 0) return undefined;
  try {
    const fields = parseLine(text, 0, end);
    if (fields.k !== 'mark' || !isCount(fields.v) || !isCount(fields.seq)) return undefined;
    return { version: fields.v, lastSeq: fields.seq };
  } catch (error) {
    // Newer formats and damage alike: the mark only ever adds protection, so it is ignored.
    if (error instanceof FrameError) return undefined;
    throw error;
  }
}

/** True when `state` is below `mark`: acknowledged data is missing. */
export function isBelow(state: Watermark, mark: Watermark | undefined): boolean {
  return mark !== undefined && (mark.version > state.version || mark.lastSeq > state.lastSeq);
}

/** The higher of two marks, field by field. */
export function highest(a: Watermark, b: Watermark | undefined): Watermark {
  return b === undefined ? a : { version: Math.max(a.version, b.version), lastSeq: Math.max(a.lastSeq, b.lastSeq) };
}

/**
 * Writes `mark` over the file open as `fd` (opened by `openWatermark`). One line at offset 0; a
 * shorter line leaves bytes after its newline, which a read ignores.
 */
export function writeWatermark(fs: FileSystem, fd: number, mark: Watermark): void {
  writeFully(fs, fd, frameLine({ k: 'mark', s: 1, v: mark.version, seq: mark.lastSeq }), 0);
}

/** Opens (creating) the mark file of `p` for writing. */
export function openWatermark(p: SessionPaths): number {
  // Not O_APPEND: the mark is rewritten in place at offset 0.
  return p.fs.openSync(p.watermark, constants.O_RDWR | constants.O_CREAT, 0o644);
}

/** Closes a mark's descriptor. */
export function closeWatermark(fs: FileSystem, fd: number | undefined): void {
  closeQuietly(fs, fd);
}
