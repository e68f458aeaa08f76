/**
 * The HTTP layer's cost: an append through `POST /sessions/{id}/messages` (a real HTTP round trip
 * on loopback, with an API key and the tenant's view) against a direct `store.append` on the same
 * store, interleaved round by round. Reports p50 and p99 of each, the p50 the HTTP layer adds
 * (target ≤ 0.5 ms), and the throughput ratio.
 * @module
 */
import { Agent, request } from 'node:http';
import { Session } from '../src/session/session.js';
import { KeyRing, newKey } from '../src/server/auth/api-keys.js';
import { startServer } from '../src/server/node.js';
import { tenantStore } from '../src/tenancy/tenant-store.js';
import { formatMs, formatRatio, median, verdict, type SuiteReport, type Table } from './harness.js';
import { now, openBenchStore, percentile, type StoreKind } from './store-fixtures.js';

const APPENDS_PER_ROUND = 200;
const ROUNDS = 5;
const WARMUP_ROUNDS = 3;
const TARGET_MS = 0.5;

/** One message of append number `n` (ids unique across the whole run). */
function message(n: number): { id: string; role: 'user'; content: string } {
  return { id: `m-${n}`, role: 'user', content: `message ${n}: where should we eat tonight?` };
}

/** POSTs `body` to `url` over `agent`'s kept-alive connection; resolves with the status and body. */
function post(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Latencies of direct and HTTP appends on store `kind`, interleaved round by round. */
async function measure(
  kind: StoreKind,
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
  const headers = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };
  const url = new URL(`${server.url}/sessions/http/messages`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let n = 0;
  const directTimes: number[] = [];
  const httpTimes: number[] = [];
  const directRounds: number[] = [];
  const httpRounds: number[] = [];
  try {
    for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
      // The first rounds warm both paths up (JIT, connections) and are not counted.
      const d: number[] = [];
      const h: number[] = [];
      for (let i = 0; i < APPENDS_PER_ROUND; i++) {
        let start = now();
        await direct.append('direct', [message(n++)]);
        d.push(now() - start);
        start = now();
        const response = await post(agent, url, headers, JSON.stringify({ messages: [message(n++)] }));
        if (response.status !== 200) throw new Error(`append answered ${response.status}: ${response.text}`);
        h.push(now() - start);
      }
      if (round < 0) continue;
      directTimes.push(...d);
      httpTimes.push(...h);
      directRounds.push(d.reduce((a, b) => a + b, 0));
      httpRounds.push(h.reduce((a, b) => a + b, 0));
    }
  } finally {
    agent.destroy();
    await server.close();
    await opened.dispose();
  }
  return { direct: directTimes, http: httpTimes, directMs: directRounds, httpMs: httpRounds };
}

/** The HTTP API suite. */
export async function runHttpApiBench(): Promise<SuiteReport> {
  const rows: string[][] = [];
  for (const kind of ['memory', 'file', 'sqlite'] as const) {
    const { direct, http, directMs, httpMs } = await measure(kind);
    const added = percentile(http, 50) - percentile(direct, 50);
    const ratios = directMs.map((ms, i) => ms / (httpMs[i] as number));
    rows.push([
      kind,
      `${formatMs(percentile(direct, 50))} / ${formatMs(percentile(direct, 99))}`,
      `${formatMs(percentile(http, 50))} / ${formatMs(percentile(http, 99))}`,
      formatMs(added),
      formatRatio(median(ratios)),
      verdict(added <= TARGET_MS),
    ]);
  }
  const table: Table = {
    title: `Append round trip: HTTP API against a direct store.append (${ROUNDS} rounds × ${APPENDS_PER_ROUND} appends each, interleaved; target: the HTTP layer adds ≤ ${TARGET_MS} ms at p50)`,
    headers: ['store', 'direct p50 / p99', 'HTTP p50 / p99', 'added at p50', 'throughput (direct = 1)', 'target'],
    rows,
  };
  return {
    name: 'http',
    title: 'HTTP API',
    tables: [table],
    notes: [
      'One client in the same process (node:http, one kept-alive connection on 127.0.0.1), one request at a time. The HTTP side includes the key check, the tenant view, request validation, the JSON log line (discarded) and the metrics; the direct side writes through the same tenant view.',
    ],
  };
}
