/**
 * A Redis server for the Redis store's tests: `CHATSTATE_TEST_REDIS_URL` when it is set, else a
 * throwaway `redis-server` (persistence off unless asked for, loopback only, a free port) started
 * for one test file and killed after it. Without either, the suite is skipped with its reason —
 * except under `CI=true`, where a missing server is a failure: CI must test against a real Redis.
 *
 * With `{ durable: true }` the throwaway server runs with `appendonly yes` and `appendfsync always`
 * (a write is fsynced before Redis answers it), and can be killed with SIGKILL and started again on
 * the same port and data directory: what it acknowledged must still be there.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

/** A running server, or why there is none. */
export type RedisTestServer =
  | {
      readonly url: string;
      readonly throwaway: boolean;
      stop(): Promise<void>;
      /** Throwaway only: SIGKILLs the server (no shutdown, no final save) and waits until it is gone. */
      kill?(): Promise<void>;
      /** Throwaway only: starts a killed server again on the same port and data directory. */
      restart?(): Promise<void>;
    }
  | { readonly url?: undefined; readonly skip: string };

/** How the throwaway server runs. */
export interface RedisServerOptions {
  /** `appendonly yes` + `appendfsync always`: every acknowledged write survives a kill. @default false */
  readonly durable?: boolean;
}

const READY = /ready to accept connections/i;
const START_TIMEOUT_MS = 20_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** True when `binary --version` runs. */
export function onPath(binary: string): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts `redis-server` on `port`; resolves once it accepts connections, rejects with its output if it exits first. */
function launch(port: number, dir: string, durable: boolean): Promise<ChildProcess> {
  const persistence = durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  return spawnRedis(['--port', String(port), ...persistence, '--dir', dir]);
}

/**
 * Starts `redis-server` with `args` (after loopback-only defaults without RDB snapshots); resolves
 * once it accepts connections, rejects with its output if it exits first or takes too long.
 */
export function spawnRedis(args: readonly string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      ['--bind', '127.0.0.1', '--save', '', '--daemonize', 'no', '--protected-mode', 'yes', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (READY.test(output)) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** The server for one test file; call `stop()` in `afterAll`. */
export async function redisTestServer(options: RedisServerOptions = {}): Promise<RedisTestServer> {
  const durable = options.durable === true;
  const given = process.env.CHATSTATE_TEST_REDIS_URL;
  if (given !== undefined && given !== '') return { url: given, throwaway: false, stop: async () => undefined };
  if (!onPath('redis-server')) {
    const reason =
      'redis-server is not on PATH and CHATSTATE_TEST_REDIS_URL is not set (apt-get install -y redis-server)';
    if (process.env.CI === 'true') throw new Error(`CI=true requires the Redis tests to run, but ${reason}`);
    return { skip: reason };
  }
  const dir = mkdtempSync(join(tmpdir(), 'chatstate-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  let lastError: unknown;
  // A free port can be taken between the probe and the server's bind: try a few.
  for (let attempt = 0; attempt < 5 && child === undefined; attempt += 1) {
    port = await freePort();
    try {
      child = await launch(port, dir, durable);
    } catch (error) {
      lastError = error;
    }
  }
  if (child === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw lastError;
  }
  // Replaced by `restart`.
  let server = child;
  // A worker that dies without running afterAll must not leave the server behind.
  const killOnExit = (): void => void server.kill('SIGKILL');
  process.once('exit', killOnExit);
  const running = (): boolean => server.exitCode === null && server.signalCode === null;
  const ended = (signal: NodeJS.Signals): Promise<void> => {
    if (!running()) return Promise.resolve();
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    server.kill(signal);
    return exited;
  };
  const serverPort = port;
  return {
    url: `redis://127.0.0.1:${port}`,
    throwaway: true,
    async stop() {
      process.removeListener('exit', killOnExit);
      await ended('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => ended('SIGKILL'),
    async restart() {
      if (running()) throw new Error('redis-server is still running: kill it first');
      server = await launch(serverPort, dir, durable);
    },
  };
}

/** Deletes every key under `prefix` (hex and colons only, so it is a literal SCAN pattern) through `admin`. */
export async function deleteKeysUnder(admin: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** How each type of key is read whole (the raw reply, never `DUMP`: an RDB payload may be compressed). */
const READ_WHOLE: Readonly<Record<string, readonly string[]>> = {
  string: ['GET'],
  hash: ['HGETALL'],
  list: ['LRANGE', '0', '-1'],
  set: ['SMEMBERS'],
  zset: ['ZRANGE', '0', '-1', 'WITHSCORES'],
  stream: ['XRANGE', '-', '+'],
};

/** Every buffer of a reply, nested arrays (a stream's entries) flattened, numbers as text. */
function replyBytes(reply: unknown): Buffer[] {
  if (Buffer.isBuffer(reply)) return [reply];
  if (Array.isArray(reply)) return reply.flatMap(replyBytes);
  return reply === null || reply === undefined ? [] : [Buffer.from(String(reply))];
}

/**
 * Everything `node` holds under `prefix` (hex and colons only, so it is a literal SCAN pattern):
 * each key's name, then its whole value as the server returns it, one item a line. A type it
 * cannot read fails, so a new kind of key is not silently left out of a scan.
 */
export async function keyContents(node: Redis, prefix: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await node.scanBuffer(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    for (const key of keys) {
      const type = await node.type(key);
      // Expired or deleted between the SCAN and the TYPE.
      if (type === 'none') continue;
      const read = READ_WHOLE[type];
      if (read === undefined) throw new Error(`keyContents: key ${key.toString()} is a ${type}, which it cannot read`);
      const [command, ...args] = read as [string, ...string[]];
      parts.push(key, ...replyBytes(await node.callBuffer(command, [key, ...args])));
    }
    cursor = next.toString();
  } while (cursor !== '0');
  return Buffer.concat(parts.flatMap((part) => [part, Buffer.from('\n')]));
}
