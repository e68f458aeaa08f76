/**
 * The server stores: appends per second and latency percentiles of Postgres and Redis with one
 * writer and with 8 concurrent writers (on 8 sessions, and on one session), on throwaway local
 * servers. Redis is measured as the tests run it (no persistence) and with `appendfsync always`.
 * @module
 */
import path from 'node:path';
import { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { formatCount, formatMs, median, type SuiteReport, type Table } from './harness.js';
import { benchHistory } from './histories.js';
import {
  RawJournal,
  appendMessage,
  benchDir,
  diskNote,
  formatRate,
  now,
  openBenchStore,
  percentile,
  rawLine,
  rawRate,
  redisCommand,
  redisServer,
  removeBenchDir,
  timed,
  warmUp,
} from './store-fixtures.js';

const WRITERS = 8;
const SINGLE_WRITER_APPENDS = 300;
const APPENDS_PER_WRITER = 60;
/** Rounds per configuration; throughput is the median round, percentiles pool every append. */
const ROUNDS = 3;

interface Server {
  readonly label: string;
  readonly kind: 'postgres' | 'redis';
  /** Switches the server to this mode before its runs and back after them. */
  readonly setUp?: () => Promise<void>;
  readonly tearDown?: () => Promise<void>;
}

interface Configuration {
  readonly writers: number;
  readonly shared: boolean;
}

const CONFIGURATIONS: readonly Configuration[] = [
  { writers: 1, shared: false },
  { writers: WRITERS, shared: false },
  { writers: WRITERS, shared: true },
];

function describe(config: Configuration): string {
  if (config.writers === 1) return '1 writer';
  return `${config.writers} writers on ${config.shared ? '1 session' : `${config.writers} sessions`}`;
}

/** Waits until Redis has no AOF rewrite running (turning `appendonly` on starts one). */
async function aofSettled(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const info = String(await redisCommand(url, 'INFO', ['persistence']));
    if (/aof_enabled:1/.test(info) && /aof_rewrite_in_progress:0/.test(info) && !/aof_rewrite_scheduled:1/.test(info))
      return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis: the AOF rewrite did not finish');
}

async function durableRedis(): Promise<Server> {
  const server = await redisServer();
  const url = typeof server === 'string' ? '' : server.url;
  return {
    label: 'Redis, `appendonly yes` + `appendfsync always`',
    kind: 'redis',
    setUp: async () => {
      await redisCommand(url, 'CONFIG', ['SET', 'appendfsync', 'always']);
      await redisCommand(url, 'CONFIG', ['SET', 'appendonly', 'yes']);
      await aofSettled(url);
    },
    tearDown: async () => void (await redisCommand(url, 'CONFIG', ['SET', 'appendonly', 'no'])),
  };
}

interface Measured {
  readonly rates: number[];
  readonly latencies: number[];
}

async function run(
  store: SessionStore,
  config: Configuration,
  round: number,
): Promise<{ rate: number; latencies: number[] }> {
  const perWriter = config.writers === 1 ? SINGLE_WRITER_APPENDS : APPENDS_PER_WRITER;
  const latencies: number[] = [];
  const start = now();
  await Promise.all(
    Array.from({ length: config.writers }, async (_, writer) => {
      const id = config.shared ? `shared-${config.writers}` : `own-${config.writers}-${writer}`;
      for (let i = 0; i < perWriter; i++) {
        const message = appendMessage(`r${round}-w${writer}`, i);
        latencies.push(await timed(() => store.append(id, [message])));
      }
    }),
  );
  return { rate: (config.writers * perWriter) / ((now() - start) / 1000), latencies };
}

async function measureServer(server: Server): Promise<Map<Configuration, Measured> | string> {
  await warmUp(server.kind, 50);
  const opened = await openBenchStore(server.kind, 'servers');
  if (typeof opened === 'string') return opened;
  try {
    await server.setUp?.();
    const history = benchHistory(1_000).messages;
    for (const config of CONFIGURATIONS) {
      const ids = config.shared
        ? [`shared-${config.writers}`]
        : Array.from({ length: config.writers }, (_, writer) => `own-${config.writers}-${writer}`);
      for (const id of ids) await opened.store.save(Session.create({ id, messages: history.slice(0, 9) }));
    }
    const results = new Map<Configuration, Measured>(
      CONFIGURATIONS.map((config) => [config, { rates: [], latencies: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse();
      for (const config of order) {
        const { rate, latencies } = await run(opened.store, config, round);
        const measured = results.get(config) as Measured;
        measured.rates.push(rate);
        measured.latencies.push(...latencies);
      }
    }
    return results;
  } finally {
    await server.tearDown?.();
    await opened.dispose();
  }
}

/** The server-store suite. */
export async function runServerBench(): Promise<SuiteReport> {
  const servers: Server[] = [
    { label: 'Postgres (`synchronous_commit = on`, fsync on)', kind: 'postgres' },
    { label: 'Redis, no persistence (as the tests run it)', kind: 'redis' },
    await durableRedis(),
  ];
  const rows: string[][] = [];
  const skipped: string[] = [];
  for (const server of servers) {
    const results = await measureServer(server);
    if (typeof results === 'string') {
      skipped.push(`${server.label}: not measured, ${results}`);
      continue;
    }
    for (const [config, measured] of results) {
      const appends = config.writers * (config.writers === 1 ? SINGLE_WRITER_APPENDS : APPENDS_PER_WRITER);
      rows.push([
        server.label,
        describe(config),
        formatCount(appends),
        formatRate(median(measured.rates)),
        formatMs(percentile(measured.latencies, 50)),
        formatMs(percentile(measured.latencies, 99)),
      ]);
    }
  }
  // For scale: the raw single-writer fsync rate of this disk, measured now.
  const dir = benchDir('servers-raw');
  const raw = new RawJournal(path.join(dir, 'journal'));
  let rawPerSecond: number;
  try {
    rawPerSecond = rawRate(raw, rawLine(), 300);
  } finally {
    raw.close();
    removeBenchDir(dir);
  }
  const table: Table = {
    title: `Appends to the server stores, one ~500-byte message per call, each writer awaiting its own appends (${ROUNDS} rounds; throughput = median round, percentiles over every append)`,
    headers: ['Server', 'Writers', 'Appends per round', 'Appends per second', 'p50', 'p99'],
    rows,
  };
  return {
    name: 'servers',
    title: 'Postgres and Redis stores',
    tables: [table],
    notes: [
      diskNote(),
      ...skipped,
      `Throwaway local servers from test/support (Postgres \`initdb\`/\`pg_ctl\` run as the \`postgres\` user, data directory under /tmp, fsync and \`synchronous_commit\` at their defaults: on; \`redis-server\` on loopback with its data directory under \`os.tmpdir()\`), reached over TCP on 127.0.0.1 from this process with the stores' own clients (a \`pg\` pool of 10, one ioredis connection). Each session was saved with 9 messages first; every append is \`store.append(id, [message])\`.`,
      `Redis without persistence acknowledges a write once it is in memory: not durable. With \`appendonly yes\` and \`appendfsync always\` (set with \`CONFIG SET\` for these rows) Redis fsyncs its append-only file before it answers, as the store's documentation asks for durability.`,
      `For scale, one raw writer on this disk (write + fsync of a ~500-byte line in a loop) did ${formatRate(rawPerSecond)} during this suite.`,
    ],
  };
}
