/**
 * The file system under the file store, as an interface: every open, read, write, flush, rename
 * and unlink of a session's files, its values and its index goes through one `FileSystem`
 * (`FileDriverOptions.fileSystem`), so that a layer can record or shape what the store does — the
 * crash-consistency tests record every write and flush of a workload this way, then rebuild the
 * directory as a crash at each point would have left it. The default is Node's own `fs`.
 *
 * Locks are not part of it: they coordinate processes on the real machine (`lock.ts` uses `fs`
 * directly), and a crash leaves them stale, which the lock already handles.
 * @module
 */
import fs from 'node:fs';

/** Callback of an asynchronous call. */
export type Done = (error: NodeJS.ErrnoException | null) => void;

/** The calls the file store makes, with the signatures of Node's `fs` (which is the default). */
export interface FileSystem {
  openSync(path: string, flags: string | number, mode?: number): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): fs.Stats;
  statSync(path: string, options: { throwIfNoEntry: false }): fs.Stats | undefined;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  /** Asynchronous write (large snapshots are written off the event loop's thread). */
  write(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
    callback: (error: NodeJS.ErrnoException | null, written: number) => void,
  ): void;
  readFileSync(path: string): Buffer;
  writeFileSync(path: string, data: Uint8Array, options: { flag: string }): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  mkdirSync(path: string, options: { recursive: true }): string | undefined;
  readdirSync(path: string): string[];
  existsSync(path: string): boolean;
  copyFileSync(from: string, to: string): void;
  ftruncateSync(fd: number, length: number): void;
  fdatasyncSync(fd: number): void;
  fdatasync(fd: number, callback: Done): void;
  fsync(fd: number, callback: Done): void;
  rm(path: string, options: { recursive: true; force: true; maxRetries: number }, callback: Done): void;
}

/** Node's `fs`: what the store uses unless told otherwise. */
export const nodeFileSystem: FileSystem = fs;
