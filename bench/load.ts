/**
 * Many servers, one database: autocannon against 1 and against 3 `chatstate serve` processes on
 * one Postgres, the same total connections, multi-session traffic (appends with If-Match to many
 * sessions, tail reads, lists, probes of another tenant), rounds interleaved. Reports throughput,
 * latency, the 3-to-1 ratio (target ≥ 2×), lost or doubled appends and cross-tenant reads (both
 * must be 0), and the CPU each process used — on a machine of N cores, N bounds the ratio.
 *
 * Sizes: `BENCH_LOAD_SECONDS` (default 15) a round, `BENCH_LOAD_ROUNDS` (default 3),
 * `BENCH_LOAD_CONNECTIONS` (default 24 in all), `BENCH_LOAD_SESSIONS` (default 64).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { newKey } from '../src/server/auth/api-keys.js';
import { adminQuery, freshSchema } from '../test/support/postgres-server.js';
import { exactlyOnceProblems, runLoad, type LoadOutcome } from '../test/support/load-traffic.js';
import { startServe, type ServeProcess } from '../test/support/serve-process.js';
import { startProtocolServer } from '../test/support/protocol-server.js';
import { scriptedProvider } from '../test/support/scripted-provider.js';
import { modelSpec, providerEnv } from '../test/server/agent-configs.js';
import { envNumber, formatCount, formatMs, formatRatio, median, verdict, type SuiteReport } from './harness.js';
import { cpuOf, cpuSeconds } from './process-cpu.js';
import { benchDir, postgresServer, removeBenchDir } from './store-fixtures.js';

const SECONDS = envNumber('BENCH_LOAD_SECONDS', 15);
const ROUNDS = envNumber('BENCH_LOAD_ROUNDS', 3);
const CONNECTIONS = envNumber('BENCH_LOAD_CONNECTIONS', 24);
const SESSIONS = envNumber('BENCH_LOAD_SESSIONS', 64);
const TARGET = 2;

/** The pids of the Postgres server's processes (backends and its own workers), by asking it. */
export async function postgresPids(url: string): Promise<number[]> {
  const result = await adminQuery(url, 'SELECT pid FROM pg_stat_activity');
  return result.rows.map((row: { pid: number }) => row.pid);
}

interface Round {
  readonly servers: number;
  readonly outcome: LoadOutcome;
  readonly problems: readonly string[];
  /** CPU used during the round, as a share of one core: the servers together, Postgres, this process. */
  readonly cpu: { readonly servers: number; readonly postgres: number; readonly generator: number };
}

/** One round through the first `count` servers. */
async function round(
  servers: readonly ServeProcess[],
  count: number,
  keys: { a: string },
  victim: { sessions: readonly string[]; token: string },
  sessions: readonly string[],
  turnSessions: readonly string[],
  postgresUrl: string,
  index: number,
): Promise<Round> {
  const used = servers.slice(0, count);
  const postgresBefore = cpuOf(await postgresPids(postgresUrl));
  const before = {
    servers: used.map((server) => cpuSeconds(server.child.pid) ?? 0),
    generator: process.cpuUsage(),
  };
  const outcome = await runLoad({
    servers: used.map((server) => server.url),
    key: keys.a,
    sessions,
    victim,
    connectionsPerServer: Math.max(1, Math.round(CONNECTIONS / count)),
    durationSeconds: SECONDS,
    turns: { sessions: turnSessions },
    runId: `bench${count}r${index}`,
  });
  const serversCpu = used.reduce(
    (sum, server, n) => sum + ((cpuSeconds(server.child.pid) ?? 0) - (before.servers[n] as number)),
    0,
  );
  const generator = process.cpuUsage(before.generator);
  // Backends that lived through the round (the servers' pools keep theirs).
  let postgresCpu = 0;
  for (const [pid, seconds] of cpuOf(await postgresPids(postgresUrl)))
    postgresCpu += seconds - (postgresBefore.get(pid) ?? seconds);
  const cpu = {
    servers: serversCpu / outcome.seconds,
    postgres: postgresCpu / outcome.seconds,
    generator: (generator.user + generator.system) / 1e6 / outcome.seconds,
  };
  const problems = await exactlyOnceProblems(
    outcome,
    async (session) => {
      const response = await fetch(`${(servers[0] as ServeProcess).url}/sessions/${session}`, {
        headers: { authorization: `Bearer ${keys.a}` },
      });
      return ((await response.json()) as { messages: Array<{ id: string; seq: number }> }).messages;
    },
    sessions,
  );
  return { servers: count, outcome, problems, cpu };
}

/** The load suite. */
export async function runLoadBench(): Promise<SuiteReport> {
  const postgres = await postgresServer();
  if (typeof postgres === 'string') throw new Error(`load: no Postgres server (${postgres})`);
  const dir = benchDir('load');
  const tenantA = newKey({ tenant: 'tenant-a', role: 'admin' });
  const tenantB = newKey({ tenant: 'tenant-b', role: 'admin' });
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ keys: [tenantA.entry, tenantB.entry] }));
  const store = `${postgres.url}?schema=${freshSchema('bench_load')}`;
  const servers: ServeProcess[] = [];
  const rounds: Round[] = [];
  // Turns run against a local model server (OpenAI's wire), in this process like the load generator.
  const model = await startProtocolServer();
  model.respondWith(scriptedProvider);
  const agentsFile = join(dir, 'agents.json');
  writeFileSync(agentsFile, JSON.stringify({ agents: [{ id: 'guide', model: modelSpec('openaiChat') }] }));
  try {
    for (let n = 0; n < 3; n++)
      servers.push(
        await startServe(['--store', store, '--keys', keysFile, '--agents', agentsFile], providerEnv(model.url)),
      );
    const first = (servers[0] as ServeProcess).url;
    const create = async (key: string, body: unknown) => {
      const response = await fetch(`${first}/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 201) throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
    };
    const token = `victim${randomBytes(6).toString('hex')}`;
    const victim = { sessions: ['chat-b', 'notes-b'], token };
    for (const id of victim.sessions)
      await create(tenantB.secret, { id, messages: [{ id: 'b1', role: 'user', content: `${token} private` }] });
    // Interleaved: 1, 3, 1, 3, … — each round on sessions of its own.
    for (let index = 0; index < ROUNDS; index++)
      for (const count of [1, 3]) {
        const sessions = Array.from({ length: SESSIONS }, (_, n) => `r${index}-s${count}-${n}`);
        for (const id of sessions) await create(tenantA.secret, { id });
        const turnSessions = Array.from({ length: SESSIONS / 4 }, (_, n) => `r${index}-t${count}-${n}`);
        rounds.push(
          await round(servers, count, { a: tenantA.secret }, victim, sessions, turnSessions, postgres.url, index),
        );
      }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await model.close();
    removeBenchDir(dir);
  }

  const of = (count: number) => rounds.filter((entry) => entry.servers === count);
  const ratios = of(1).map((one, n) => (of(3)[n] as Round).outcome.perSecond / one.outcome.perSecond);
  const ratio = median(ratios);
  const rows = [1, 3].map((count) => {
    const runs = of(count);
    const pick = (value: (entry: Round) => number) => median(runs.map(value));
    const lostOrDoubled = runs.reduce((sum, entry) => sum + entry.problems.length, 0);
    return [
      `${count} server${count > 1 ? 's' : ''}`,
      `${formatCount(pick((entry) => entry.outcome.perSecond))}/s`,
      `${formatCount(pick((entry) => entry.outcome.acknowledged / entry.outcome.seconds))}/s`,
      `${formatCount(pick((entry) => entry.outcome.turns / entry.outcome.seconds))}/s`,
      `${formatMs(pick((entry) => entry.outcome.latencyP50Ms))} / ${formatMs(pick((entry) => entry.outcome.latencyP99Ms))}`,
      formatCount(runs.reduce((sum, entry) => sum + entry.outcome.stale, 0)),
      String(lostOrDoubled),
      String(runs.reduce((sum, entry) => sum + entry.outcome.crossTenantReads, 0)),
      `${pick((entry) => entry.cpu.servers * 100).toFixed(0)}% / ${pick((entry) => entry.cpu.postgres * 100).toFixed(0)}% / ${pick((entry) => entry.cpu.generator * 100).toFixed(0)}%`,
    ];
  });
  const problems = rounds.flatMap((entry) => [...entry.problems, ...entry.outcome.unexpected]);
  const cores = cpus().length;
  return {
    name: 'load',
    title: 'Many servers on one Postgres (autocannon)',
    tables: [
      {
        title: `${CONNECTIONS} connections in all, ${SESSIONS} sessions a round, ${SECONDS} s a round, ${ROUNDS} rounds of each interleaved (medians); 3 servers against 1: ${formatRatio(ratio)} (target ≥ ${TARGET}×: ${verdict(ratio >= TARGET)})`,
        headers: [
          'Servers',
          'Requests',
          'Acknowledged appends',
          'Turns',
          'Latency p50 / p99',
          '412 (retried)',
          'Lost or doubled',
          'Cross-tenant reads',
          'CPU: servers / Postgres / load generator',
        ],
        rows,
      },
    ],
    notes: [
      `The traffic per connection loops: append (If-Match; a 412 names the version now and the same message id is retried), tail read, append, list of 20, a probe of another tenant's session (must be 400/404), an agent turn (OpenAI Chat Completions against a local model server in the load generator's process; ${SESSIONS / 4} turn sessions a round). After each round every session is read back: every acknowledged append stored exactly once, seqs 1..n.`,
      `CPU is each process's user + system time during the round, as a share of one core; this machine has ${cores} cores, shared by the servers, Postgres and the load generator (this process), so ${cores} cores in all bound what more servers can add.`,
      ...(problems.length === 0 ? [] : [`Problems: ${problems.slice(0, 10).join('; ')}`]),
    ],
  };
}
