/**
 * The stores the CLI tests run against, one matrix: memory, file, sqlite, postgres (a throwaway
 * cluster, or CHATSTATE_TEST_POSTGRES_URL), redis (a throwaway server, or
 * CHATSTATE_TEST_REDIS_URL) and redis-cluster (a throwaway three-master Redis Cluster, or
 * CHATSTATE_TEST_REDIS_CLUSTER_URL). Each gives a fresh URL per test; a store that cannot run here
 * is skipped with its reason (under CI=true, Postgres, Redis and the Redis Cluster must run).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgres, freshSchema, type PostgresTestServer } from '../support/postgres-server.js';
import { redisClusterTestServer, type RedisClusterTestServer } from '../support/redis-cluster.js';
import { redisTestServer, type RedisTestServer } from '../support/redis-server.js';
import { storesToTest } from '../support/stores-under-test.js';

/** One store of the matrix. */
export interface CliStore {
  readonly name: string;
  /**
   * True when what the test process writes at the URL is what a CLI process reads there. False for
   * `memory:`, which lives in one process: a test that seeds sessions first cannot apply to it.
   */
  readonly shared: boolean;
  /** Starts what the store needs (a server); returns why it cannot run here, if so. */
  start(): Promise<string | undefined>;
  /** A URL no other test uses. */
  freshUrl(): Promise<string>;
  /** Removes what `start` and `freshUrl` made. */
  stop(): Promise<void>;
}

function withTempDirs(name: string, url: (dir: string) => string): CliStore {
  const dirs: string[] = [];
  return {
    name,
    shared: true,
    start: async () => undefined,
    async freshUrl() {
      const dir = await mkdtemp(join(tmpdir(), `chatstate-cli-${name}-`));
      dirs.push(dir);
      return url(dir);
    },
    async stop() {
      await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

function postgres(): CliStore {
  let server: PostgresTestServer | undefined;
  return {
    name: 'postgres',
    shared: true,
    async start() {
      const found = findPostgres();
      if (!found.ok) {
        if (process.env.CI === 'true') throw new Error(`CI=true and no Postgres server: ${found.reason}`);
        return found.reason;
      }
      server = await found.start();
      return undefined;
    },
    async freshUrl() {
      if (server === undefined) throw new Error('the Postgres server did not start');
      const url = new URL(server.url);
      url.searchParams.set('schema', freshSchema('cli'));
      return url.toString();
    },
    async stop() {
      await server?.stop();
    },
  };
}

function redis(): CliStore {
  let server: RedisTestServer | undefined;
  return {
    name: 'redis',
    shared: true,
    async start() {
      server = await redisTestServer();
      return server.url === undefined ? server.skip : undefined;
    },
    async freshUrl() {
      if (server?.url === undefined) throw new Error('the Redis server did not start');
      const url = new URL(server.url);
      url.searchParams.set('prefix', `cli${randomBytes(5).toString('hex')}:`);
      return url.toString();
    },
    async stop() {
      if (server?.url !== undefined) await server.stop();
    },
  };
}

function redisCluster(): CliStore {
  let server: RedisClusterTestServer | undefined;
  return {
    name: 'redis-cluster',
    shared: true,
    async start() {
      server = await redisClusterTestServer();
      return server.url === undefined ? server.skip : undefined;
    },
    async freshUrl() {
      if (server?.url === undefined) throw new Error('the Redis Cluster did not start');
      return `${server.url}?prefix=cli${randomBytes(5).toString('hex')}:`;
    },
    async stop() {
      if (server?.url !== undefined) await server.stop();
    },
  };
}

/** The stores of the matrix this run tests (`CHATSTATE_TEST_STORES`, else every one). */
export function cliStores(): CliStore[] {
  const stores: CliStore[] = [
    {
      name: 'memory',
      shared: false,
      start: async () => undefined,
      freshUrl: async () => 'memory:',
      stop: async () => undefined,
    },
    withTempDirs('file', (dir) => `file:${join(dir, 'store')}`),
    withTempDirs('sqlite', (dir) => `sqlite:${join(dir, 'chat.db')}`),
    postgres(),
    redis(),
    redisCluster(),
  ];
  const chosen = new Set(storesToTest(stores.map((store) => store.name)));
  return stores.filter((store) => chosen.has(store.name));
}
