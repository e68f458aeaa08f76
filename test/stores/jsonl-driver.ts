/**
 * A third-party store written only for the tests: JSON lines over plain files, one file per
 * session, implementing nothing but the required session primitives (`SessionDriver`). It proves
 * that a backend outside chatstate, registered by scheme, passes the whole conformance kit: purging
 * and search come from the core's fallbacks, values are refused by the core with `UNSUPPORTED`.
 *
 * A session file is a run of commits; each commit is its message lines followed by one head line
 * (`{"m":record}` … `{"h":head}`), so the last complete head line is the session's state and any
 * lines after it are a commit that never finished (ignored by readers, cut by the next writer).
 * Writers of one session hold an exclusive lock file (`open(…, 'wx')`, retried for a bounded time,
 * one queue per session inside a process) and fsync before they answer; a replace writes a
 * temporary file, fsyncs it, renames it over the session and fsyncs the directory. A lock left by
 * a killed process is not broken: writers of that session fail with `UNAVAILABLE` until it is
 * removed (this is a test store).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, truncate, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataError, InvalidInputError, UnavailableError } from '../../src/errors.js';
import {
  appendToHead,
  checkKeys,
  checkVersion,
  noSessionError,
  rangeOf,
  sortAndPage,
  storeName,
} from '../../src/store/driver-helpers.js';
import type {
  AppendCommit,
  AppendOutcome,
  DriverListQuery,
  DriverRange,
  HeadRecord,
  MessageRecord,
  ReplaceCommit,
  SessionDriver,
} from '../../src/store/driver-types.js';

/** Options of `jsonlDriver`. */
export interface JsonlDriverOptions {
  /** Name of the store in error messages. @default 'jsonl' */
  readonly name?: string;
  /** How long a writer waits for another's lock before `UNAVAILABLE`. @default 10000 */
  readonly lockTimeoutMs?: number;
}

const SUFFIX = '.jsonl';

/** A session file read back: its committed state, and how many bytes of it are committed. */
interface SessionFile {
  readonly head: HeadRecord;
  readonly messages: MessageRecord[];
  readonly committedBytes: number;
  readonly size: number;
}

function line(entry: { h: HeadRecord } | { m: MessageRecord }): string {
  return `${JSON.stringify(entry)}\n`;
}

async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The JSON-lines driver over `directory` (created when missing). */
export async function jsonlDriver(directory: string, options: JsonlDriverOptions = {}): Promise<SessionDriver> {
  const name = storeName(options.name, 'jsonl');
  const lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  if (typeof directory !== 'string' || directory.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${name}: expected a directory`);
  const root = resolve(directory);
  await mkdir(root, { recursive: true });
  const fileOf = (id: string): string => join(root, `${id}${SUFFIX}`);
  // One queue per session in this process, so its writers wait in line instead of spinning on the lock file.
  const queues = new Map<string, Promise<unknown>>();

  /** Parses a session file; `undefined` when there is none or no commit finished. */
  async function readSession(id: string): Promise<SessionFile | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(fileOf(id));
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw error;
    }
    let head: HeadRecord | undefined;
    let committedBytes = 0;
    let messages: MessageRecord[] = [];
    let pending: MessageRecord[] = [];
    let offset = 0;
    for (;;) {
      // Lines are split on the byte: a newline never occurs inside a UTF-8 sequence.
      const end = bytes.indexOf(0x0a, offset);
      // A last line without its newline is a commit that never finished.
      if (end === -1) break;
      const raw = bytes.toString('utf8', offset, end);
      offset = end + 1;
      let entry: { h?: HeadRecord; m?: MessageRecord };
      try {
        entry = JSON.parse(raw) as typeof entry;
      } catch (error) {
        // Writers cut unfinished commits before they append: a bad line inside the file is damage.
        throw new DataError('CORRUPT', `${name}: session ${JSON.stringify(id)} has a line that is not JSON`, {
          cause: error,
          details: { id },
        });
      }
      if (entry.m !== undefined) pending.push(entry.m);
      else if (entry.h !== undefined) {
        head = entry.h;
        messages = messages.concat(pending);
        pending = [];
        committedBytes = offset;
      } else
        throw new DataError(
          'CORRUPT',
          `${name}: session ${JSON.stringify(id)} has a line that is neither a head nor a message`,
          { details: { id } },
        );
    }
    return head === undefined ? undefined : { head, messages, committedBytes, size: bytes.length };
  }

  /** Runs `work` holding the session's lock: queued behind this process's writers, then the lock file. */
  function locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    const run = (queues.get(id) ?? Promise.resolve()).catch(() => undefined).then(() => withLockFile(id, work));
    queues.set(id, run);
    const forget = (): void => {
      if (queues.get(id) === run) queues.delete(id);
    };
    run.then(forget, forget);
    return run;
  }

  async function withLockFile<T>(id: string, work: () => Promise<T>): Promise<T> {
    const lock = join(root, `${id}.lock`);
    const deadline = Date.now() + lockTimeoutMs;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      try {
        await (await open(lock, 'wx')).close();
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
        if (Date.now() >= deadline) {
          throw new UnavailableError(`${name}: session ${JSON.stringify(id)} is locked by another writer`, {
            store: name,
            reason: 'LOCKED',
            outcome: 'not-applied',
          });
        }
        await new Promise((done) => setTimeout(done, wait * (0.5 + Math.random())));
      }
    }
    try {
      return await work();
    } finally {
      await unlink(lock);
    }
  }

  /** Appends `text` to the session file (after cutting an unfinished commit) and fsyncs it. */
  async function commit(id: string, file: SessionFile, text: string): Promise<void> {
    if (file.size > file.committedBytes) await truncate(fileOf(id), file.committedBytes);
    const handle = await open(fileOf(id), 'a');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  return {
    name,
    async readHead(id) {
      return (await readSession(id))?.head;
    },
    async readAll(id) {
      const file = await readSession(id);
      return file === undefined ? undefined : { head: file.head, messages: file.messages };
    },
    async readRange(id, range: DriverRange) {
      const file = await readSession(id);
      return file === undefined ? undefined : rangeOf(file.messages, range);
    },
    append(id, request: AppendCommit): Promise<AppendOutcome> {
      return locked(id, async () => {
        const file = await readSession(id);
        if (file === undefined) throw noSessionError(name, id);
        checkKeys(name, id, file.head.keys, request.keys?.expected);
        checkVersion(name, id, file.head.version, request.expectedVersion);
        const known = new Set(file.messages.map((record) => record.id));
        const { head, appended, duplicates } = appendToHead(file.head, request, (messageId) => known.has(messageId));
        if (appended.length > 0)
          await commit(id, file, appended.map((record) => line({ m: record })).join('') + line({ h: head }));
        return { version: head.version, appended, duplicates };
      });
    },
    replace(id, request: ReplaceCommit) {
      return locked(id, async () => {
        const current = await readSession(id);
        if (current !== undefined) checkKeys(name, id, current.head.keys, request.expectedKeys);
        if (request.expectedVersion !== undefined)
          checkVersion(name, id, current?.head.version ?? 0, request.expectedVersion);
        const records = request.messages.map(({ seq, id: messageId, data }) =>
          line({ m: { seq, id: messageId, data } }),
        );
        const temporary = join(root, `${id}.tmp-${randomBytes(6).toString('hex')}`);
        const handle = await open(temporary, 'w');
        try {
          await handle.writeFile(records.join('') + line({ h: request.head }), 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, fileOf(id));
        await fsyncDirectory(root);
      });
    },
    async list(query: DriverListQuery) {
      const names = (await readdir(root)).filter((entry) => entry.endsWith(SUFFIX));
      const heads = await Promise.all(
        names.map(async (entry) => (await readSession(entry.slice(0, -SUFFIX.length)))?.head),
      );
      return sortAndPage(
        heads.filter((head): head is HeadRecord => head !== undefined),
        query,
      );
    },
    remove(id) {
      return locked(id, async () => {
        const existed = (await readSession(id)) !== undefined;
        await rm(fileOf(id), { force: true });
        await fsyncDirectory(root);
        return existed;
      });
    },
    async close() {
      // Nothing is held open between calls; the core has let every pending call finish.
    },
  };
}

/** The directory of a `jsonl:` URL: `jsonl:DIR` (relative to the working directory) or `jsonl:///absolute/dir`. */
export function jsonlDirectoryFromUrl(url: string): string {
  const rest = url.replace(/^jsonl:/i, '');
  if (rest.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `Cannot open store ${JSON.stringify(url)}: expected jsonl:DIR`);
  return rest.startsWith('//') ? fileURLToPath(`file:${rest}`) : rest;
}
