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

function ascending(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
