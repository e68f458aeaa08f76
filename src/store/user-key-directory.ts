/**
 * `userKeyDirectory(dir)`: a `UserKeyStore` in a directory of its own, one file per user key
 * (`<slot>.key`, mode 0600), apart from the data store and its backups. A key is written to a
 * temporary file, fsync'd, then linked into place (a second creator finds the first one's) and the
 * directory fsync'd; destroying overwrites the file, unlinks it and fsyncs the directory.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InvalidInputError, UnavailableError } from '../errors.js';
import { SLOT_PATTERN, type UserKeyStore } from './user-key-store.js';

/** Options of `userKeyDirectory`. */
export interface UserKeyDirectoryOptions {
  /** Names the key store in error messages. @default 'user keys at <dir>' */
  readonly name?: string;
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Flushes a directory's entries (a file linked or unlinked in it) to disk. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * ✱ A `UserKeyStore` in directory `dir`, which must exist (a missing one is `UNAVAILABLE`, never
 * "no keys": a key directory that failed to mount must not read as every user forgotten). Keep it
 * out of the data store's backups: that is what makes a destroyed key final.
 */
export function userKeyDirectory(dir: string, options: UserKeyDirectoryOptions = {}): UserKeyStore {
  if (typeof dir !== 'string' || dir.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', 'userKeyDirectory needs a directory path');
  const root = resolve(dir);
  const name = options.name ?? `user keys at ${root}`;
  const unavailable = (what: string, error: unknown): UnavailableError =>
    new UnavailableError(
      `${name}: cannot ${what}: ${errno(error) ?? (error as Error)?.message ?? String(error)}`,
      { store: name, reason: errno(error) ?? 'IO' },
      { cause: error },
    );
  const fileOf = (slot: string): string => {
    if (typeof slot !== 'string' || !SLOT_PATTERN.test(slot))
      throw new InvalidInputError('INVALID_ARGUMENT', `${name}: ${JSON.stringify(String(slot))} is not a key slot`);
    return join(root, `${slot}.key`);
  };
  /** The key in `file`; `undefined` when there is none, in a directory that exists. */
  const read = async (file: string): Promise<string | undefined> => {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if (errno(error) !== 'ENOENT') throw unavailable('read a key', error);
    }
    await mustExist();
    return undefined;
  };
  /** No key, or no directory: only the first is an answer (an unmounted directory must not read as no keys). */
  const mustExist = async (): Promise<void> => {
    const directory = await stat(root).catch((error: unknown) => {
      throw unavailable('find the key directory', error);
    });
    if (!directory.isDirectory()) throw unavailable('find the key directory', new Error('not a directory'));
  };
  return {
    name,
    get: async (slot) => read(fileOf(slot)),
    async create(slot, wrapped) {
      const file = fileOf(slot);
      const temporary = join(root, `.${slot}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        const handle = await open(temporary, 'wx', 0o600);
        try {
          await handle.writeFile(wrapped, 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        let first = true;
        try {
          // A link fails when the name is taken: of two creators, the first one's key stays.
          await link(temporary, file);
        } catch (error) {
          if (errno(error) !== 'EEXIST') throw error;
          first = false;
        }
        await unlink(temporary);
        await syncDirectory(root);
        if (first) return wrapped;
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw unavailable('store a key', error);
      }
      const stored = await read(file);
      if (stored === undefined) throw unavailable('read the key another writer stored', new Error('it is gone'));
      return stored;
    },
    async destroy(slot) {
      const file = fileOf(slot);
      try {
        // Overwritten first: on a file system that reuses blocks in place, the old bytes go too.
        const handle = await open(file, 'r+');
        try {
          const { size } = await handle.stat();
          await handle.write(Buffer.alloc(size), 0, size, 0);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await unlink(file);
        await syncDirectory(root);
        return true;
      } catch (error) {
        if (errno(error) !== 'ENOENT') throw unavailable('destroy a key', error);
      }
      await mustExist();
      return false;
    },
  };
}
