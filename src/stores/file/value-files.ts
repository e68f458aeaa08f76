/**
 * Active memory's values in the file store: one file per namespace, named by a hash of the
 * namespace (never by anything a caller wrote), holding every key of it.
 *
 * ```
 * DIR/values/<hash(ns)>                  a namespace of a user, an agent or the app
 * DIR/values/s-<hash(id)>/<hash(ns)>     the namespaces of session `id` (removed with it)
 * DIR/locks/v-<hash(ns)>, v-s-<hash(id)> their inter-process write locks
 * ```
 *
 * A write takes the namespace's lock (a session's namespaces share one, so that removing the
 * session excludes writers), reads the file, and replaces it atomically: a temporary file is
 * written and fsynced, renamed over the old one, and the directory fsynced — a reader (which
 * takes no lock) sees the old values or the new ones, never a mix, and a crash keeps one of them.
 * A checksum in the header catches damage; a file that holds another namespace is refused.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { DataError } from '../../errors.js';
import { KeyedLock } from '../../internal/keyed-lock.js';
import type { ValueRecord } from '../../store/driver-types.js';
import { namespaceSession } from '../../store/values.js';
import { nodeFileSystem } from './file-system.js';
import {
  closeQuietly,
  ensureDirectory,
  fsync,
  fsyncDirectory,
  isMissing,
  removeTree,
  unlinkIfPresent,
  writeFully,
} from './fs-util.js';
import { lock, unlock } from './lock.js';
import { inside, type StorePaths } from './paths.js';

/** How value files lock and name their errors. */
export interface ValueFilesOptions {
  /** Store name, for error messages. */
  readonly store: string;
  readonly lockTimeoutMs: number;
  readonly foreignStaleMs: number;
}

const FORMAT = 'chatstate-values';
const VERSION = 1;

/** A short, fixed-length, file-name-safe digest of `text`. */
function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 40);
}

/** Where one namespace lives: its file, its directory and its lock. */
interface Place {
  readonly dir: string;
  readonly file: string;
  readonly temporary: string;
  readonly lock: string;
}

/** The values of the file store under `paths.root`. */
export class ValueFiles {
  private readonly root: string;
  // Writers of one lock in this process wait here, not by polling the lock file.
  private readonly queues = new KeyedLock();

  constructor(
    private readonly paths: StorePaths,
    private readonly options: ValueFilesOptions,
  ) {
    this.root = path.join(paths.root, 'values');
  }

  private groupOf(sessionId: string): { dir: string; lock: string } {
    const name = `s-${digest(sessionId)}`;
    return {
      dir: inside(this.options.store, this.root, name),
      lock: inside(this.options.store, this.paths.locks, `v-${name}`),
    };
  }

  private place(ns: string): Place {
    const name = digest(ns);
    const sessionId = namespaceSession(ns);
    const group =
      sessionId === undefined
        ? { dir: this.root, lock: inside(this.options.store, this.paths.locks, `v-${name}`) }
        : this.groupOf(sessionId);
    return {
      dir: group.dir,
      file: inside(this.options.store, group.dir, name),
      temporary: inside(this.options.store, group.dir, `${name}.tmp`),
      lock: group.lock,
    };
  }

  /** Runs `operation` after the earlier ones on the same lock in this process, holding the lock file. */
  private exclusive<T>(lockFile: string, operation: () => Promise<T>): Promise<T> {
    return this.queues.run(lockFile, async () => {
      // Locks live on the real file system, whatever layer the values go through (see file-system.ts).
      ensureDirectory(nodeFileSystem, this.paths.locks);
      const held = await lock(lockFile, {
        timeoutMs: this.options.lockTimeoutMs,
        foreignStaleMs: this.options.foreignStaleMs,
        store: this.options.store,
      });
      try {
        return await operation();
      } finally {
        unlock(held);
      }
    });
  }

  private corrupt(ns: string, why: string): DataError {
    const scope = ns.split(':', 1)[0] ?? ns;
    return new DataError('CORRUPT', `${this.options.store}: a values file of ${scope} scope is damaged: ${why}`);
  }

  /** The values of `ns` on disk, by key (empty when it has no file). */
  private load(ns: string, file: string): Map<string, string> {
    const { fs } = this.paths;
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch (error) {
      if (isMissing(error)) return new Map();
      throw error;
    }
    const newline = bytes.indexOf(0x0a);
    const header = (newline < 0 ? '' : bytes.subarray(0, newline).toString('utf8')).split(' ');
    if (header.length !== 3 || header[0] !== FORMAT) throw this.corrupt(ns, 'no header');
    if (header[1] !== String(VERSION))
      throw this.corrupt(ns, `format ${JSON.stringify(header[1])} is not one this version reads`);
    const body = bytes.subarray(newline + 1);
    if (createHash('sha256').update(body).digest('hex') !== header[2]) throw this.corrupt(ns, 'checksum mismatch');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw this.corrupt(ns, `not JSON (${(error as Error).message})`);
    }
    const { ns: stored, values } = (parsed ?? {}) as { ns?: unknown; values?: unknown };
    // A hash collision, or a file copied from elsewhere: never hand out another owner's values.
    if (stored !== ns) throw this.corrupt(ns, 'it holds another namespace');
    if (!Array.isArray(values)) throw this.corrupt(ns, 'no values');
    const map = new Map<string, string>();
    for (const pair of values as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string')
        throw this.corrupt(ns, 'a malformed entry');
      map.set(pair[0], pair[1]);
    }
    return map;
  }

  /** Values of `ns` (all of them when `keys` is omitted), keys ascending. */
  async read(ns: string, keys?: readonly string[]): Promise<ValueRecord[]> {
    const stored = this.load(ns, this.place(ns).file);
    const wanted = keys === undefined ? [...stored.keys()] : keys.filter((key) => stored.has(key));
    return wanted.sort(ascending).map((key) => ({ key, data: stored.get(key) as string }));
  }

  /** Writes and deletes keys of `ns` in one atomic, durable replacement of its file. */
  async write(
    ns: string,
    entries: ReadonlyArray<{ readonly key: string; readonly data: string | null }>,
  ): Promise<void> {
    const { fs } = this.paths;
    const place = this.place(ns);
    await this.exclusive(place.lock, async () => {
      const values = this.load(ns, place.file);
      for (const entry of entries) {
        if (entry.data === null) values.delete(entry.key);
        else values.set(entry.key, entry.data);
      }
      if (values.size === 0) {
        if (!fs.existsSync(place.file)) return;
        unlinkIfPresent(fs, place.file);
        await fsyncDirectory(fs, place.dir);
        return;
      }
      await this.ensureDirectories(place.dir);
      const body = Buffer.from(JSON.stringify({ ns, values: [...values].sort(([a], [b]) => ascending(a, b)) }), 'utf8');
      const header = Buffer.from(`${FORMAT} ${VERSION} ${createHash('sha256').update(body).digest('hex')}\n`, 'utf8');
      // One temporary name per namespace: writers of it hold the lock, and a crash's leftover is overwritten.
      const fd = fs.openSync(place.temporary, 'w');
      try {
        writeFully(fs, fd, Buffer.concat([header, body]));
        await fsync(fs, fd);
      } finally {
        closeQuietly(fs, fd);
      }
      fs.renameSync(place.temporary, place.file);
      await fsyncDirectory(fs, place.dir);
    });
  }

  /** Creates the values directory and `dir` inside it, each creation made durable. */
  private async ensureDirectories(dir: string): Promise<void> {
    const { fs } = this.paths;
    if (ensureDirectory(fs, this.root)) await fsyncDirectory(fs, this.paths.root);
    if (dir !== this.root && ensureDirectory(fs, dir)) await fsyncDirectory(fs, this.root);
  }

  /**
   * Removes every namespace of session `id` (forgetting a user: before the session itself, so a
   * crash in between leaves the session to be found again); returns the values, vectors and files removed.
   */
  async removeSessionValues(
    id: string,
    vectorPrefix: string,
  ): Promise<{ values: number; vectors: number; files: number }> {
    const { fs } = this.paths;
    const group = this.groupOf(id);
    const counts = { values: 0, vectors: 0, files: 0 };
    if (!fs.existsSync(group.dir)) return counts;
    await this.exclusive(group.lock, async () => {
      let names: string[];
      try {
        names = fs.readdirSync(group.dir);
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      for (const name of names) {
        const { keys } = peekValues(fs.readFileSync(path.join(group.dir, name)));
        counts.values += keys.length;
        counts.vectors += keys.filter((key) => key.startsWith(vectorPrefix)).length;
        counts.files += 1;
      }
      const trash = inside(
        this.options.store,
        this.root,
        `.trash-${path.basename(group.dir)}-${randomBytes(4).toString('hex')}`,
      );
      fs.renameSync(group.dir, trash);
      await fsyncDirectory(fs, this.root);
      await removeTree(fs, trash);
    });
    return counts;
  }

  /**
   * Removes the namespaces `owned` picks among the store-wide ones (a user's and their agents'),
   * with any temporary file a crashed writer left of them, each under its lock; returns the values
   * and files removed. A file is judged by the namespace it names, damaged or not.
   */
  async removeOwned(owned: (ns: string) => boolean): Promise<{ values: number; files: number }> {
    const { fs } = this.paths;
    const counts = { values: 0, files: 0 };
    let names: string[];
    try {
      names = fs.readdirSync(this.root);
    } catch (error) {
      if (isMissing(error)) return counts;
      throw error;
    }
    for (const name of names) {
      const match = /^([0-9a-f]{40})(\.tmp)?$/.exec(name);
      if (match === null) continue;
      const file = path.join(this.root, name);
      let peeked: ReturnType<typeof peekValues>;
      try {
        peeked = peekValues(fs.readFileSync(file));
      } catch (error) {
        if (isMissing(error)) continue;
        throw error;
      }
      if (peeked.ns === undefined || !owned(peeked.ns)) continue;
      await this.exclusive(inside(this.options.store, this.paths.locks, `v-${match[1] as string}`), async () => {
        if (!fs.existsSync(file)) return;
        unlinkIfPresent(fs, file);
        await fsyncDirectory(fs, this.root);
        counts.files += 1;
        if (match[2] === undefined) counts.values += peeked.keys.length;
      });
    }
    return counts;
  }

  /** Removes what removals cut short by a crash left in the values directory; returns how many entries. */
  async removeTrash(): Promise<number> {
    return removeTrashIn(this.paths.fs, this.root);
  }

  /**
   * Removes every namespace of session `id` (after the session itself was removed) and returns
   * `result`: the directory is renamed away in one step, so no reader sees part of it.
   */
  async afterRemoval<T>(id: string, result: T): Promise<T> {
    const { fs } = this.paths;
    const group = this.groupOf(id);
    // Most sessions keep no values: no lock is taken for them. A write racing this removal is
    // one that came after it, and its values stay, as after any write to a session id.
    if (!fs.existsSync(group.dir)) return result;
    await this.exclusive(group.lock, async () => {
      const trash = inside(
        this.options.store,
        this.root,
        `.trash-${path.basename(group.dir)}-${randomBytes(4).toString('hex')}`,
      );
      try {
        fs.renameSync(group.dir, trash);
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      await fsyncDirectory(fs, this.root);
      await removeTree(fs, trash);
    });
    return result;
  }
}

/** What a values file (or a leftover temporary one) says of itself, read without trusting it: its namespace and keys. */
export function peekValues(bytes: Buffer): { ns?: string; keys: string[] } {
  const body = bytes.subarray(bytes.indexOf(0x0a) + 1).toString('utf8');
  try {
    const parsed = JSON.parse(body) as { ns?: unknown; values?: unknown };
    const keys = Array.isArray(parsed.values)
      ? (parsed.values as unknown[]).map((pair) => (Array.isArray(pair) ? String(pair[0]) : ''))
      : [];
    return typeof parsed.ns === 'string' ? { ns: parsed.ns, keys } : { keys };
  } catch {
    // Damaged or cut short: the namespace is near the start, written before any value.
    const match = /^\{"ns":("(?:[^"\\]|\\.)*")/.exec(body);
    return match === null ? { keys: [] } : { ns: JSON.parse(match[1] as string) as string, keys: [] };
  }
}

/** Removes the `.trash-*` entries of `dir` (removals a crash cut short: garbage by construction); returns how many. */
export async function removeTrashIn(fs: StorePaths['fs'], dir: string): Promise<number> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  const trash = names.filter((name) => name.startsWith('.trash-'));
  for (const name of trash) await removeTree(fs, path.join(dir, name));
  return trash.length;
}

function ascending(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
