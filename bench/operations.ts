/**
 * The operations of `chatstate` that move and check whole stores: `migrate` (file → SQLite and
 * SQLite → Postgres) against the stores' own `load` + `save` loop, `export --all` against a bare
 * `load` loop, and `verify`'s rate — each with its peak heap at two store sizes, to show that
 * memory stays flat whatever the number of sessions.
 *
 * Sizes (the issue asks 1,000 sessions × 1,000 messages and 100k sessions for verify; a 2-CPU
 * machine starts smaller): `BENCH_OPS_SESSIONS` (default 200), `BENCH_OPS_MESSAGES` (default 200),
 * `BENCH_OPS_VERIFY` (default 5,000 sessions of 20 messages), `BENCH_OPS_ROUNDS` (default 3).
 * @module
 */
import { Session } from '../src/session/session.js';
import { exportSessions, migrateSessions, verifySessions } from '../src/operations/index.js';
import type { SessionStore, SessionSummary } from '../src/store/session-store-types.js';
import {
  envNumber,
  formatCount,
  formatMs,
  formatRatio,
  median,
  pairedRatio,
  verdict,
  type SuiteReport,
  type Table,
} from './harness.js';
import { benchHistory } from './histories.js';
import { collectGarbage, formatBytes, now, openBenchStore, type BenchStore, type StoreKind } from './store-fixtures.js';

const SESSIONS = envNumber('BENCH_OPS_SESSIONS', 200);
const MESSAGES = envNumber('BENCH_OPS_MESSAGES', 200);
const VERIFY_SESSIONS = envNumber('BENCH_OPS_VERIFY', 5_000);
const VERIFY_MESSAGES = 20;
const ROUNDS = envNumber('BENCH_OPS_ROUNDS', 3);
/** The operations to measure (`BENCH_OPS_PARTS=export,verify`, say): all by default. */
const PARTS = new Set((process.env.BENCH_OPS_PARTS ?? 'migrate,export,verify').split(',').map((part) => part.trim()));
const TARGET = 0.8;

/** Peak heap (above the heap when it started, after a GC) while `fn` runs, sampled every 5 ms. */
async function withPeakHeap<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number; peak: number }> {
  collectGarbage();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage().heapUsed - base);
  };
  const timer = setInterval(sample, 5);
  const start = now();
  try {
    const result = await fn();
    sample();
    return { result, ms: now() - start, peak };
  } finally {
    clearInterval(timer);
  }
}

/** The file source keeps a small session cache, so that its cache does not stand for the operation's memory. */
const SOURCE_FILE_OPTIONS = { cacheBytes: 4 << 20 };

/** Sessions between two samples of the live heap. */
const SAMPLE_EVERY = 10;

/**
 * The most heap still in use (after a full GC, every `SAMPLE_EVERY` sessions, above the heap
 * before the run): what the operation holds, garbage left out. `run` calls `tick` once a session.
 */
async function liveHeap(run: (tick: () => void) => Promise<unknown>): Promise<number> {
  collectGarbage();
  const base = process.memoryUsage().heapUsed;
  let most = 0;
  let ticks = 0;
  await run(() => {
    ticks += 1;
    if (ticks % SAMPLE_EVERY !== 0) return;
    collectGarbage();
    most = Math.max(most, process.memoryUsage().heapUsed - base);
  });
  return most;
}

async function open(kind: StoreKind, label: string, fileOptions = {}): Promise<BenchStore> {
  const opened = await openBenchStore(kind, label, fileOptions);
  if (typeof opened === 'string') throw new Error(`${kind}: ${opened}`);
  return opened;
}

/** Fills `store` with `count` sessions of `messages` messages (each its own id and user) and a value each. */
async function fill(store: SessionStore, count: number, messages: number): Promise<void> {
  const history = benchHistory(messages).messages;
  for (let n = 0; n < count; n += 1) {
    await store.save(Session.create({ id: `ops-${n}`, userId: `user-${n % 50}`, agentId: 'bench', messages: history }));
    await store.values.set({ scope: 'session', sessionId: `ops-${n}` }, { n });
  }
}

/** Every id of `store`, page by page (the baselines' own listing). */
async function ids(store: SessionStore): Promise<string[]> {
  const out: string[] = [];
  let after: SessionSummary | undefined;
  for (;;) {
    const page = await store.list({ limit: 500, after });
    out.push(...page.map((row) => row.id));
    if (page.length < 500) return out;
    after = page.at(-1);
  }
}

/** The baseline a migration is held to: the stores' own load + save, one session after another. */
async function loadSaveLoop(source: SessionStore, target: SessionStore, tick?: () => void): Promise<void> {
  for (const id of await ids(source)) {
    await target.save(await source.load(id));
    tick?.();
  }
}

interface MigrateFigures {
  readonly baselineMs: number;
  readonly migrateMs: number;
  readonly ratio: number;
  readonly peak: number;
  readonly baselinePeak: number;
  readonly liveMigrate: number;
  readonly liveBaseline: number;
}

/** Rounds of baseline and migrate, each into a fresh target, interleaved. */
async function measureMigrate(source: SessionStore, to: StoreKind, sessions: number): Promise<MigrateFigures> {
  const baseline: number[] = [];
  const migrated: number[] = [];
  const peaks: number[] = [];
  const baselinePeaks: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const first = await open(to, `ops-base-${round}`);
    try {
      const { ms, peak } = await withPeakHeap(() => loadSaveLoop(source, first.store));
      baseline.push(ms);
      baselinePeaks.push(peak);
    } finally {
      await first.dispose();
    }
    const second = await open(to, `ops-migrate-${round}`);
    try {
      const { ms, peak, result } = await withPeakHeap(() => migrateSessions(source, second.store));
      if (result.created !== sessions) throw new Error(`migrate copied ${result.created} of ${sessions} sessions`);
      migrated.push(ms);
      peaks.push(peak);
    } finally {
      await second.dispose();
    }
  }
  // Memory apart from timing: a full GC every few sessions would slow the timed runs.
  const heaps: number[] = [];
  for (const which of ['baseline', 'migrate'] as const) {
    const fresh = await open(to, `ops-heap-${which}`);
    try {
      heaps.push(
        await liveHeap((tick) =>
          which === 'baseline'
            ? loadSaveLoop(source, fresh.store, tick)
            : migrateSessions(source, fresh.store, { onProgress: tick }),
        ),
      );
    } finally {
      await fresh.dispose();
    }
  }
  return {
    liveBaseline: heaps[0] as number,
    liveMigrate: heaps[1] as number,
    baselineMs: median(baseline),
    migrateMs: median(migrated),
    // Throughput ratio: baseline time over migrate time (above 1: migrate is faster).
    ratio: pairedRatio(baseline, migrated),
    peak: Math.max(...peaks),
    baselinePeak: Math.max(...baselinePeaks),
  };
}

async function exportLines(store: SessionStore): Promise<number> {
  let bytes = 0;
  // The lines are the bytes `chatstate export` writes: their encoding is part of the time.
  for await (const line of exportSessions(store, { all: true })) bytes += line.byteLength;
  return bytes;
}

async function loadLoop(store: SessionStore): Promise<void> {
  for (const id of await ids(store)) await store.load(id);
}

/** `migrate`, `export --all` and `verify`, with their baselines and peak heaps. */
export async function runOperationsBench(): Promise<SuiteReport> {
  const small = Math.max(1, Math.floor(SESSIONS / 4));
  const migrateRows: string[][] = [];
  const exportRows: string[][] = [];
  const memoryRows: string[][] = [];
  const notes: string[] = [];
  const rate = (count: number, ms: number): string => `${formatCount((count / ms) * 1000)}/s`;

  for (const [from, to] of [
    ['file', 'sqlite'],
    ['sqlite', 'postgres'],
  ] as const) {
    const peaksBySize: Array<[number, number, number, number, number]> = [];
    const exporting = from === 'file' && PARTS.has('export');
    if (!PARTS.has('migrate') && !exporting) continue;
    for (const count of PARTS.has('migrate') ? [small, SESSIONS] : [SESSIONS]) {
      const source = await open(from, `ops-source-${count}`, SOURCE_FILE_OPTIONS);
      try {
        await fill(source.store, count, MESSAGES);
        const figures = PARTS.has('migrate') ? await measureMigrate(source.store, to, count) : undefined;
        if (figures !== undefined)
          peaksBySize.push([count, figures.liveMigrate, figures.liveBaseline, figures.peak, figures.baselinePeak]);
        if (count === SESSIONS && figures !== undefined) {
          migrateRows.push([
            `${from} → ${to}`,
            `${formatCount(count)} × ${formatCount(MESSAGES)}`,
            `${formatMs(figures.baselineMs)} (${rate(count, figures.baselineMs)})`,
            `${formatMs(figures.migrateMs)} (${rate(count, figures.migrateMs)})`,
            formatRatio(figures.ratio),
            verdict(figures.ratio >= TARGET),
          ]);
        }
        if (count === SESSIONS && exporting) {
          // export --all against a bare load loop, on the same source.
          const loads: number[] = [];
          const exports: number[] = [];
          let exportPeak = 0;
          let loadPeak = 0;
          let bytes = 0;
          for (let round = 0; round < ROUNDS; round += 1) {
            const loaded = await withPeakHeap(() => loadLoop(source.store));
            loads.push(loaded.ms);
            loadPeak = Math.max(loadPeak, loaded.peak);
            const measured = await withPeakHeap(() => exportLines(source.store));
            exports.push(measured.ms);
            exportPeak = Math.max(exportPeak, measured.peak);
            bytes = measured.result;
          }
          const ratio = pairedRatio(loads, exports);
          exportRows.push([
            `export --all (${from})`,
            `${formatCount(count)} × ${formatCount(MESSAGES)}`,
            `${formatMs(median(loads))} (${rate(count, median(loads))})`,
            `${formatMs(median(exports))} (${rate(count, median(exports))}, ${formatBytes(bytes)})`,
            formatRatio(ratio),
            verdict(ratio >= TARGET),
          ]);
          const liveExport = await liveHeap(async (tick) => {
            for await (const line of exportSessions(source.store, { all: true, onProgress: tick })) void line;
          });
          const liveLoad = await liveHeap(async (tick) => {
            for (const id of await ids(source.store)) {
              await source.store.load(id);
              tick();
            }
          });
          memoryRows.push([
            `export --all (${from})`,
            `${formatCount(count)} sessions`,
            formatBytes(liveExport),
            formatBytes(liveLoad),
            formatBytes(exportPeak),
            formatBytes(loadPeak),
          ]);
        }
      } finally {
        await source.dispose();
      }
    }
    for (const [count, live, liveBase, peak, baselinePeak] of peaksBySize)
      memoryRows.push([
        `migrate ${from} → ${to}`,
        `${formatCount(count)} sessions`,
        formatBytes(live),
        formatBytes(liveBase),
        formatBytes(peak),
        formatBytes(baselinePeak),
      ]);
  }

  const verifyRows: string[][] = [];
  const verifySmall = Math.max(1, Math.floor(VERIFY_SESSIONS / 5));
  for (const count of PARTS.has('verify') ? [verifySmall, VERIFY_SESSIONS] : []) {
    const store = await open('sqlite', `ops-verify-${count}`);
    try {
      await fill(store.store, count, VERIFY_MESSAGES);
      const measured = await withPeakHeap(() => verifySessions(store.store));
      const live = await liveHeap((tick) => verifySessions(store.store, { onProgress: tick }));
      if (!measured.result.ok || measured.result.checked !== count)
        throw new Error(`verify found problems in the bench sessions: ${JSON.stringify(measured.result.findings[0])}`);
      verifyRows.push([
        `verify (SQLite, every check, 5 formats)`,
        `${formatCount(count)} × ${VERIFY_MESSAGES}`,
        formatMs(measured.ms),
        rate(count, measured.ms),
        formatBytes(live),
        formatBytes(measured.peak),
      ]);
    } finally {
      await store.dispose();
    }
  }

  const tables: Table[] = [
    {
      title: `migrate against the stores' own load + save loop (throughput ratio, target ≥ ${TARGET}×; median of ${ROUNDS} rounds, each into a fresh target)`,
      headers: ['Copy', 'Sessions × messages', 'load + save loop', 'migrate (concurrency 4)', 'Ratio', 'Target'],
      rows: migrateRows,
    },
    {
      title: `export --all against a bare load loop (target ≥ ${TARGET}×)`,
      headers: ['Export', 'Sessions × messages', 'load loop', 'export --all', 'Ratio', 'Target'],
      rows: exportRows,
    },
    {
      title: `Heap at two store sizes: live (after a full GC every ${SAMPLE_EVERY} sessions, in a separate run) stays flat when memory is bounded; peak (sampled every 5 ms in the timed runs) includes garbage not yet collected`,
      headers: [
        'Operation',
        'Store size',
        'Live heap',
        'Live heap, baseline loop',
        'Peak heap',
        'Peak heap, baseline loop',
      ],
      rows: memoryRows,
    },
    {
      title: 'verify: rate and heap',
      headers: ['Operation', 'Sessions × messages', 'Time', 'Rate', 'Live heap', 'Peak heap'],
      rows: verifyRows,
    },
  ];
  notes.push(
    `Sizes: ${SESSIONS} sessions × ${MESSAGES} messages (and ${small} for the memory comparison), verify ${VERIFY_SESSIONS} and ${verifySmall} sessions × ${VERIFY_MESSAGES} messages; set BENCH_OPS_SESSIONS, BENCH_OPS_MESSAGES, BENCH_OPS_VERIFY to scale (the issue's sizes: 1000, 1000, 100000), and BENCH_OPS_PARTS (migrate, export, verify) to measure only some.`,
    'export --all yields each line as the UTF-8 bytes it writes, so encoding the output is inside its time; the load loop builds sessions and writes nothing.',
    'migrate also reads and writes each session’s values (session, user and agent scopes) and checks the target for an existing copy; the baseline copies the session only.',
    'Peak heap is measured in this process (the stores run in it; Postgres runs in its own server process), garbage included until the collector runs; the file source keeps a 4 MiB session cache (its default is 64 MiB) so that the cache does not grow with the store.',
  );
  // A run of some parts (BENCH_OPS_PARTS) leaves the others' tables empty: they are left out.
  return {
    name: 'operations',
    title: 'Operations: migrate, export, verify',
    tables: tables.filter((table) => table.rows.length > 0),
    notes,
  };
}
