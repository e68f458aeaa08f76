/**
 * Reads, in every store: the last 200 messages of a 100k-message session against the same read on
 * a 1k-message one, and a full load of the 100k-message session against `JSON.parse` of the same
 * session as one JSON document — with a breakdown of where a load's time goes.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { Message, type MessageInput } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import { recordCipher } from '../src/store/at-rest.js';
import { decodeMessage, encodeMessage } from '../src/store/codec.js';
import type { MessageRecord } from '../src/store/driver-types.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import type { FileDriverOptions } from '../src/stores/file/index.js';
import { createSessionStore } from '../src/store/session-store.js';
import { memoryDriver } from '../src/stores/memory.js';
import {
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
import {
  STORE_KINDS,
  benchDir,
  collectGarbage,
  diskNote,
  formatBytes,
  now,
  openBenchStore,
  removeBenchDir,
  timed,
  warmUp,
  type BenchStore,
  type StoreKind,
} from './store-fixtures.js';

const BIG = 100_000;
const SMALL = 1_000;
const TAIL = 200;
/** Tail reads per size on an open store (interleaved 1k, 100k, 1k, …), fewer when one read is slow. */
const TAIL_ROUNDS = 21;
/** Slow tail reads stop after this much time per store and size, once `MIN_ROUNDS` are done. */
const TAIL_BUDGET_MS = 4_000;
const MIN_ROUNDS = 3;
/** Tail reads per size on a freshly opened store (file and SQLite: nothing cached in the process). */
const COLD_TAIL_ROUNDS = 3;
/** Full loads of the 100k session per store, each next to the two baselines. */
const LOAD_ROUNDS = 3;
/** Rounds of the load breakdown (one store, cheaper steps). */
const BREAKDOWN_ROUNDS = 5;
const TAIL_TARGET = 2;
const LOAD_TARGET = 1.5;
/** The file store's parsed-session cache in the second file variant: room for the 100k session. */
const BIG_CACHE = 256 << 20;

const LABEL: Record<StoreKind, string> = {
  memory: 'memory',
  file: 'file',
  sqlite: 'SQLite',
  postgres: 'Postgres',
  redis: 'Redis',
};
/** Stores that keep data in this process between calls, where a fresh instance reads differently. */
const EMBEDDED: ReadonlySet<StoreKind> = new Set(['file', 'sqlite']);

/** A store as measured: its kind, a label, driver options, and whether its full load is measured. */
interface Variant {
  readonly kind: StoreKind;
  readonly label: string;
  readonly fileOptions?: FileDriverOptions;
  readonly load: boolean;
}

/** `BENCH_STORES=file,memory`: only these kinds (a quicker run while working on one store); all by default. */
const ONLY = process.env.BENCH_STORES?.split(',').map((kind) => kind.trim());

const VARIANTS: readonly Variant[] = [
  ...STORE_KINDS.map((kind): Variant => ({ kind, label: LABEL[kind], load: true })),
  {
    kind: 'file',
    label: `file, \`cacheBytes: ${BIG_CACHE >> 20} MiB\``,
    fileOptions: { cacheBytes: BIG_CACHE },
    load: false,
  } satisfies Variant,
].filter((variant: Variant) => ONLY === undefined || ONLY.includes(variant.kind));

interface TailResult {
  readonly how: string;
  readonly small: number[];
  readonly big: number[];
}

interface StoreResult {
  readonly variant: Variant;
  readonly saveMs: number;
  readonly tails: TailResult[];
  readonly load?: { readonly store: number[]; readonly parse: number[]; readonly readParse: number[] };
}

async function tail(store: SessionStore, id: string, expectedLast: number): Promise<number> {
  let last = -1;
  const ms = await timed(async () => {
    const messages = await store.readMessages(id, { limit: TAIL });
    if (messages.length !== TAIL) throw new Error(`${store.name}: read ${messages.length} messages, expected ${TAIL}`);
    last = messages.at(-1)?.seq ?? -1;
  });
  if (last !== expectedLast)
    throw new Error(`${store.name}: the last message read has seq ${last}, expected ${expectedLast}`);
  return ms;
}

/** Tail reads on an open store, alternating sizes; slow reads stop at the time budget. */
async function warmTails(store: SessionStore, how: string): Promise<TailResult> {
  const result: TailResult = { how, small: [], big: [] };
  const start = now();
  for (let round = 0; round < TAIL_ROUNDS && (round < MIN_ROUNDS || now() - start < TAIL_BUDGET_MS); round++) {
    const order: Array<'small' | 'big'> = round % 2 === 0 ? ['small', 'big'] : ['big', 'small'];
    for (const size of order) result[size].push(await tail(store, size, size === 'big' ? BIG : SMALL));
  }
  return result;
}

/** Tail reads, each the first read of a freshly opened store. */
async function coldTails(opened: BenchStore): Promise<TailResult> {
  const result: TailResult = { how: 'freshly opened store (its first read)', small: [], big: [] };
  for (let round = 0; round < COLD_TAIL_ROUNDS; round++) {
    for (const size of ['small', 'big'] as const) {
      const fresh = await opened.reopen();
      try {
        result[size].push(await tail(fresh, size, size === 'big' ? BIG : SMALL));
      } finally {
        await fresh.close();
      }
    }
  }
  return result;
}

async function measureStore(
  opened: BenchStore,
  variant: Variant,
  sessions: { big: Session; small: Session },
  json: { text: string; file: string },
): Promise<StoreResult> {
  const { store } = opened;
  const saveMs = await timed(() => store.save(sessions.big));
  await store.save(sessions.small);
  const tails = [await warmTails(store, 'open store')];
  if (opened.analyze !== undefined) {
    // Right after a bulk save the planner has no statistics of the new rows; autovacuum gathers them later.
    await opened.analyze();
    tails.push(await warmTails(store, 'open store, after `ANALYZE`'));
  }
  if (variant.load && EMBEDDED.has(variant.kind)) tails.push(await coldTails(opened));
  if (!variant.load) return { variant, saveMs, tails };
  const load = { store: [] as number[], parse: [] as number[], readParse: [] as number[] };
  for (let round = 0; round < LOAD_ROUNDS; round++) {
    collectGarbage();
    load.parse.push(await timed(async () => JSON.parse(json.text)));
    collectGarbage();
    load.readParse.push(await timed(async () => JSON.parse(fs.readFileSync(json.file, 'utf8'))));
    // Embedded stores are loaded through a fresh instance: from their files, not this process's cache.
    const reader = EMBEDDED.has(variant.kind) ? await opened.reopen() : store;
    try {
      let count = 0;
      collectGarbage();
      load.store.push(await timed(async () => (count = (await reader.load('big')).messages.length)));
      if (count !== BIG) throw new Error(`${store.name}: loaded ${count} messages, expected ${BIG}`);
    } finally {
      if (reader !== store) await reader.close();
    }
  }
  return { variant, saveMs, tails, load };
}

/** Where a full load's time goes: the same 100k records decoded step by step, next to `JSON.parse`. */
async function loadBreakdown(messages: readonly Message[], json: string): Promise<Record<string, number[]>> {
  const cipher = recordCipher(undefined, 'bench');
  const records: MessageRecord[] = messages.map((message, index) => ({
    seq: index + 1,
    id: message.id,
    data: encodeMessage(message, 'big', cipher),
  }));
  // Parsed once, untimed, so that one step times `Message.create` alone.
  const parsed = records.map((record) => ({ ...(JSON.parse(record.data) as MessageInput), seq: record.seq }));
  // A memory driver that does not offer its records as stable objects: every load decodes them, as a
  // durable store's does (the memory store itself keeps the decoded messages).
  const store = createSessionStore({ ...memoryDriver(), capabilities: Object.freeze({ expiryInCommit: true }) });
  try {
    await store.save(Session.create({ id: 'big', messages }));
    const steps: Record<string, () => unknown> = {
      parse: () => JSON.parse(json),
      records: () => records.map((record) => JSON.parse(record.data) as unknown),
      create: () => parsed.map((fields) => Message.create(fields)),
      decode: () => records.map((record) => decodeMessage(record, 'big', cipher, 'bench')),
    };
    const samples: Record<string, number[]> = { parse: [], records: [], create: [], decode: [], load: [] };
    for (let round = 0; round < BREAKDOWN_ROUNDS; round++) {
      for (const [name, step] of Object.entries(steps)) {
        collectGarbage();
        samples[name]?.push(await timed(async () => step()));
      }
      collectGarbage();
      samples.load?.push(await timed(() => store.load('big')));
    }
    return samples;
  } finally {
    await store.close();
  }
}

function tailRow(label: string, result: TailResult): string[] {
  const ratio = pairedRatio(result.big, result.small);
  return [
    `${label}, ${result.how}`,
    formatCount(result.small.length),
    formatMs(median(result.small)),
    formatMs(median(result.big)),
    formatRatio(ratio),
    `${verdict(ratio <= TAIL_TARGET)} (≤ ${TAIL_TARGET}×)`,
  ];
}

/** The read suite. */
export async function runStoreReadBench(): Promise<SuiteReport> {
  const history = benchHistory(BIG).messages;
  const sessions = {
    big: Session.create({ id: 'big', messages: history }),
    small: Session.create({ id: 'small', messages: history.slice(0, SMALL) }),
  };
  const dir = benchDir('reads');
  const json = { text: JSON.stringify(sessions.big), file: path.join(dir, 'session.json') };
  fs.writeFileSync(json.file, json.text);
  const results: StoreResult[] = [];
  const skipped: string[] = [];
  let breakdown: Record<string, number[]>;
  try {
    for (const variant of VARIANTS) {
      await warmUp(variant.kind, 20);
      const opened = await openBenchStore(variant.kind, 'reads', variant.fileOptions);
      if (typeof opened === 'string') {
        skipped.push(`${variant.label}: not measured, ${opened}`);
        continue;
      }
      try {
        results.push(await measureStore(opened, variant, sessions, json));
      } finally {
        await opened.dispose();
      }
    }
    breakdown = await loadBreakdown(history, json.text);
  } finally {
    removeBenchDir(dir);
  }
  const bytes = formatBytes(Buffer.byteLength(json.text));
  const tailTable: Table = {
    title: `The last ${TAIL} messages (\`readMessages(id, { limit: ${TAIL} })\`) of a ${formatCount(BIG)}-message session against a ${formatCount(SMALL)}-message one (medians; ratio = median of per-round ratios)`,
    headers: [
      'Store',
      'Reads per size',
      `At ${formatCount(SMALL)}`,
      `At ${formatCount(BIG)}`,
      `${formatCount(BIG)} ÷ ${formatCount(SMALL)}`,
      'Target',
    ],
    rows: results.flatMap((result) => result.tails.map((tails) => tailRow(result.variant.label, tails))),
  };
  const loaded = results.filter((result) => result.load !== undefined);
  const loadTable: Table = {
    title: `Full load of the ${formatCount(BIG)}-message session (\`load(id)\`) against \`JSON.parse\` of the same session as one JSON document (${bytes}), ${LOAD_ROUNDS} rounds`,
    headers: [
      'Store',
      '`save` (once)',
      '`load`',
      '`JSON.parse` (string in memory)',
      '`readFileSync` + `JSON.parse`',
      'load ÷ JSON.parse',
      'load ÷ read + parse',
      `Target (≤ ${LOAD_TARGET}× JSON.parse)`,
    ],
    rows: loaded.map((result) => {
      const load = result.load as NonNullable<StoreResult['load']>;
      const vsParse = pairedRatio(load.store, load.parse);
      return [
        `${result.variant.label}${EMBEDDED.has(result.variant.kind) ? ' (freshly opened store)' : ''}`,
        formatMs(result.saveMs),
        formatMs(median(load.store)),
        formatMs(median(load.parse)),
        formatMs(median(load.readParse)),
        formatRatio(vsParse),
        formatRatio(pairedRatio(load.store, load.readParse)),
        verdict(vsParse <= LOAD_TARGET),
      ];
    }),
  };
  const step = (name: string): number[] => breakdown[name] ?? [];
  const breakdownRow = (label: string, name: string): string[] => [
    label,
    formatMs(median(step(name))),
    formatRatio(pairedRatio(step(name), step('parse'))),
  ];
  const breakdownTable: Table = {
    title: `Where a load's time goes: the ${formatCount(BIG)} stored message records decoded step by step (a durable store's path, over a memory driver; ${BREAKDOWN_ROUNDS} rounds, each step after a full garbage collection)`,
    headers: ['Step', 'Time', '÷ `JSON.parse` of the whole document'],
    rows: [
      breakdownRow('`JSON.parse` of the session as one document (the baseline)', 'parse'),
      breakdownRow('`JSON.parse` of each message record (records are opaque strings to drivers)', 'records'),
      breakdownRow(
        '`Message.create` of each record already parsed (zod validation, normalizing, freezing) — alone',
        'create',
      ),
      breakdownRow(
        '`decodeMessage` of each record: its parse, then `Message.fromStored` of the parsed fields (the validated fast path)',
        'decode',
      ),
      breakdownRow(
        '`load` from a memory driver whose records must be decoded: the above plus the head and `Session.fromJSON`',
        'load',
      ),
    ],
  };
  const tailMisses = results.flatMap((result) =>
    result.tails
      .filter((tails) => pairedRatio(tails.big, tails.small) > TAIL_TARGET)
      .map((tails) => `${result.variant.label}, ${tails.how} (${formatRatio(pairedRatio(tails.big, tails.small))})`),
  );
  const loadVerdicts = loaded.map((result) => {
    const ratio = pairedRatio(result.load?.store ?? [], result.load?.parse ?? []);
    return `${result.variant.label} ${verdict(ratio <= LOAD_TARGET)} (${formatRatio(ratio)})`;
  });
  return {
    name: 'reads',
    title: 'Reads: the tail of a long session, a full load',
    tables: [tailTable, loadTable, breakdownTable],
    notes: [
      diskNote(),
      `The last ${TAIL} messages at ${formatCount(BIG)} ≤ ${TAIL_TARGET}× at ${formatCount(SMALL)}: ${tailMisses.length === 0 ? 'met in every store and way of reading' : `NOT met by ${tailMisses.join('; ')}; met by the other rows`}.`,
      `Full load ≤ ${LOAD_TARGET}× \`JSON.parse\` of the same session: ${loadVerdicts.join('; ')}.`,
      ...skipped,
      `Sessions: the first ${formatCount(BIG)} messages of the corpus (${bytes} as JSON) and its first ${formatCount(SMALL)}, each stored once with \`save\`. "Open store": the instance that saved them, up to ${TAIL_ROUNDS} reads per size alternating, stopped after ${formatMs(TAIL_BUDGET_MS)} per size once ${MIN_ROUNDS} are done (slow reads). "Freshly opened": a new store instance on the same files for every read — the OS page cache is warm, the process holds nothing — ${COLD_TAIL_ROUNDS} reads per size.`,
      `The file store keeps sessions' records in memory up to \`cacheBytes\` (64 MiB by default); beyond it, the least recently used sessions keep only their head, block index and journal records, and their tail reads go to the snapshot's last blocks. The ${formatCount(BIG)}-message session is larger, so with the default its tail reads go to the file each time. The \`cacheBytes: ${BIG_CACHE >> 20} MiB\` row is the same store with room for it (its tail reads only).`,
      `Postgres is read right after the bulk \`save\` (the store gathers planner statistics itself after a save of 5,000 messages or more: without them the planner answered a 100k tail read with a sort of all the session's rows, 22× slower in earlier runs), and again after an explicit \`ANALYZE\` of its two tables.`,
      `Full load: \`load('big')\` returns a validated \`Session\` of ${formatCount(BIG)} messages. File and SQLite are loaded through a freshly opened instance each round (from their files); memory, Postgres and Redis through the open store. The baselines are \`JSON.parse\` of \`JSON.stringify(session)\` held in memory, and the same after \`readFileSync\` of it; the three are timed in the same round, ${LOAD_ROUNDS} rounds per store, each after a full garbage collection (so none pays for another's garbage).`,
      "Every durable store decodes each message from its own record string (drivers never parse message JSON) and validates it (`decodeMessage`: the fast path of `Message.fromStored`, else `Message.create`). The memory store holds its records as the very objects it was given (`stableRecords`), so the store core keeps the message each stands for and its load parses nothing: the breakdown below times the decoding path on a memory driver without that capability. The file store keeps each record string as it is in its snapshot (one line per message after a short prefix with its seq and id), so every message is parsed once; a tail read reads the snapshot's header, its block index and the blocks that hold the last messages, each verified by its checksum.",
    ],
  };
}
