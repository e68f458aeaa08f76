/**
 * The same growing thread stored one message per step by LangGraph's `SqliteSaver` (each step puts
 * a checkpoint whose `channel_values.messages` holds the whole list, as a LangGraph app's messages
 * state does) and by chatstate's file and SQLite stores (each step appends one message): time and
 * bytes written per step at several sizes, and a whole 1,000-step thread; and chatstate's own
 * LangGraph saver (`chatstate/langgraph`) over the SQLite store, step for step against `SqliteSaver`.
 * @module
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import { uuid6, type Checkpoint } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { ChatstateSaver } from '../src/adapters/langgraph/index.js';
import type { Message } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { formatCount, formatMs, formatRatio, median, verdict, type SuiteReport, type Table } from './harness.js';
import { benchHistory } from './histories.js';
import { toLangChain } from './langchain.js';
import {
  benchDir,
  diskBytes,
  diskNote,
  formatBytes,
  openBenchStore,
  percentile,
  removeBenchDir,
  timed,
  warmUp,
  writeCounters,
  writtenSince,
} from './store-fixtures.js';

/** Thread sizes at which single steps are measured. */
const SIZES = [100, 1_000, 10_000] as const;
/** LangGraph puts timed at each size (each stores the whole list: slow at 10k). */
const LANGGRAPH_STEPS: Record<(typeof SIZES)[number], number> = { 100: 20, 1000: 10, 10000: 5 };
/** Our appends timed at each size. */
const OUR_STEPS = 100;
/** Appends after the 10,000th, long enough for the file store to fold its journal at least once. */
const LONG_RUN = 6_000;
/** Puts of `ChatstateSaver` timed after the 10,000th message. */
const SAVER_STEPS = 100;
/** The whole thread measured from its first message. */
const FULL_THREAD = 1_000;
const TARGET = 100;

const OURS = ['file', 'sqlite'] as const;
type Ours = (typeof OURS)[number];
const LABEL: Record<Ours, string> = { file: 'chatstate file store', sqlite: 'chatstate SQLite store' };

/** One measured step: milliseconds, bytes passed to write calls, bytes of pages sent to storage. */
interface Step {
  readonly ms: number;
  readonly passed: number;
  readonly storage: number;
}

async function measureStep(fn: () => Promise<unknown>): Promise<Step> {
  const before = writeCounters();
  const ms = await timed(fn);
  return { ms, ...writtenSince(before) };
}

/** A LangGraph thread on its own SQLite file, put one checkpoint at a time. */
class LangGraphThread {
  private readonly db: Database.Database;
  private readonly saver: SqliteSaver;
  private parent: string | undefined;
  private step = -1;

  constructor(
    readonly file: string,
    private readonly messages: readonly BaseMessage[],
  ) {
    this.db = new Database(file);
    this.saver = new SqliteSaver(this.db);
  }

  /** Puts the checkpoint of the step at which the thread holds `count` messages. */
  put(count: number): Promise<Step> {
    return measureStep(() => this.putOnly(count));
  }

  private async putOnly(count: number): Promise<void> {
    this.step += 1;
    const checkpoint: Checkpoint = {
      v: 4,
      id: uuid6(-1),
      ts: new Date().toISOString(),
      channel_values: { messages: this.messages.slice(0, count) },
      channel_versions: { messages: count },
      versions_seen: { agent: { messages: count - 1 } },
    };
    const configurable = {
      thread_id: 'thread',
      checkpoint_ns: '',
      ...(this.parent === undefined ? {} : { checkpoint_id: this.parent }),
    };
    await this.saver.put({ configurable }, checkpoint, { source: 'loop', step: this.step, parents: {} });
    this.parent = checkpoint.id;
  }

  /** The database, its WAL and shared-memory files. */
  diskBytes(): number {
    return diskBytes(this.file) + diskBytes(`${this.file}-wal`) + diskBytes(`${this.file}-shm`);
  }

  close(): void {
    this.db.close();
  }
}

function appendStep(store: SessionStore, id: string, message: Message): Promise<Step> {
  return measureStep(() => store.append(id, [message]));
}

interface SizeRow {
  readonly size: number;
  readonly langGraph: Step[];
  readonly ours: Record<Ours, Step[]>;
}

async function measureSize(size: (typeof SIZES)[number], history: readonly Message[], dir: string): Promise<SizeRow> {
  const steps = LANGGRAPH_STEPS[size];
  const thread = new LangGraphThread(
    path.join(dir, `langgraph-${size}.db`),
    toLangChain(history.slice(0, size + steps)),
  );
  const langGraph: Step[] = [];
  try {
    // The thread so far, in one checkpoint (untimed): the next put is the one at `size` messages.
    await thread.put(size - 1);
    for (let i = 0; i < steps; i++) langGraph.push(await thread.put(size + i));
  } finally {
    thread.close();
  }
  const ours: Record<Ours, Step[]> = { file: [], sqlite: [] };
  for (const kind of OURS) {
    const opened = await openBenchStore(kind, `lg-${size}`);
    if (typeof opened === 'string') throw new Error(`${kind}: ${opened}`);
    try {
      await opened.store.save(Session.create({ id: 'thread', messages: history.slice(0, size - 1) }));
      for (let i = 0; i < OUR_STEPS; i++)
        ours[kind].push(await appendStep(opened.store, 'thread', history[size - 1 + i] as Message));
    } finally {
      await opened.dispose();
    }
  }
  return { size, langGraph, ours };
}

interface LongRun {
  readonly steps: Step[];
  /** Bytes written over the run, background folds included (waited for by `close`). */
  readonly total: { readonly passed: number; readonly storage: number };
  readonly folds: number;
}

/** `LONG_RUN` appends after the 10,000th message, with every byte the store writes meanwhile. */
async function measureLongRun(kind: Ours, history: readonly Message[]): Promise<LongRun> {
  const opened = await openBenchStore(kind, 'lg-long');
  if (typeof opened === 'string') throw new Error(`${kind}: ${opened}`);
  try {
    const store = opened.store;
    const dir = opened.dir ?? '';
    await store.save(Session.create({ id: 'thread', messages: history.slice(0, 10_000) }));
    const before = writeCounters();
    const steps: Step[] = [];
    let folds = 0;
    let snapshot = kind === 'file' ? snapshotIdentity(dir) : undefined;
    for (let i = 0; i < LONG_RUN; i++) {
      steps.push(await appendStep(store, 'thread', history[10_000 + i] as Message));
      if (kind === 'file' && i % 50 === 49) {
        const current = snapshotIdentity(dir);
        if (current !== snapshot) folds += 1;
        snapshot = current;
      }
    }
    // close() waits for a fold in flight: its bytes belong to the run.
    await store.close();
    return { steps, total: writtenSince(before), folds };
  } finally {
    await opened.dispose();
  }
}

/** Identity of the file store's snapshot of `thread` in `dir`: it changes when a fold installs a new one. */
function snapshotIdentity(dir: string): string {
  try {
    const stat = statSync(path.join(dir, 'sessions', 'thread', 'snapshot'));
    return `${stat.ino}:${stat.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/**
 * `ChatstateSaver` over the SQLite store, driven exactly as `LangGraphThread` drives `SqliteSaver`:
 * each step puts a checkpoint whose `channel_values.messages` holds the whole list (the same
 * LangChain message objects, one more each step), parented to the previous one. The thread is first
 * put with 9,999 messages (untimed), then `SAVER_STEPS` puts from 10,000 messages on are timed.
 */
async function measureSaver(history: readonly Message[]): Promise<Step[]> {
  const opened = await openBenchStore('sqlite', 'lg-saver');
  if (typeof opened === 'string') throw new Error(`sqlite: ${opened}`);
  const messages = toLangChain(history.slice(0, 10_000 + SAVER_STEPS));
  const saver = new ChatstateSaver(opened.store);
  let parent: string | undefined;
  let step = -1;
  const putAt = async (count: number): Promise<void> => {
    step += 1;
    const checkpoint: Checkpoint = {
      v: 4,
      id: uuid6(-1),
      ts: new Date().toISOString(),
      channel_values: { messages: messages.slice(0, count) },
      channel_versions: { messages: count },
      versions_seen: { agent: { messages: count - 1 } },
    };
    const configurable = {
      thread_id: 'thread',
      checkpoint_ns: '',
      ...(parent === undefined ? {} : { checkpoint_id: parent }),
    };
    await saver.put({ configurable }, checkpoint, { source: 'loop', step, parents: {} }, { messages: count });
    parent = checkpoint.id;
  };
  try {
    await putAt(9_999);
    const steps: Step[] = [];
    for (let i = 0; i < SAVER_STEPS; i++) steps.push(await measureStep(() => putAt(10_000 + i)));
    return steps;
  } finally {
    await opened.dispose();
  }
}

interface FullThread {
  readonly label: string;
  readonly ms: number;
  readonly passed: number;
  readonly storage: number;
  readonly disk: number;
}

function sum(steps: readonly Step[], field: keyof Step): number {
  return steps.reduce((total, step) => total + step[field], 0);
}

/** A whole thread of `FULL_THREAD` messages, one step per message, from the first. */
async function measureFullThread(history: readonly Message[], dir: string): Promise<FullThread[]> {
  const rows: FullThread[] = [];
  const thread = new LangGraphThread(path.join(dir, 'langgraph-full.db'), toLangChain(history.slice(0, FULL_THREAD)));
  try {
    const steps: Step[] = [];
    for (let count = 1; count <= FULL_THREAD; count++) steps.push(await thread.put(count));
    rows.push({
      label: 'LangGraph `SqliteSaver`',
      ms: sum(steps, 'ms'),
      passed: sum(steps, 'passed'),
      storage: sum(steps, 'storage'),
      disk: thread.diskBytes(),
    });
  } finally {
    thread.close();
  }
  for (const kind of OURS) {
    const opened = await openBenchStore(kind, 'lg-full');
    if (typeof opened === 'string') throw new Error(`${kind}: ${opened}`);
    try {
      const store = opened.store;
      const steps = [
        await measureStep(() => store.save(Session.create({ id: 'thread', messages: history.slice(0, 1) }))),
      ];
      for (let i = 1; i < FULL_THREAD; i++) steps.push(await appendStep(store, 'thread', history[i] as Message));
      rows.push({
        label: LABEL[kind],
        ms: sum(steps, 'ms'),
        passed: sum(steps, 'passed'),
        storage: sum(steps, 'storage'),
        disk: diskBytes(opened.dir ?? ''),
      });
    } finally {
      await opened.dispose();
    }
  }
  return rows;
}

function medianOf(steps: readonly Step[], field: keyof Step): number {
  return median(steps.map((step) => step[field]));
}

/** The LangGraph comparison suite. */
export async function runLangGraphBench(): Promise<SuiteReport> {
  const history = benchHistory(100_000).messages;
  for (const kind of OURS) await warmUp(kind);
  const dir = benchDir('langgraph');
  try {
    const sizes: SizeRow[] = [];
    for (const size of SIZES) sizes.push(await measureSize(size, history, dir));
    const long: Record<Ours, LongRun> = {
      file: await measureLongRun('file', history),
      sqlite: await measureLongRun('sqlite', history),
    };
    const full = await measureFullThread(history, dir);
    const saverSteps = await measureSaver(history);

    const stepTable: Table = {
      title:
        'One step of a growing thread: LangGraph puts a checkpoint holding the whole message list, chatstate appends the one new message (medians over the steps timed)',
      headers: [
        'Messages in the thread',
        'Store',
        'Steps timed',
        'Time per step',
        'Bytes to write calls per step',
        'Bytes to storage per step',
        'LangGraph ÷ this: time',
        'bytes to write calls',
        'bytes to storage',
      ],
      rows: sizes.flatMap((row) => {
        const lg = {
          ms: medianOf(row.langGraph, 'ms'),
          passed: medianOf(row.langGraph, 'passed'),
          storage: medianOf(row.langGraph, 'storage'),
        };
        return [
          [
            formatCount(row.size),
            'LangGraph `SqliteSaver`',
            formatCount(row.langGraph.length),
            formatMs(lg.ms),
            formatBytes(lg.passed),
            formatBytes(lg.storage),
            '1.00×',
            '1.00×',
            '1.00×',
          ],
          ...OURS.map((kind) => {
            const ours = {
              ms: medianOf(row.ours[kind], 'ms'),
              passed: medianOf(row.ours[kind], 'passed'),
              storage: medianOf(row.ours[kind], 'storage'),
            };
            return [
              formatCount(row.size),
              LABEL[kind],
              formatCount(row.ours[kind].length),
              formatMs(ours.ms),
              formatBytes(ours.passed),
              formatBytes(ours.storage),
              formatRatio(lg.ms / ours.ms),
              formatRatio(lg.passed / ours.passed),
              formatRatio(lg.storage / ours.storage),
            ];
          }),
        ];
      }),
    };
    const at10k = sizes.find((row) => row.size === 10_000) as SizeRow;
    const lg10k = {
      ms: medianOf(at10k.langGraph, 'ms'),
      passed: medianOf(at10k.langGraph, 'passed'),
      storage: medianOf(at10k.langGraph, 'storage'),
    };
    const verdicts: Record<Ours, boolean> = { file: false, sqlite: false };
    const longTable: Table = {
      title: `chatstate over ${formatCount(LONG_RUN)} appends after the 10,000th message (messages 10,001–${formatCount(10_000 + LONG_RUN)}), every byte written meanwhile counted — journal folds and WAL checkpoints included — against LangGraph's step at 10,000 messages`,
      headers: [
        'Store',
        'p50 per append',
        'p99 per append',
        'Bytes to write calls per append',
        'Bytes to storage per append',
        'Journal folds seen',
        'LangGraph ÷ this: time (p50)',
        'bytes to write calls',
        'bytes to storage',
        `Target (≥ ${TARGET}× time and bytes)`,
      ],
      rows: OURS.map((kind) => {
        const run = long[kind];
        const times = run.steps.map((step) => step.ms);
        const p50 = percentile(times, 50);
        const passed = run.total.passed / run.steps.length;
        const storage = run.total.storage / run.steps.length;
        const ratios = { time: lg10k.ms / p50, passed: lg10k.passed / passed, storage: lg10k.storage / storage };
        verdicts[kind] = ratios.time >= TARGET && ratios.passed >= TARGET && ratios.storage >= TARGET;
        return [
          LABEL[kind],
          formatMs(p50),
          formatMs(percentile(times, 99)),
          formatBytes(passed),
          formatBytes(storage),
          kind === 'file' ? formatCount(run.folds) : 'n/a (no journal)',
          formatRatio(ratios.time),
          formatRatio(ratios.passed),
          formatRatio(ratios.storage),
          verdict(verdicts[kind]),
        ];
      }),
    };
    const saverStep = {
      ms: medianOf(saverSteps, 'ms'),
      passed: medianOf(saverSteps, 'passed'),
      storage: medianOf(saverSteps, 'storage'),
    };
    const saverRatios = {
      time: lg10k.ms / saverStep.ms,
      passed: lg10k.passed / saverStep.passed,
      storage: lg10k.storage / saverStep.storage,
    };
    const saverVerdict = saverRatios.time >= TARGET && saverRatios.passed >= TARGET;
    const saverTable: Table = {
      title:
        'A LangGraph saver against a LangGraph saver: `ChatstateSaver` (`chatstate/langgraph`) over the chatstate SQLite store and `SqliteSaver`, one put per step at 10,000 messages (the same checkpoints: the whole list in `channel_values.messages`; medians)',
      headers: [
        'Saver',
        'Steps timed',
        'Time per step',
        'Bytes to write calls per step',
        'Bytes to storage per step',
        'SqliteSaver ÷ this: time',
        'bytes to write calls',
        'bytes to storage',
        `Target (≥ ${TARGET}× time and bytes to write calls)`,
      ],
      rows: [
        [
          'LangGraph `SqliteSaver`',
          formatCount(at10k.langGraph.length),
          formatMs(lg10k.ms),
          formatBytes(lg10k.passed),
          formatBytes(lg10k.storage),
          '1.00×',
          '1.00×',
          '1.00×',
          '',
        ],
        [
          '`ChatstateSaver` over the SQLite store',
          formatCount(saverSteps.length),
          formatMs(saverStep.ms),
          formatBytes(saverStep.passed),
          formatBytes(saverStep.storage),
          formatRatio(saverRatios.time),
          formatRatio(saverRatios.passed),
          formatRatio(saverRatios.storage),
          verdict(saverVerdict),
        ],
      ],
    };
    const lgFull = full[0] as FullThread;
    const fullTable: Table = {
      title: `A whole ${formatCount(FULL_THREAD)}-message thread, one step per message from the first`,
      headers: [
        'Store',
        'Total time',
        'Bytes to write calls',
        'Bytes to storage',
        'On disk afterwards',
        'LangGraph ÷ this: bytes to write calls',
        'bytes to storage',
        'on disk',
      ],
      rows: full.map((row) => [
        row.label,
        formatMs(row.ms),
        formatBytes(row.passed),
        formatBytes(row.storage),
        formatBytes(row.disk),
        formatRatio(lgFull.passed / row.passed),
        formatRatio(lgFull.storage / row.storage),
        formatRatio(lgFull.disk / row.disk),
      ]),
    };
    const estimate = (lg10k.passed * 10_000) / 2;
    return {
      name: 'langgraph',
      title: "Against LangGraph's SqliteSaver",
      tables: [stepTable, longTable, fullTable, saverTable],
      notes: [
        diskNote(),
        `At 10,000 messages, ≥ ${TARGET}× faster per append and ≥ ${TARGET}× fewer bytes written than LangGraph's step: file store ${verdict(verdicts.file)}, SQLite store ${verdict(verdicts.sqlite)} (amortized over ${formatCount(LONG_RUN)} appends, by both byte counts).`,
        `LangGraph, as measured: \`@langchain/langgraph-checkpoint-sqlite\` 1.0.4 \`SqliteSaver.put\` on its own better-sqlite3 file (the saver sets WAL; SQLite's default \`synchronous = FULL\`). At each size n the thread is first put as one checkpoint of n − 1 messages (untimed), then ${Object.entries(
          LANGGRAPH_STEPS,
        )
          .map(([size, steps]) => `${steps} steps at ${formatCount(Number(size))}`)
          .join(
            ', ',
          )} messages are timed: each a new checkpoint row, parented to the previous one, whose \`channel_values.messages\` holds every message so far as LangChain messages (the corpus converted by \`bench/langchain.ts\`). \`putWrites\`, which a LangGraph app also calls every step, is not measured, so LangGraph's figures are its floor. The checkpoint library (1.2.2) also defines opt-in \`DeltaChannel\` snapshots; not measured.`,
        `A full 10,000-step LangGraph thread was not run (the 1,000-step one already takes seconds): since a step writes the whole list, it would pass about ${formatBytes(estimate)} to write calls (n²/2 × the measured step at 10k ÷ 10k — computed, not measured).`,
        `chatstate at each size: the session is saved with n − 1 messages, then ${OUR_STEPS} appends of the next corpus messages — the ones LangGraph stores — are timed. Each store's code paths were warmed up on a throwaway store first.`,
        'Bytes are counted from /proc/self/io around each call, for every thread of this process: "to write calls" is `wchar` (what the code asked to write: WAL frames and checkpoints, journal records, snapshot rewrites), "to storage" is `write_bytes` (pages the kernel sent to the disk: a 600-byte append costs a 4 KB page). File-system metadata and ext4 journal blocks are in neither. The long run divides its totals by its appends after `close()` has waited for any fold in flight.',
        `The saver table: both savers get the same checkpoints in the same run, each step a new checkpoint of the whole list parented to the previous one (\`put\` only; \`putWrites\` is measured for neither). \`ChatstateSaver\` is put the 9,999-message checkpoint first (untimed), then ${SAVER_STEPS} steps from 10,000 messages are timed; a step appends the one new message to the thread's conversation session, carrying the checkpoint's small record (ids, versions, metadata, the message list as sequence ranges) in its metadata: one SQLite transaction, as chatstate's own append above, plus the saver's work (finding the unchanged messages by identity, converting the new one). Bytes are counted for both the same way, from /proc/self/io around each put (\`wchar\` and \`write_bytes\`, as above), WAL checkpoints included when they happen.`,
        `The whole-thread table really runs ${formatCount(FULL_THREAD)} LangGraph steps (checkpoints of 1, 2, …, ${formatCount(FULL_THREAD)} messages) and chatstate's save of the first message plus ${formatCount(FULL_THREAD - 1)} appends.`,
      ],
    };
  } finally {
    removeBenchDir(dir);
  }
}
