/**
 * Scaling across processes, shown with CPU quotas: 1, 2, 3 and 4 `chatstate serve` processes on one
 * Postgres and on one three-master Redis Cluster, each server in a cgroup of its own with the same
 * CPU quota (`BENCH_SCALING_CORES`, default 0.2 of a core), small enough that the servers are the
 * bottleneck while the database and the load generator run unconstrained. Same traffic per server
 * (`BENCH_SCALING_CONNECTIONS` connections each, default 6): the multi-session mix of the load
 * suite (appends with If-Match, tail reads, lists, probes of another tenant). Reports throughput,
 * its ratio to one server (target: 3 servers ≥ 2.5×), p50/p99, CPU per process, lost or doubled
 * appends and cross-tenant reads (both must be 0), and how often the quota throttled the servers.
 *
 * Why quotas: this machine has 2 cores shared by the servers, the database and the generator; an
 * unconstrained run (the `load` suite) measures that sharing, not what another server adds.
 * Sizes: `BENCH_SCALING_SECONDS` (default 10) a round, `BENCH_SCALING_ROUNDS` (default 3), after a
 * warm-up of every server (`BENCH_SCALING_WARMUP_SECONDS`, default 8),
 * `BENCH_SCALING_SESSIONS` (default 48), `BENCH_SCALING_BACKENDS` (default `postgres,redis-cluster`).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { newKey } from '../src/server/auth/api-keys.js';
import { freshSchema } from '../test/support/postgres-server.js';
import { exactlyOnceProblems, runLoad, type LoadOutcome } from '../test/support/load-traffic.js';
import { redisClusterTestServer } from '../test/support/redis-cluster.js';
import { startServe, type ServeProcess } from '../test/support/serve-process.js';
import { cpuQuota, type CpuQuota } from './cpu-quota.js';
import {
  envNumber,
  formatCount,
  formatMs,
  formatRatio,
  median,
  verdict,
  type SuiteReport,
  type Table,
} from './harness.js';
import { postgresPids } from './load.js';
import { cpuOf, cpuSeconds, cpuSince } from './process-cpu.js';
import { benchDir, postgresServer, removeBenchDir } from './store-fixtures.js';

const CORES = envNumber('BENCH_SCALING_CORES', 0.2, { integer: false });
const SECONDS = envNumber('BENCH_SCALING_SECONDS', 10);
const ROUNDS = envNumber('BENCH_SCALING_ROUNDS', 3);
const CONNECTIONS = envNumber('BENCH_SCALING_CONNECTIONS', 6);
const SESSIONS = envNumber('BENCH_SCALING_SESSIONS', 48);
const WARMUP_SECONDS = envNumber('BENCH_SCALING_WARMUP_SECONDS', 8);
const BACKENDS = (process.env.BENCH_SCALING_BACKENDS ?? 'postgres,redis-cluster').split(',').map((name) => name.trim());
const COUNTS = [1, 2, 3, 4] as const;
const TARGET = 2.5;

/** A database the servers share: its store URL, how to find its processes, and how to stop it. */
interface Backend {
  readonly name: string;
  readonly store: string;
  pids(): Promise<number[]>;
  stop(): Promise<void>;
}

async function postgresBackend(): Promise<Backend> {
  const postgres = await postgresServer();
  if (typeof postgres === 'string') throw new Error(`scaling: no Postgres server (${postgres})`);
  return {
    name: 'Postgres',
    store: `${postgres.url}?schema=${freshSchema('bench_scaling')}`,
    pids: () => postgresPids(postgres.url),
    // The bench's shared Postgres is stopped with the others at the end of the run.
    stop: async () => undefined,
  };
}

async function redisClusterBackend(): Promise<Backend> {
  const cluster = await redisClusterTestServer();
  if (cluster.url === undefined) throw new Error(`scaling: no Redis Cluster (${cluster.skip})`);
  const ports = cluster.url
    .replace(/^redis\+cluster:\/\//, '')
    .split(',')
    .map((host) => Number(host.split(':')[1]));
  // Each master says its process id.
  const pids = await Promise.all(
    ports.map(async (port) => {
      const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
      try {
        await client.connect();
        return Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
      } finally {
        client.disconnect();
      }
    }),
  );
  return {
    name: 'Redis Cluster (3 masters)',
    store: `${cluster.url}?prefix=${encodeURIComponent(`scaling${randomBytes(4).toString('hex')}:`)}`,
    pids: async () => pids,
    stop: () => cluster.stop(),
  };
}

interface Round {
  readonly servers: number;
  readonly outcome: LoadOutcome;
  readonly problems: readonly string[];
  /** CPU used during the round as a share of one core: each server, the database, this process. */
  readonly cpu: { readonly perServer: readonly number[]; readonly database: number; readonly generator: number };
  /** Share of scheduler periods in which the servers' quota throttled them. */
  readonly throttled: number;
}

async function round(
  backend: Backend,
  servers: readonly ServeProcess[],
  quotas: readonly CpuQuota[],
  count: number,
  key: string,
  victim: { sessions: readonly string[]; token: string },
  index: number,
  seconds: number = SECONDS,
): Promise<Round> {
  const used = servers.slice(0, count);
  const first = (servers[0] as ServeProcess).url;
  const sessions = Array.from({ length: SESSIONS }, (_, n) => `r${index < 0 ? 'warm' : index}-s${count}-${n}`);
  for (const id of sessions) {
    const response = await fetch(`${first}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
  }
  const databaseBefore = cpuOf(await backend.pids());
  const serversBefore = used.map((server) => cpuSeconds(server.child.pid) ?? 0);
  const throttledBefore = quotas.slice(0, count).map((quota) => quota.throttled());
  const generatorBefore = process.cpuUsage();
  const outcome = await runLoad({
    servers: used.map((server) => server.url),
    key,
    sessions,
    victim,
    connectionsPerServer: CONNECTIONS,
    durationSeconds: seconds,
    runId: `scale${count}r${index < 0 ? 'warm' : index}`,
  });
  const generator = process.cpuUsage(generatorBefore);
  const perServer = used.map(
    (server, n) => ((cpuSeconds(server.child.pid) ?? 0) - (serversBefore[n] as number)) / outcome.seconds,
  );
  const database = cpuSince(databaseBefore, await backend.pids()) / outcome.seconds;
  let periods = 0;
  let throttledPeriods = 0;
  quotas.slice(0, count).forEach((quota, n) => {
    const now = quota.throttled();
    const before = throttledBefore[n] as { periods: number; throttledPeriods: number };
    periods += now.periods - before.periods;
    throttledPeriods += now.throttledPeriods - before.throttledPeriods;
  });
  const problems = await exactlyOnceProblems(
    outcome,
    async (session) => {
      const response = await fetch(`${first}/sessions/${session}`, { headers: { authorization: `Bearer ${key}` } });
      return ((await response.json()) as { messages: Array<{ id: string; seq: number }> }).messages;
    },
    sessions,
  );
  return {
    servers: count,
    outcome,
    problems,
    cpu: { perServer, database, generator: (generator.user + generator.system) / 1e6 / outcome.seconds },
    throttled: periods === 0 ? 0 : throttledPeriods / periods,
  };
}

/** Every round on one backend. */
async function measure(backend: Backend): Promise<Round[]> {
  const dir = benchDir('scaling');
  const tenantA = newKey({ tenant: 'tenant-a', role: 'admin' });
  const tenantB = newKey({ tenant: 'tenant-b', role: 'admin' });
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ keys: [tenantA.entry, tenantB.entry] }));
  const servers: ServeProcess[] = [];
  const quotas: CpuQuota[] = [];
  const rounds: Round[] = [];
  try {
    for (let n = 0; n < COUNTS.at(-1)!; n++) {
      const server = await startServe(['--store', backend.store, '--keys', keysFile, '--no-web']);
      servers.push(server);
      const quota = cpuQuota(`serve-${n}`, CORES);
      if (typeof quota === 'string') throw new Error(`scaling: ${quota}`);
      quotas.push(quota);
      quota.add(server.child.pid as number);
    }
    const token = `victim${randomBytes(6).toString('hex')}`;
    const victim = { sessions: ['chat-b', 'notes-b'], token };
    for (const id of victim.sessions) {
      const response = await fetch(`${(servers[0] as ServeProcess).url}/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenantB.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, messages: [{ id: 'b1', role: 'user', content: `${token} private` }] }),
      });
      if (response.status !== 201) throw new Error(`seeding answered ${response.status}`);
    }
    // Every server warmed up first (its JIT compiled within its quota, the database's caches filled):
    // otherwise each count's first round holds a cold server, a larger share of one server's than of four's.
    await round(backend, servers, quotas, servers.length, tenantA.secret, victim, -1, WARMUP_SECONDS);
    // Rounds interleaved (1, 2, 3, 4, 1, 2, …) so that a drift of the machine touches every count alike.
    for (let index = 0; index < ROUNDS; index++)
      for (const count of COUNTS)
        rounds.push(await round(backend, servers, quotas, count, tenantA.secret, victim, index));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    for (const quota of quotas) quota.remove();
    await backend.stop();
    removeBenchDir(dir);
  }
  return rounds;
}

function table(backend: Backend, rounds: readonly Round[]): { table: Table; ratio3: number } {
  const of = (count: number) => rounds.filter((entry) => entry.servers === count);
  const perSecond = (count: number) => median(of(count).map((entry) => entry.outcome.perSecond));
  const one = perSecond(1);
  const ratio3 = perSecond(3) / one;
  const rows = COUNTS.map((count) => {
    const runs = of(count);
    const pick = (value: (entry: Round) => number) => median(runs.map(value));
    return [
      String(count),
      `${formatCount(perSecond(count))}/s`,
      formatRatio(perSecond(count) / one),
      `${formatMs(pick((entry) => entry.outcome.latencyP50Ms))} / ${formatMs(pick((entry) => entry.outcome.latencyP99Ms))}`,
      `${(pick((entry) => median(entry.cpu.perServer)) * 100).toFixed(0)}%`,
      `${(pick((entry) => entry.cpu.database) * 100).toFixed(0)}%`,
      `${(pick((entry) => entry.cpu.generator) * 100).toFixed(0)}%`,
      `${(pick((entry) => entry.throttled) * 100).toFixed(0)}%`,
      String(runs.reduce((sum, entry) => sum + entry.problems.length, 0)),
      String(runs.reduce((sum, entry) => sum + entry.outcome.crossTenantReads, 0)),
    ];
  });
  return {
    ratio3,
    table: {
      title: `${backend.name}: each server limited to ${CORES} of a core; 3 servers against 1: ${formatRatio(ratio3)} (target ≥ ${TARGET}×: ${verdict(ratio3 >= TARGET)})`,
      headers: [
        'Servers',
        'Requests',
        'Against 1',
        'Latency p50 / p99',
        'CPU per server',
        'CPU database',
        'CPU load generator',
        'Periods throttled',
        'Lost or doubled',
        'Cross-tenant reads',
      ],
      rows,
    },
  };
}

/** The scaling suite. */
export async function runScalingBench(): Promise<SuiteReport> {
  const tables: Table[] = [];
  const problems: string[] = [];
  for (const name of BACKENDS) {
    const backend = name === 'postgres' ? await postgresBackend() : await redisClusterBackend();
    const rounds = await measure(backend);
    tables.push(table(backend, rounds).table);
    problems.push(...rounds.flatMap((entry) => [...entry.problems, ...entry.outcome.unexpected]));
  }
  return {
    name: 'scaling',
    title: 'Many servers with CPU quotas: 1 to 4 servers on one Postgres and on one Redis Cluster',
    tables,
    notes: [
      `Method: each \`chatstate serve\` runs in a cgroup (v1 \`cpu\` controller) of its own with \`cpu.cfs_quota_us\` = ${Math.round(CORES * 100_000)} of a 100,000 µs period (${CORES} of a core); the database and the load generator (autocannon in this process) run unconstrained on the machine's 2 cores. Every server gets ${CONNECTIONS} connections, so the offered load grows with the servers and each server is saturated; after ${WARMUP_SECONDS} s of traffic through all of them (unmeasured: a cold server's JIT compiles within its quota), ${ROUNDS} rounds of ${SECONDS} s per count, interleaved, medians.`,
      `Traffic per connection loops: append (If-Match; a 412 names the version now and the same message id is retried), tail read, append, list of 20, a probe of another tenant's session (must be 400/404), over ${SESSIONS} fresh sessions a round. After each round every session is read back: every acknowledged append stored exactly once, seqs 1..n. No agent turns (the load suite has them).`,
      '"CPU per server" is the median server\'s user + system time as a share of one core (at most the quota); "Periods throttled" is the share of scheduler periods in which the quota stopped a server: near 100% means the servers, not the database or the generator, set the pace.',
      ...(problems.length === 0 ? [] : [`Problems: ${problems.slice(0, 10).join('; ')}`]),
    ],
  };
}
