/**
 * Where the file store keeps things, and the guard that keeps every path inside its directory.
 *
 * ```
 * DIR/sessions/<name>/snapshot        the session, atomically replaced
 * DIR/sessions/<name>/snapshot.bak    the previous snapshot
 * DIR/sessions/<name>/journal.<gen>   append-only journals (the current one and those the backup needs)
 * DIR/sessions/<name>/recovered       marker: the session was unreadable, its files were kept aside
 * DIR/sessions/<name>/watermark       the highest version and seq ever acknowledged (see watermark.ts)
 * DIR/locks/<name>#write, #fold       inter-process locks (hard links to an owner file)
 * DIR/locks/.owner-<pid>-<nonce>      a process's owner file, which its locks link to
 * DIR/index                           the session index for `list` (a cache, rebuilt when stale)
 * DIR/lost+found/                     damaged files, moved aside, never deleted
 * ```
 * @module
 */
import path from 'node:path';
import { InvalidInputError } from '../../errors.js';
import { isValidId } from '../../ids.js';
import { nodeFileSystem, type FileSystem } from './file-system.js';

/** Name of a session's directory: its id, with each capital letter escaped so that two ids never share a directory on a case-insensitive file system. */
export function encodeName(id: string): string {
  return id.replace(/[A-Z]/g, (letter) => `+${letter.toLowerCase()}`);
}

const NAME_PATTERN = /^(?:[a-z0-9]|\+[a-z])(?:[a-z0-9._-]|\+[a-z])*$/;

/** The id a directory name stands for, or `undefined` for anything that is not a session directory (temp files, trash). */
export function decodeName(name: string): string | undefined {
  if (!NAME_PATTERN.test(name)) return undefined;
  const id = name.replace(/\+([a-z])/g, (_match, letter: string) => letter.toUpperCase());
  return isValidId(id) && encodeName(id) === name ? id : undefined;
}

/** The files of one session. */
export interface SessionPaths {
  /** The file system the files are on. */
  readonly fs: FileSystem;
  readonly id: string;
  readonly name: string;
  readonly dir: string;
  readonly snapshot: string;
  readonly backup: string;
  readonly marker: string;
  readonly watermark: string;
  readonly writeLock: string;
  readonly foldLock: string;
  journal(gen: number): string;
}

/** The directories of a store. */
export interface StorePaths {
  /** The file system the store is on. */
  readonly fs: FileSystem;
  readonly root: string;
  readonly sessions: string;
  readonly locks: string;
  readonly index: string;
  readonly lostAndFound: string;
  session(id: string): SessionPaths;
}

/**
 * Resolves `parts` under `base` and refuses any result outside it. Ids are validated by the core
 * before they reach a driver; this second check stops a path-traversal bug anywhere else (a
 * caller using the driver directly, a future id rule) from reading or writing outside the store.
 */
export function inside(store: string, base: string, ...parts: string[]): string {
  const resolved = path.resolve(base, ...parts);
  const relative = path.relative(base, resolved);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new InvalidInputError(
      'INVALID_ID',
      `${store}: refusing the path ${JSON.stringify(parts.join('/').slice(0, 80))}: it leaves the store directory`,
    );
  }
  return resolved;
}

/** The layout of store `store` rooted at `directory` (made absolute now, so a later `chdir` does not move it), on `fs`. */
export function storePaths(directory: string, fs: FileSystem = nodeFileSystem, store = 'file'): StorePaths {
  const root = path.resolve(directory);
  const sessions = path.join(root, 'sessions');
  const locks = path.join(root, 'locks');
  return {
    fs,
    root,
    sessions,
    locks,
    index: path.join(root, 'index'),
    lostAndFound: path.join(root, 'lost+found'),
    session(id) {
      if (!isValidId(id)) {
        throw new InvalidInputError(
          'INVALID_ID',
          `${store}: invalid session id ${JSON.stringify(String(id).slice(0, 80))}`,
        );
      }
      const name = encodeName(id);
      const dir = inside(store, sessions, name);
      return {
        fs,
        id,
        name,
        dir,
        snapshot: path.join(dir, 'snapshot'),
        backup: path.join(dir, 'snapshot.bak'),
        marker: path.join(dir, 'recovered'),
        watermark: path.join(dir, 'watermark'),
        // `#` cannot occur in a name, so a lock never collides with another session's.
        writeLock: inside(store, locks, `${name}#write`),
        foldLock: inside(store, locks, `${name}#fold`),
        journal: (gen) => path.join(dir, `journal.${gen}`),
      };
    },
  };
}

/** The generation of a journal file name, or `undefined`. */
export function journalGen(fileName: string): number | undefined {
  const match = /^journal\.([1-9][0-9]{0,14})$/.exec(fileName);
  return match === null ? undefined : Number(match[1]);
}
