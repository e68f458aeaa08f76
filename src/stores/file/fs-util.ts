/**
 * Small file-system primitives of the file store. Cheap metadata calls (stat, open, rename) are
 * synchronous — they take microseconds on a local disk and a thread-pool round trip would cost
 * more than the call — while fsync, the one slow call, is asynchronous so other sessions keep
 * committing meanwhile.
 * @module
 */
import type { Stats } from 'node:fs';
import type { Done, FileSystem } from './file-system.js';

/** A callback-style call as a promise. */
function promised(call: (done: Done) => void): Promise<void> {
  return new Promise((resolve, reject) => call((error) => (error === null ? resolve() : reject(error))));
}

/** The errno code of a file-system error, if it is one. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : undefined;
}

/** True when `error` says the file does not exist. */
export function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Flushes a file's data (and the size needed to read it) to the disk. */
export function fdatasync(fs: FileSystem, fd: number): Promise<void> {
  return promised((done) => fs.fdatasync(fd, done));
}

/** Flushes a file fully to the disk. */
export function fsync(fs: FileSystem, fd: number): Promise<void> {
  return promised((done) => fs.fsync(fd, done));
}

/** Makes the entries of `dir` (creations, renames, removals) durable. */
export async function fsyncDirectory(fs: FileSystem, dir: string): Promise<void> {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (error) {
    // Windows cannot open a directory; its file system orders metadata itself.
    if (errorCode(error) === 'EISDIR' || errorCode(error) === 'EPERM') return;
    throw error;
  }
  try {
    await fsync(fs, fd).catch((error: unknown) => {
      // Some file systems refuse fsync on directories; there is nothing more to flush then.
      if (errorCode(error) !== 'EINVAL' && errorCode(error) !== 'EPERM') throw error;
    });
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes all of `buffer` at the file's end (a short write is continued, not lost). */
export function writeFully(fs: FileSystem, fd: number, buffer: Buffer, position?: number): void {
  let written = 0;
  while (written < buffer.length) {
    written += fs.writeSync(
      fd,
      buffer,
      written,
      buffer.length - written,
      position === undefined ? null : position + written,
    );
  }
}

/** Reads `length` bytes at `position` (fewer at the end of the file). */
export function readAt(fs: FileSystem, fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const count = fs.readSync(fd, buffer, read, length - read, position + read);
    if (count === 0) break;
    read += count;
  }
  return read === length ? buffer : buffer.subarray(0, read);
}

/** The identity of a file's content: it changes whenever the file is replaced or rewritten. */
export function stampOf(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** `fs.statSync` that answers `undefined` for a missing file. */
export function statOrUndefined(fs: FileSystem, file: string): Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Creates `dir` (and its parents); true when it did not exist. */
export function ensureDirectory(fs: FileSystem, dir: string): boolean {
  return fs.mkdirSync(dir, { recursive: true }) !== undefined;
}

/** Closes `fd`, ignoring errors (used on paths that are already failing). */
export function closeQuietly(fs: FileSystem, fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    fs.closeSync(fd);
  } catch {
    // Nothing useful to do: the descriptor is gone either way.
  }
}

/** Removes `file`, ignoring a missing one. */
export function unlinkIfPresent(fs: FileSystem, file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** Removes a directory tree in the background of the thread pool; a failure leaves only garbage, so it is ignored. */
export function removeTree(fs: FileSystem, dir: string): Promise<void> {
  return promised((done) => fs.rm(dir, { recursive: true, force: true, maxRetries: 3 }, done)).catch(() => undefined);
}

/** Writes all of `buffer` at `position` on the thread pool (a short write is continued). */
export async function writeFullyAsync(fs: FileSystem, fd: number, buffer: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    written += await new Promise<number>((resolve, reject) =>
      fs.write(fd, buffer, written, buffer.length - written, position + written, (error, count) =>
        error === null ? resolve(count) : reject(error),
      ),
    );
  }
}
