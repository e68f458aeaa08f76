/**
 * The HTTP layer's cost: an append through `POST /sessions/{id}/messages` (a real HTTP round trip
 * on loopback, with an API key and the tenant's view) against a direct `store.append` on the same
 * store, interleaved round by round. The client runs in two places: in this process (its own CPU
 * on the server's thread, counted: the conservative figure) and in a process of its own (a caller
 * on the same machine, as a real one is). Reports p50 and p99, the p50 the HTTP layer adds
 * (target ≤ 0.5 ms), and the throughput ratio.
 * @module
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Session } from '../src/session/session.js';
import { KeyRing, newKey } from '../src/server/auth/api-keys.js';
import { startServer } from '../src/server/node.js';
import { tenantStore } from '../src/tenancy/tenant-store.js';
import { formatMs, formatRatio, median, verdict, type SuiteReport, type Table } from './harness.js';
import { AppendClient, message } from './http-appends.js';
import { now, openBenchStore, percentile, type StoreKind } from './store-fixtures.js';

const APPENDS_PER_ROUND = 200;
const ROUNDS = 5;
const WARMUP_ROUNDS = 3;
const TARGET_MS = 0.5;

/** Where the HTTP client runs. */
type Placement = 'in-process' | 'own-process';

/** A round of HTTP appends from the client, numbered from `first`; their times in ms. */
type HttpRound = (first: number, count: number) => Promise<number[]>;

/** The client in a child process, driven over IPC. */
async function childClient(url: string, key: string): Promise<{ round: HttpRound; stop(): Promise<void> }> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./http-client-child.ts', import.meta.url)),
    [url, 'http', key],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    round: (first, count) =>
      new Promise((resolve, reject) => {
        child.once('message', (answer: { times?: number[]; error?: string }) =>
          answer.times === undefined ? reject(new Error(answer.error)) : resolve(answer.times),
        );
        child.send({ first, count });
      }),
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}

/** Latencies of direct and HTTP appends on store `kind`, interleaved round by round. */
async function measure(
  kind: StoreKind,
  placement: Placement,
): Promise<{ direct: number[]; http: number[]; directMs: number[]; httpMs: number[] }> {
  const opened = await openBenchStore(kind, 'http-api');
  if (typeof opened === 'string') throw new Error(`${kind}: ${opened}`);
  const key = newKey({ tenant: 'bench', role: 'admin' });
  const server = await startServer({
    store: opened.store,
    port: 0,
    keys: new KeyRing([key.entry]),
    log: () => undefined,
  });
  // The direct side writes through the same tenant view, so only HTTP differs.
  const direct = tenantStore(opened.store, { tenant: 'bench' });
  await direct.save(Session.create({ id: 'direct' }));
  await direct.save(Session.create({ id: 'http' }));
  const local = placement === 'in-process' ? new AppendClient(server.url, 'http', key.secret) : undefined;
  const remote = placement === 'own-process' ? await childClient(server.url, key.secret) : undefined;
  const httpRound: HttpRound = async (first, count) => {
    if (remote !== undefined) return remote.round(first, count);
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(await (local as AppendClient).append(first + i));
    return times;
  };
  // Direct appends are numbered from 0, HTTP ones from 1e9: ids never meet.
  let n = 0;
  let h = 1e9;
  const directTimes: number[] = [];
  const httpTimes: number[] = [];
  const directRounds: number[] = [];
  const httpRounds: number[] = [];
  try {
    for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
      // The first rounds warm both paths up (JIT, connections) and are not counted.
      const d: number[] = [];
      for (let i = 0; i < APPENDS_PER_ROUND; i++) {
        const start = now();
        await direct.append('direct', [message(n++)]);
        d.push(now() - start);
      }
      const times = await httpRound(h, APPENDS_PER_ROUND);
      h += APPENDS_PER_ROUND;
      if (round < 0) continue;
      directTimes.push(...d);
      httpTimes.push(...times);
      directRounds.push(d.reduce((a, b) => a + b, 0));
      httpRounds.push(times.reduce((a, b) => a + b, 0));
    }
  } finally {
    local?.close();
    await remote?.stop();
    await server.close();
    await opened.dispose();
  }
  return { direct: directTimes, http: httpTimes, directMs: directRounds, httpMs: httpRounds };
}

/** The HTTP API suite. */
export async function runHttpApiBench(): Promise<SuiteReport> {
  const rows: string[][] = [];
  for (const placement of ['own-process', 'in-process'] as const)
    for (const kind of ['memory', 'file', 'sqlite'] as const) {
      const { direct, http, directMs, httpMs } = await measure(kind, placement);
      const added = percentile(http, 50) - percentile(direct, 50);
      const ratios = directMs.map((ms, i) => ms / (httpMs[i] as number));
      rows.push([
        kind,
        placement === 'own-process' ? 'its own process' : 'the server’s process',
        `${formatMs(percentile(direct, 50))} / ${formatMs(percentile(direct, 99))}`,
        `${formatMs(percentile(http, 50))} / ${formatMs(percentile(http, 99))}`,
        formatMs(added),
        formatRatio(median(ratios)),
        verdict(added <= TARGET_MS),
      ]);
    }
  const table: Table = {
    title: `Append round trip: HTTP API against a direct store.append (${ROUNDS} rounds × ${APPENDS_PER_ROUND} appends each, rounds interleaved; target: the HTTP layer adds ≤ ${TARGET_MS} ms at p50)`,
    headers: [
      'store',
      'client in',
      'direct p50 / p99',
      'HTTP p50 / p99',
      'added at p50',
      'throughput (direct = 1)',
      'target',
    ],
    rows,
  };
  return {
    name: 'http',
    title: 'HTTP API',
    tables: [table],
    notes: [
      'One client (node:http, one kept-alive connection on 127.0.0.1), one request at a time: in a process of its own (a caller on the same machine), or in the server’s own process (its CPU then runs on the server’s thread and is counted). The HTTP side includes the key check, the tenant view, request validation, the security headers, the JSON log line (discarded), the metrics and the change feed; the direct side writes through the same tenant view.',
      'The SQLite store commits synchronously (better-sqlite3): its fsync holds the event loop, so the server can do nothing else meanwhile — the same in both columns.',
    ],
  };
}
