/**
 * A Redis Cluster for the Redis store's tests: `CHATSTATE_TEST_REDIS_CLUSTER_URL` when it is set
 * (a `redis+cluster://` URL), else a throwaway cluster of three masters — three `redis-server
 * --cluster-enabled yes` on loopback, each in its own temporary directory, joined by `redis-cli
 * --cluster create … --cluster-replicas 0` — started for one test file and killed after it (and
 * when the worker exits, and when the start fails half-way). Without the binaries the suite is
 * skipped with its reason, except under `CI=true`, where that is a failure.
 *
 * The nodes run with `cluster-require-full-coverage no`, so that while one master is down the
 * others keep serving their slots, and a small `cluster-node-timeout`. With `{ durable: true }`
 * they run with `appendonly yes` and `appendfsync always`: a node killed with SIGKILL and started
 * again on its port and directory (its `nodes.conf` there) rejoins with everything it acknowledged.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, type ClusterOptions } from 'ioredis';
import { parseClusterUrl } from '../../src/stores/redis/cluster.js';
import { CLUSTER_BUCKETS, bucketOf } from '../../src/stores/redis/layout.js';
import { keyContents, onPath, spawnRedis } from './redis-server.js';

const run = promisify(execFile);

/** One master of a throwaway cluster. */
export interface ClusterTestNode {
  readonly port: number;
  /** True while its process runs. */
  running(): boolean;
  /** SIGKILLs the node (no shutdown, no final save) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts a killed node again on the same port and directory. */
  restart(): Promise<void>;
  /** SIGSTOPs the node: it keeps its connections and answers nothing (a stalled server). */
  pause(): void;
  /** SIGCONTs a paused node. */
  resume(): void;
}

/** A running cluster, or why there is none. */
export type RedisClusterTestServer =
  | {
      /** `redis+cluster://127.0.0.1:<port>,…` */
      readonly url: string;
      readonly throwaway: boolean;
      /** The masters of a throwaway cluster (none for an external one). */
      readonly nodes: readonly ClusterTestNode[];
      /** Resolves when every running node reports `cluster_state:ok` and knows every node. */
      healthy(timeoutMs?: number): Promise<void>;
      stop(): Promise<void>;
    }
  | { readonly url?: undefined; readonly skip: string };

/** How the throwaway cluster runs. */
export interface RedisClusterOptions {
  /** `appendonly yes` + `appendfsync always`: every acknowledged write survives a kill. @default false */
  readonly durable?: boolean;
}

const MASTERS = 3;
// A node's cluster bus listens on its port + 10000, which must be a port too.
const LOWEST_PORT = 20_000;
const HIGHEST_PORT = 55_535;
const HEALTHY_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A port at most 55535 that is free, and whose bus port (+10000) is free too. */
async function freeClusterPort(taken: ReadonlySet<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (HIGHEST_PORT - LOWEST_PORT + 1));
    if (taken.has(port) || taken.has(port + 10_000) || taken.has(port - 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

/** `CLUSTER INFO` of the node on `port`, as fields. */
async function clusterInfo(port: number): Promise<Map<string, string>> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'cluster', 'info'], {
    timeout: 5000,
  });
  const fields = new Map<string, string>();
  for (const line of stdout.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

class ThrowawayNode implements ClusterTestNode {
  private child: ChildProcess | undefined;

  constructor(
    readonly port: number,
    readonly dir: string,
    private readonly durable: boolean,
  ) {}

  async start(): Promise<void> {
    const persistence = this.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    this.child = await spawnRedis([
      '--port',
      String(this.port),
      '--dir',
      this.dir,
      ...persistence,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      '1000',
      // While one master is down, the others keep serving their own slots.
      '--cluster-require-full-coverage',
      'no',
    ]);
  }

  running(): boolean {
    const child = this.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Sends `signal` and waits for the exit. */
  async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running()) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // A paused node ends only once it runs again.
    child.kill('SIGCONT');
    child.kill(signal);
    await exited;
  }

  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  async restart(): Promise<void> {
    if (this.running()) throw new Error(`the node on ${this.port} is still running: kill it first`);
    await this.start();
  }

  pause(): void {
    if (this.running()) this.child?.kill('SIGSTOP');
  }

  resume(): void {
    if (this.running()) this.child?.kill('SIGCONT');
  }

  /** Synchronous, for the worker's exit handler. */
  killNow(): void {
    if (this.running()) this.child?.kill('SIGKILL');
  }
}

async function healthy(nodes: readonly ThrowawayNode[], timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const live = nodes.filter((node) => node.running());
    try {
      const infos = await Promise.all(live.map((node) => clusterInfo(node.port)));
      const bad = infos.find(
        (info) =>
          info.get('cluster_state') !== 'ok' ||
          info.get('cluster_slots_assigned') !== '16384' ||
          info.get('cluster_known_nodes') !== String(nodes.length),
      );
      if (bad === undefined) return;
      last = [...bad].map(([key, value]) => `${key}:${value}`).join(' ');
    } catch (error) {
      last = String(error);
    }
    if (Date.now() > end) throw new Error(`the Redis Cluster is not healthy within ${timeoutMs} ms: ${last}`);
    await sleep(100);
  }
}

/** Starts three masters, joins them, and waits until the cluster serves every slot. */
async function startCluster(durable: boolean): Promise<RedisClusterTestServer> {
  const nodes: ThrowawayNode[] = [];
  const dirs: string[] = [];
  const killOnExit = (): void => {
    for (const node of nodes) node.killNow();
  };
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await Promise.all(nodes.map((node) => node.end('SIGTERM')));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set<number>();
    for (let index = 0; index < MASTERS; index += 1) {
      let lastError: unknown;
      // A free port can be taken between the probe and the server's bind: try a few.
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const port = await freeClusterPort(taken);
        const dir = mkdtempSync(join(tmpdir(), 'chatstate-redis-cluster-'));
        dirs.push(dir);
        const node = new ThrowawayNode(port, dir, durable);
        try {
          await node.start();
          nodes.push(node);
          taken.add(port);
          lastError = undefined;
          break;
        } catch (error) {
          lastError = error;
        }
      }
      if (lastError !== undefined) throw lastError;
    }
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { timeout: HEALTHY_TIMEOUT_MS },
    );
    await healthy(nodes, HEALTHY_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `redis+cluster://${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}`,
    throwaway: true,
    nodes,
    healthy: (timeoutMs = HEALTHY_TIMEOUT_MS) => healthy(nodes, timeoutMs),
    stop,
  };
}

/** The cluster for one test file; call `stop()` in `afterAll`. */
export async function redisClusterTestServer(options: RedisClusterOptions = {}): Promise<RedisClusterTestServer> {
  const given = process.env.CHATSTATE_TEST_REDIS_CLUSTER_URL;
  if (given !== undefined && given !== '')
    return { url: given, throwaway: false, nodes: [], healthy: async () => undefined, stop: async () => undefined };
  const missing = ['redis-server', 'redis-cli'].filter((binary) => !onPath(binary));
  if (missing.length > 0) {
    const reason = `${missing.join(' and ')} not on PATH and CHATSTATE_TEST_REDIS_CLUSTER_URL is not set (apt-get install -y redis-server)`;
    if (process.env.CI === 'true') throw new Error(`CI=true requires the Redis Cluster tests to run, but ${reason}`);
    return { skip: reason };
  }
  return startCluster(options.durable === true);
}

/** An `ioredis` `Cluster` on the nodes of a `redis+cluster://` URL, for the tests' own look at the keys. */
export function clusterAdmin(url: string, options: ClusterOptions = {}): Cluster {
  const parsed = parseClusterUrl(url, 'test');
  return new Cluster([...parsed.nodes], {
    ...options,
    redisOptions: {
      ...(parsed.username === undefined ? {} : { username: parsed.username }),
      ...(parsed.password === undefined ? {} : { password: parsed.password }),
      ...(parsed.tls ? { tls: {} } : {}),
    },
  });
}

/** Deletes every key under `prefix` (a literal SCAN pattern) on every master of `admin`. */
export async function deleteClusterKeysUnder(admin: Cluster, prefix: string): Promise<void> {
  for (const node of admin.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      // One key a command: keys of one node may lie in different slots.
      await Promise.all(keys.map((key) => node.del(key)));
      cursor = next;
    } while (cursor !== '0');
  }
}

/** Which master (by port) serves the bucket of a session id, as the cluster `url` has its slots now. */
export async function masterPortOf(url: string): Promise<(id: string) => number> {
  const admin = clusterAdmin(url);
  try {
    const slots = await admin.cluster('SLOTS');
    const ports = new Map<number, number>();
    for (let bucket = 0; bucket < CLUSTER_BUCKETS; bucket += 1) {
      // The slot of a bucket is the slot of its hash tag.
      const slot = Number(await admin.cluster('KEYSLOT', `{${bucket}}`));
      const master = slots.find(([start, end]) => start <= slot && slot <= end)?.[2];
      if (master === undefined) throw new Error(`slot ${slot} is served by no master`);
      ports.set(bucket, Number(master[1]));
    }
    return (id) => ports.get(bucketOf(id)) as number;
  } finally {
    await admin.quit();
  }
}

/** Everything the masters of `admin` hold under `prefix` (a literal SCAN pattern): `keyContents` of each. */
export async function clusterKeyContents(admin: Cluster, prefix: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const node of admin.nodes('master')) parts.push(await keyContents(node, prefix));
  return Buffer.concat(parts);
}
