/**
 * What the store benches share: temp directories on the measured disk, the raw durable-append
 * baseline (a line written and fsynced), latency percentiles, bytes written by this process, the
 * appended messages, and every store opened the same way — with throwaway Postgres and Redis
 * servers started once per run (from test/support) and stopped at its end.
 * @module
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Message } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { fileStore, type FileDriverOptions } from '../src/stores/file/index.js';
import { memoryStore } from '../src/stores/memory.js';
import { postgresStore } from '../src/stores/postgres/index.js';
import { redisStore } from '../src/stores/redis/index.js';
import { sqliteStore } from '../src/stores/sqlite/index.js';
import { findPostgres, freshSchema, type PostgresTestServer } from '../test/support/postgres-server.js';
import { redisTestServer } from '../test/support/redis-server.js';
import { benchHistory } from './histories.js';

/** The stores the benches compare. */
export const STORE_KINDS = ['memory', 'file', 'sqlite', 'postgres', 'redis'] as const;
/** One of `STORE_KINDS`. */
export type StoreKind = (typeof STORE_KINDS)[number];

// ---------------------------------------------------------------------------------------------
// Temp directories

const created = new Set<string>();

/** A new directory under `os.tmpdir()`, removed by `removeBenchDir`. */
export function benchDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `chatstate-bench-${label}-`));
  created.add(dir);
  return dir;
}

/** Removes a directory made by `benchDir`. */
export function removeBenchDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  created.delete(dir);
}

// A bench that throws half-way must not leave hundreds of megabytes in /tmp.
process.once('exit', () => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
});

/** The mount a path lives on, from /proc/mounts (Linux), e.g. `/ (ext4 on /dev/vda)`. */
export function mountOf(file: string): string {
  let real: string;
  let table: string;
  try {
    real = fs.realpathSync(file);
    table = fs.readFileSync('/proc/mounts', 'utf8');
  } catch {
    return 'unknown file system';
  }
  let best: { point: string; type: string; device: string } | undefined;
  for (const line of table.split('\n')) {
    const [device, point, type] = line.split(' ');
    if (device === undefined || point === undefined || type === undefined) continue;
    const inside = real === point || real.startsWith(point.endsWith('/') ? point : `${point}/`);
    if (inside && (best === undefined || point.length > best.point.length)) best = { point, type, device };
  }
  return best === undefined ? 'unknown file system' : `${best.point} (${best.type} on ${best.device})`;
}

/** Where the store benches write, for the notes: the temp root and whether the repository shares its disk. */
export function diskNote(): string {
  const tmp = os.tmpdir();
  const repo = mountOf(process.cwd());
  const here = mountOf(tmp);
  const same = repo === here ? 'the same file system as the repository' : `not the repository's file system (${repo})`;
  return `Every file, baseline and store alike, is written in temp directories under \`os.tmpdir()\` = \`${tmp}\`: ${here}, ${same}.`;
}

// ---------------------------------------------------------------------------------------------
// Statistics and accounting

/** The `p`-th percentile (0–100, nearest rank) of non-empty `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile() of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

let gc: (() => void) | undefined;

/**
 * A full garbage collection, run before timing an operation on hundreds of megabytes so that it
 * does not pay for the garbage of the one before (its own garbage it still pays for). Node exposes
 * `gc` only under a flag; setting the flag at run time and fetching `gc` from a new context works.
 */
export function collectGarbage(): void {
  if (gc === undefined) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

/** Milliseconds since some fixed point, with sub-microsecond resolution. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Milliseconds of one awaited call. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = now();
  await fn();
  return now() - start;
}

/** This process's write counters (Linux /proc/self/io; every thread, so SQLite's and the thread pool's writes count too). */
export interface WriteCounters {
  /** Bytes passed to write calls (`wchar`). */
  readonly passed: number;
  /** Bytes of pages sent to storage (`write_bytes`): a small write to a page counts the whole page. */
  readonly storage: number;
}

/** The write counters now, or `undefined` where there is no procfs. */
export function writeCounters(): WriteCounters | undefined {
  try {
    const text = fs.readFileSync('/proc/self/io', 'utf8');
    const passed = /^wchar:\s*(\d+)$/m.exec(text);
    const storage = /^write_bytes:\s*(\d+)$/m.exec(text);
    return passed === null || storage === null ? undefined : { passed: Number(passed[1]), storage: Number(storage[1]) };
  } catch {
    return undefined;
  }
}

/** What was written since `start` (NaN without procfs). */
export function writtenSince(start: WriteCounters | undefined): WriteCounters {
  const end = writeCounters();
  if (start === undefined || end === undefined) return { passed: NaN, storage: NaN };
  return { passed: end.passed - start.passed, storage: end.storage - start.storage };
}

/** Total size of the files under `dir` (or of one file). */
export function diskBytes(target: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const name of fs.readdirSync(target)) total += diskBytes(path.join(target, name));
  return total;
}

/** Bytes for people: `512 B`, `3.4 KB`, `12.1 MB` (powers of 1000). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} KB`;
  return `${Math.round(bytes)} B`;
}

/** A rate such as `1,234/s`. */
export function formatRate(perSecond: number): string {
  return `${Math.round(perSecond).toLocaleString('en-US')}/s`;
}

// ---------------------------------------------------------------------------------------------
// The raw limit

/**
 * A file that lines are appended to and made durable, the fastest way Node can: a synchronous
 * write, then a synchronous `fsync` or `fdatasync` (no thread-pool round trip). What no durable
 * store can beat.
 */
export class RawJournal {
  private readonly fd: number;

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a');
  }

  /** Appends `line` and flushes it with `fsync` (or `fdatasync`). */
  append(line: Buffer, sync: 'fsync' | 'fdatasync' = 'fsync'): void {
    fs.writeSync(this.fd, line);
    if (sync === 'fsync') fs.fsyncSync(this.fd);
    else fs.fdatasyncSync(this.fd);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Appends per second of one writer on a `RawJournal`: `count` appends timed together. */
export function rawRate(journal: RawJournal, line: Buffer, count: number): number {
  const start = now();
  for (let i = 0; i < count; i++) journal.append(line);
  return count / ((now() - start) / 1000);
}

// ---------------------------------------------------------------------------------------------
// Messages

/** Characters of text in an appended message: its JSON record is about 500 bytes. */
const APPEND_TEXT_CHARS = 420;
let filler: string | undefined;

/**
 * The `index`-th message an append bench adds: a user message of corpus prose whose JSON is
 * about 500 bytes (the size of the raw baseline's line), with an id unique under `tag`.
 */
export function appendMessage(tag: string, index: number): Message {
  filler ??= benchHistory(1_000)
    .messages.filter((message) => message.role === 'user')
    .map((message) => Message.text(message).replace(/\s+/g, ' '))
    .join(' ');
  const start = (index * 977) % Math.max(1, filler.length - APPEND_TEXT_CHARS);
  return Message.user(filler.slice(start, start + APPEND_TEXT_CHARS), {
    id: `${tag}-${index}`,
    timestamp: new Date(Date.UTC(2025, 5, 1) + index * 1000).toISOString(),
  });
}

/** The raw baseline's line: a ~500-byte JSON message and a newline. */
export function rawLine(): Buffer {
  return Buffer.from(`${JSON.stringify(appendMessage('raw', 0))}\n`);
}

// ---------------------------------------------------------------------------------------------
// Servers and stores

interface Servers {
  postgres: Promise<PostgresTestServer | string> | undefined;
  redis: Promise<{ url: string; stop(): Promise<void> } | string> | undefined;
}

const servers: Servers = { postgres: undefined, redis: undefined };

/** The Postgres server of this run (started on first use), or why there is none. */
export function postgresServer(): Promise<PostgresTestServer | string> {
  servers.postgres ??= (async () => {
    const found = findPostgres();
    if (!found.ok) return found.reason;
    try {
      return await found.start();
    } catch (error) {
      return `the throwaway server did not start: ${(error as Error).message.split('\n')[0] ?? ''}`;
    }
  })();
  return servers.postgres;
}

/** The Redis server of this run (started on first use), or why there is none. */
export function redisServer(): Promise<{ url: string; stop(): Promise<void> } | string> {
  servers.redis ??= (async () => {
    try {
      const server = await redisTestServer();
      return server.url === undefined ? server.skip : { url: server.url, stop: () => server.stop() };
    } catch (error) {
      return `the throwaway server did not start: ${(error as Error).message.split('\n')[0] ?? ''}`;
    }
  })();
  return servers.redis;
}

/** Stops the servers this run started. */
export async function stopBenchServers(): Promise<void> {
  const [postgres, redis] = await Promise.all([servers.postgres, servers.redis]);
  servers.postgres = undefined;
  servers.redis = undefined;
  if (typeof postgres === 'object') await postgres.stop();
  if (typeof redis === 'object') await redis.stop();
}

/** An open store of one kind, where it keeps its data, and how to reopen it cold. */
export interface BenchStore {
  readonly kind: StoreKind;
  readonly store: SessionStore;
  /** The directory holding its files (file and SQLite stores). */
  readonly dir?: string;
  /** A second, fresh store on the same data (nothing cached in this process), for cold reads. */
  reopen(): Promise<SessionStore>;
  /** Postgres: refreshes the planner's statistics of the store's tables (what autovacuum does in time). */
  analyze?(): Promise<void>;
  /** Closes the store and removes its data. */
  dispose(): Promise<void>;
}

/** Opens a store of `kind` on fresh data, or says why it cannot be had here. */
export async function openBenchStore(
  kind: StoreKind,
  label: string,
  fileOptions: FileDriverOptions = {},
): Promise<BenchStore | string> {
  switch (kind) {
    case 'memory': {
      const store = memoryStore();
      return {
        kind,
        store,
        // A memory store has nothing but its process: a "cold" read is the same store.
        reopen: async () => store,
        dispose: () => store.close(),
      };
    }
    case 'file': {
      const dir = benchDir(`file-${label}`);
      const store = fileStore(dir, fileOptions);
      return {
        kind,
        store,
        dir,
        reopen: async () => fileStore(dir, fileOptions),
        dispose: async () => (await store.close(), removeBenchDir(dir)),
      };
    }
    case 'sqlite': {
      const dir = benchDir(`sqlite-${label}`);
      const file = path.join(dir, 'sessions.db');
      const store = await sqliteStore(file);
      return {
        kind,
        store,
        dir,
        reopen: () => sqliteStore(file),
        dispose: async () => (await store.close(), removeBenchDir(dir)),
      };
    }
    case 'postgres': {
      const server = await postgresServer();
      if (typeof server === 'string') return server;
      // A schema per bench store: no bench sees another's rows, and dropping it cleans up.
      const schema = freshSchema(`bench_${label}`);
      const store = await postgresStore(server.url, { schema });
      return {
        kind,
        store,
        reopen: () => postgresStore(server.url, { schema }),
        analyze: () =>
          postgresQuery(server.url, `ANALYZE "${schema}".chatstate_sessions, "${schema}".chatstate_messages`),
        dispose: async () => {
          await store.close();
          await postgresQuery(server.url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    }
    case 'redis': {
      const server = await redisServer();
      if (typeof server === 'string') return server;
      const prefix = `bench:${label}:${process.pid}:`;
      const store = await redisStore(server.url, { prefix });
      return {
        kind,
        store,
        reopen: () => redisStore(server.url, { prefix }),
        dispose: async () => {
          await store.close();
          await flushRedis(server.url);
        },
      };
    }
    default:
      return kind satisfies never;
  }
}

/** One statement on a short-lived connection (bench setup and cleanup only; `sql` is ours, never input). */
async function postgresQuery(url: string, sql: string): Promise<void> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Empties the throwaway Redis server (it holds nothing but this run's keys). */
export async function flushRedis(url: string): Promise<void> {
  await redisCommand(url, 'FLUSHALL', []);
}

/** One command on a short-lived ioredis connection (bench setup only). */
export async function redisCommand(url: string, command: string, args: Array<string | number>): Promise<unknown> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  try {
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

/** Runs a store's code paths before anything is timed (JIT, lazily loaded modules, first files). */
export async function warmUp(kind: StoreKind, appends = 200): Promise<void> {
  const opened = await openBenchStore(kind, 'warmup');
  if (typeof opened === 'string') return;
  try {
    const history = benchHistory(1_000).messages;
    await opened.store.save(Session.create({ id: 'warmup', messages: history.slice(0, 9) }));
    for (let i = 0; i < appends; i++) await opened.store.append('warmup', [appendMessage('warmup', i)]);
    await opened.store.readMessages('warmup', { limit: 200 });
    await opened.store.load('warmup');
  } finally {
    await opened.dispose();
  }
}
