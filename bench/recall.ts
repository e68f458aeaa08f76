/**
 * Recall, in every store: its quality (hit@1/5/10 per question category on the LoCoMo dev split
 * when `../shared/locomo-dev` exists, and on seeded synthetic conversations, beside plain BM25 in
 * the same run), and its speed over 100k stored messages of one user (100 sessions of 1,000 corpus
 * messages): the index build (the first recall of a fresh `RecallIndex`) apart from the query
 * latency (p50 and p99 of the recalls after it), without and with an `embed` function.
 * @module
 */
import { RecallIndex } from '../src/active-memory/recall-index.js';
import { createSessionHandle } from '../src/active-memory/session-handle.js';
import { tokenize } from '../src/active-memory/text-index.js';
import type { Embed } from '../src/active-memory/types.js';
import { Message } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { REPORT_SEED } from './corpus.js';
import { qualitySets, recallPlainBm25, recallThroughStore, type QualitySet } from './recall-quality.js';
import { CUTOFFS, hitRates, type Ranked } from './recall-score.js';
import { formatCount, formatMs, type SuiteReport, type Table } from './harness.js';
import { benchHistory } from './histories.js';
import { Random } from './random.js';
import {
  STORE_KINDS,
  collectGarbage,
  now,
  openBenchStore,
  percentile,
  timed,
  type StoreKind,
} from './store-fixtures.js';

const MESSAGES = 100_000;
const PER_SESSION = 1_000;
const USER = 'recall-bench-user';
/** Timed recalls per store and mode, after `WARMUP` untimed ones. */
const QUERIES = 200;
const WARMUP = 10;
const K = 5;
/** Dimensions of the bench's embedding (a hashed bag of words: cheap, so the figures are chatstate's own cost). */
const DIMENSIONS = 64;

/** `BENCH_STORES=memory,sqlite`: only these kinds (a quicker run while working on one store); all by default. */
const ONLY = process.env.BENCH_STORES?.split(',').map((kind) => kind.trim());
/** `BENCH_RECALL_PARTS=speed` (or `quality`, `embed`, comma-separated): only these parts; all by default. */
const PARTS = new Set((process.env.BENCH_RECALL_PARTS ?? 'quality,speed,embed').split(',').map((part) => part.trim()));

const LABEL: Record<StoreKind, string> = {
  memory: 'memory',
  file: 'file',
  sqlite: 'SQLite',
  postgres: 'Postgres',
  redis: 'Redis',
};

/** Recall queries: two or three words of a random user message of the corpus (deterministic). */
function queries(messages: readonly Message[]): string[] {
  const random = new Random(REPORT_SEED + 1);
  const users = messages.filter((message) => message.role === 'user');
  return Array.from({ length: QUERIES + WARMUP }, () => {
    const words = tokenize(Message.text(random.pick(users))).filter((word) => word.length >= 4);
    const count = Math.min(words.length, random.int(2, 3));
    return Array.from({ length: count }, () => random.pick(words)).join(' ') || 'session';
  });
}

/** A deterministic embedding: words hashed (FNV-1a) into `DIMENSIONS` signed buckets. */
const hashedEmbed: Embed = async (texts) =>
  texts.map((text) => {
    const vector = new Float32Array(DIMENSIONS);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      let hash = 0x811c9dc5;
      for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
      vector[hash % DIMENSIONS] = (vector[hash % DIMENSIONS] as number) + (hash & 0x80000000 ? -1 : 1);
    }
    return vector;
  });

interface ModeResult {
  readonly buildMs: number;
  readonly samples: number[];
  readonly hits: number;
  /** Per timed recall: ms spent in `store.marks` (the sync's one store call) and in reading the hits (hydrate). */
  readonly marks: number[];
  readonly hydrate: number[];
}

/** Wall time spent inside some calls of a store (overlapping calls counted once), read and reset per recall. */
class CallClock {
  private active = 0;
  private since = 0;
  private total = 0;

  /** `store` with the calls named in `methods` timed. */
  wrap(store: SessionStore, methods: readonly string[]): SessionStore {
    return new Proxy(store, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || !methods.includes(String(property))) return value;
        return async (...args: unknown[]) => {
          if (this.active++ === 0) this.since = now();
          try {
            return await (value as (...rest: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            if (--this.active === 0) this.total += now() - this.since;
          }
        };
      },
    });
  }

  take(): number {
    const total = this.total;
    this.total = 0;
    return total;
  }
}

/** The first recall of a fresh index (its build), then `QUERIES` timed recalls. */
async function measure(
  plainStore: SessionStore,
  texts: readonly string[],
  embed: Embed | undefined,
): Promise<ModeResult> {
  const marksClock = new CallClock();
  const hydrateClock = new CallClock();
  const store = hydrateClock.wrap(marksClock.wrap(plainStore, ['marks', 'list']), ['readMessagesAt', 'readMessages']);
  const index = new RecallIndex(store);
  const handle = createSessionHandle({
    store,
    sessionId: 'recall-0',
    userId: USER,
    index,
    ...(embed === undefined ? {} : { embed }),
  });
  collectGarbage();
  const buildMs = await timed(() => handle.recall(texts[0] as string, { k: K }));
  const samples: number[] = [];
  const marks: number[] = [];
  const hydrate: number[] = [];
  let hits = 0;
  for (const [position, query] of texts.entries()) {
    marksClock.take();
    hydrateClock.take();
    const start = now();
    const found = await handle.recall(query, { k: K });
    if (position >= WARMUP) {
      samples.push(now() - start);
      marks.push(marksClock.take());
      hydrate.push(hydrateClock.take());
      hits += found.length;
    }
  }
  return { buildMs, samples, hits, marks, hydrate };
}

interface StoreResult {
  readonly kind: StoreKind;
  readonly writeMs: number;
  readonly text: ModeResult;
  readonly embedded: ModeResult | undefined;
  /** A second fresh index with embed: vectors read back from the store instead of computed. */
  readonly reloaded: ModeResult | undefined;
}

async function measureStore(
  kind: StoreKind,
  messages: readonly Message[],
  texts: readonly string[],
): Promise<StoreResult | string> {
  const opened = await openBenchStore(kind, 'recall');
  if (typeof opened === 'string') return opened;
  try {
    const { store } = opened;
    const writeMs = await timed(async () => {
      for (let start = 0; start < MESSAGES; start += PER_SESSION) {
        await store.save(
          Session.create({
            id: `recall-${start / PER_SESSION}`,
            userId: USER,
            messages: messages.slice(start, start + PER_SESSION),
          }),
        );
      }
    });
    await opened.analyze?.();
    const text = await measure(store, texts, undefined);
    const embedded = PARTS.has('embed') ? await measure(store, texts, hashedEmbed) : undefined;
    const reloaded = PARTS.has('embed') ? await measure(store, texts, hashedEmbed) : undefined;
    return { kind, writeMs, text, embedded, reloaded };
  } finally {
    await opened.dispose();
  }
}

function row(label: string, how: string, mode: ModeResult): string[] {
  return [
    label,
    how,
    formatMs(mode.buildMs),
    formatMs(percentile(mode.samples, 50)),
    formatMs(percentile(mode.samples, 95)),
    formatMs(percentile(mode.samples, 99)),
    (mode.hits / mode.samples.length).toFixed(1),
  ];
}

/** Every quality set recalled through a fresh store of `kind`. */
async function measureQuality(kind: StoreKind, sets: readonly QualitySet[]): Promise<Ranked[][] | string> {
  const opened = await openBenchStore(kind, 'recall-quality');
  if (typeof opened === 'string') return opened;
  try {
    const results: Ranked[][] = [];
    for (const [index, set] of sets.entries()) results.push(await recallThroughStore(opened.store, set, `q${index}`));
    return results;
  } finally {
    await opened.dispose();
  }
}

const percent = (hits: number, count: number): string => `${((100 * hits) / count).toFixed(1)}%`;

/** One table per set: a row per category and overall, hit@1/5/10 of plain BM25 and of each store. */
function qualityTables(sets: readonly QualitySet[], byStore: ReadonlyArray<[StoreKind, Ranked[][]]>): Table[] {
  return sets.map((set, index) => {
    const plain = hitRates(recallPlainBm25(set));
    const stores = byStore.map(([kind, results]) => [kind, hitRates(results[index] ?? [])] as const);
    const cell = (rates: ReturnType<typeof hitRates>, group: string): string => {
      const entry = rates.get(group);
      return entry === undefined
        ? '–'
        : CUTOFFS.map((_, i) => percent(entry.hits[i] as number, entry.count)).join(' / ');
    };
    const groups = [...plain.keys()].filter((group) => group !== 'overall').concat('overall');
    return {
      title: `Recall quality on the ${set.name}: hit@1 / hit@5 / hit@10 through \`SessionHandle.recall\``,
      headers: ['Questions', 'n', 'plain BM25 (baseline)', ...stores.map(([kind]) => LABEL[kind])],
      rows: groups.map((group) => [
        group === 'overall' ? '**overall**' : group,
        String(plain.get(group)?.count ?? 0),
        cell(plain, group),
        ...stores.map(([, rates]) => cell(rates, group)),
      ]),
    };
  });
}

/** Runs the recall bench on every store whose server can be had here. */
export async function runRecallBench(): Promise<SuiteReport> {
  const sets = qualitySets();
  const quality: Array<[StoreKind, Ranked[][]]> = [];
  const messages = benchHistory(MESSAGES).messages;
  const texts = queries(messages);
  const results: StoreResult[] = [];
  const skipped: string[] = [];
  for (const kind of STORE_KINDS.filter((kind) => ONLY === undefined || ONLY.includes(kind))) {
    console.error(`  recall: ${kind}…`);
    if (PARTS.has('quality')) {
      const scored = await measureQuality(kind, sets);
      if (typeof scored !== 'string') quality.push([kind, scored]);
    }
    if (!PARTS.has('speed') && !PARTS.has('embed')) continue;
    const result = await measureStore(kind, messages, texts);
    if (typeof result === 'string') skipped.push(`${LABEL[kind]} was not measured: ${result}.`);
    else results.push(result);
  }
  const headers = [
    'Store',
    'Ranking',
    'Index build (first recall)',
    'Recall p50',
    'Recall p95',
    'Recall p99',
    'Hits per recall',
  ];
  const textTable: Table = {
    title: `recall(query, { k: ${K} }) over ${formatCount(MESSAGES)} messages of one user (${MESSAGES / PER_SESSION} sessions), text only`,
    headers,
    rows: results.map((result) => row(LABEL[result.kind], 'in-process ranker', result.text)),
  };
  const embedTable: Table = {
    title: `The same with embed (${DIMENSIONS}-dimension hashed bag of words), fused with the text ranking (similarities beyond chance: \`ranking/fusion.ts\`)`,
    headers,
    rows: results.flatMap((result) =>
      result.embedded === undefined || result.reloaded === undefined
        ? []
        : [
            row(LABEL[result.kind], 'embed: vectors computed and stored', result.embedded),
            row(LABEL[result.kind], 'embed: vectors read back from the store', result.reloaded),
          ],
    ),
  };
  const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
  const breakdown: Table = {
    title: `Where a text-only recall's time goes (mean ms per recall, same run as above)`,
    headers: [
      'Store',
      'Recall (mean)',
      'marks (the one store call, from its start to its answer)',
      'the rest in process (sync, search not overlapped)',
      'hydrate (reading the hits)',
    ],
    rows: results.map(({ kind, text }) => {
      const total = mean(text.samples);
      const marks = mean(text.marks);
      const hydrate = mean(text.hydrate);
      return [LABEL[kind], formatMs(total), formatMs(marks), formatMs(total - marks - hydrate), formatMs(hydrate)];
    }),
  };
  const writes: Table = {
    title: 'Writing the corpus (context, not a recall figure)',
    headers: ['Store', `${MESSAGES / PER_SESSION} saves of ${formatCount(PER_SESSION)} messages`],
    rows: results.map((result) => [LABEL[result.kind], formatMs(result.writeMs)]),
  };
  return {
    name: 'recall',
    title: 'Active memory: recall quality, and recall over 100k stored messages',
    tables: [...(quality.length > 0 ? qualityTables(sets, quality) : []), textTable, breakdown, embedTable, writes],
    notes: [
      'Quality: each conversation is saved as one user\'s sessions (one message per turn, `"<speaker>: <text>"`, timestamped at its session\'s date) and every question is asked with `recall(question, { k: 10 })` through a `SessionHandle` of that user on a fresh `RecallIndex`; a question is a hit at k when one of its evidence turns is among the first k results. LoCoMo categories as its README numbers them (5, adversarial, left out). The baseline is plain Okapi BM25 (k1 1.2, b 0.75, lowercase alphanumeric words, no stemming, no stopwords) over the same turns, in process, in this run.',
      "The synthetic set (`test/support/recall-conversations.ts`): seeded two-person conversations of 16 two-weekly sessions of small talk with planted facts and decoys (every session has turns sharing words with some question, and every fact a hard decoy said by its owner in another session with as many of the question's words); its questions use other word forms or other words of a fact, ask what was answered to a question, ask when or name the month, or need a second fact.",
      `Corpus: the first ${formatCount(MESSAGES)} messages of \`bench/corpus.ts\` (seed ${REPORT_SEED}), saved as ${MESSAGES / PER_SESSION} sessions of one user. Its vocabulary is small (a few hundred content words), so a query word matches a large share of all messages: a hard case for any full-text index.`,
      `Queries: ${QUERIES} timed recalls (after ${WARMUP} untimed) of two or three words taken from random user messages; each recall also reads its hits' current text from the store (k = ${K} reads).`,
      '"Index build" is the first recall on a fresh `RecallIndex`: it reads and indexes every message (every store ranks in process; the SQL stores\' own full-text search is not used for recall). With embed it includes embedding every message and storing the vectors beside them (`store.values`, session scope), or, in the last rows, reading those stored vectors back.',
      "The embedding here is a cheap deterministic function, so the figures are chatstate's cost; a real model adds its own time to the build (once per message) and to every recall (one call for the query).",
      'With embed, every recall also compares the query with all 100k vectors: they are held as one contiguous float32 matrix per user, with an int8 copy scanned by a WebAssembly SIMD kernel (6.4 MB read per recall at 64 dimensions) and the rows near the top scored again exactly (`vector-matrix.ts`).',
      "Later recalls are incremental: one `marks` call (each of the user's sessions' id, version and counts: one script per bucket on Redis, a listing elsewhere), then tail reads only of sessions whose version changed. A text-only recall searches what is indexed while the store answers the `marks` call and keeps that result when the marks show nothing changed, so the marks column of the breakdown includes the search it overlapped (with SQLite, whose calls are synchronous, and the memory store there is nothing to overlap).",
      ...skipped,
    ],
  };
}
