/**
 * Snapshot files: reading one whole and verified (or only its header line, for the index), and
 * writing a new one to a flushed temporary file that a rename then puts in place.
 * @module
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { MessageRecord } from '../../store/types.js';
import { FrameError, decodeSnapshot, decodeSnapshotHeader, encodeSnapshot, newerFormatError, type Snapshot, type SnapshotHeader } from './frame.js';
import { isMissing, readAt, stampOf, unlinkIfPresent } from './fs-util.js';
import type { SessionPaths } from './paths.js';

/** A snapshot file read: verified, missing, or damaged (with why). */
export type SnapshotRead =
  | { readonly kind: 'ok'; readonly snapshot: Snapshot; readonly stamp: string; readonly size: number; readonly ids: Set<string> }
  | { readonly kind: 'missing' }
  | { readonly kind: 'damaged'; readonly reason: string };

/** Why a snapshot file could not be used, in a few words. */
export function describe(read: SnapshotRead): string {
  return read.kind === 'damaged' ? read.reason : read.kind;
}

/** Reads and verifies a whole snapshot file. */
export function readSnapshotFile(file: string, id: string, what: string): SnapshotRead {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    const buffer = readAt(fd, 0, stat.size);
    let snapshot: Snapshot;
    try {
      snapshot = decodeSnapshot(buffer);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      if (error.newer) throw newerFormatError(`the ${what} of ${id}`, error.message);
      return { kind: 'damaged', reason: stat.size === 0 ? 'empty' : error.message };
    }
    if (snapshot.header.head.id !== id) return { kind: 'damaged', reason: `it belongs to session ${JSON.stringify(snapshot.header.head.id)}` };
    const ids = new Set<string>();
    for (const message of snapshot.messages) {
      if (ids.has(message.id)) return { kind: 'damaged', reason: `message ${message.id} is stored twice` };
      ids.add(message.id);
    }
    return { kind: 'ok', snapshot, stamp: stampOf(stat), size: stat.size, ids };
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads only the header line of a snapshot (the index needs nothing more). */
export function readSnapshotHeader(file: string, id: string): { header: SnapshotHeader; stamp: string; size: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    let length = Math.min(stat.size, 16_384);
    for (;;) {
      const buffer = readAt(fd, 0, length);
      if (buffer.indexOf(0x0a) >= 0 || length >= stat.size) {
        try {
          const { header } = decodeSnapshotHeader(buffer);
          return header.head.id === id ? { header, stamp: stampOf(stat), size: stat.size } : undefined;
        } catch (error) {
          if (error instanceof FrameError && error.newer) throw newerFormatError(`the snapshot of ${id}`, error.message);
          if (error instanceof FrameError) return undefined;
          throw error;
        }
      }
      length = Math.min(stat.size, length * 4);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a complete snapshot to a temporary file and flushes it; returns the file and its
 * identity. Asynchronous: a large session's snapshot must not hold up other sessions' commits.
 */
export async function writeTemporary(p: SessionPaths, header: Omit<SnapshotHeader, 'bytes' | 'crc'>, messages: readonly MessageRecord[]): Promise<{ file: string; stamp: string; size: number }> {
  const buffer = encodeSnapshot(header, messages);
  const file = path.join(p.dir, `snapshot.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await fs.promises.open(file, 'wx', 0o644);
  try {
    await handle.writeFile(buffer);
    await handle.sync();
    return { file, stamp: stampOf(await handle.stat()), size: buffer.length };
  } catch (error) {
    unlinkIfPresent(file);
    throw error;
  } finally {
    await handle.close();
  }
}
