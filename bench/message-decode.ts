/**
 * Decoding stored messages: `Message.fromStored` (the validated fast path) against
 * `Message.create` (zod) and `JSON.parse`, on the 100,000 message records of the corpus as the
 * stores write them. Targets: the decode's own time ≤ 0.5× `JSON.parse` of the same session as one
 * document, so that parse + decode of every record stays ≤ 1.5×.
 * @module
 */
import { buildStoredMessage } from '../src/message/fast-parse.js';
import { Message, type MessageInput } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import { recordCipher } from '../src/store/at-rest.js';
import { decodeMessage, encodeMessage } from '../src/store/codec.js';
import type { MessageRecord } from '../src/store/driver-types.js';
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
import { collectGarbage, formatBytes } from './store-fixtures.js';

const COUNT = 100_000;
/** Timed rounds, after one untimed warm-up round; every step is timed after a full garbage collection. */
const ROUNDS = 9;
/** The decode's own time, as a fraction of `JSON.parse` of the whole document. */
const DECODE_TARGET = 0.5;
/** Parse + decode of every record, as a multiple of `JSON.parse` of the whole document. */
const LOAD_TARGET = 1.5;

type Fields = Record<string, unknown>;

/** Wall-clock and process CPU milliseconds of one run of `step`. */
function measure(step: () => unknown): { wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  step();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1e3 };
}

/** A record parsed as `decodeMessage` hands it to validation: its fields plus the record's seq. */
function parseRecord(record: MessageRecord): Fields {
  const fields = JSON.parse(record.data) as Fields;
  fields.seq = record.seq;
  return fields;
}

/** The decode suite. */
export async function runMessageDecodeBench(): Promise<SuiteReport> {
  const messages = benchHistory(COUNT).messages;
  const cipher = recordCipher(undefined, 'bench');
  const records: MessageRecord[] = messages.map((message, index) => ({
    seq: index + 1,
    id: message.id,
    data: encodeMessage(message, 'big', cipher),
  }));
  const document = JSON.stringify(Session.create({ id: 'big', messages }));
  // Parsed once, untimed, for the steps that time validation alone.
  const parsed = records.map(parseRecord);

  // Untimed: the fast path must give what `create` gives, and must not be falling back to it.
  let fastHits = 0;
  for (const fields of parsed) {
    const fast = buildStoredMessage(fields);
    if (fast === undefined) continue;
    fastHits += 1;
    if (JSON.stringify(fast) !== JSON.stringify(Message.create(fields as MessageInput)))
      throw new Error(`fromStored and create differ on ${String(fields.id)}`);
  }

  const steps: Record<string, () => unknown> = {
    document: () => JSON.parse(document),
    records: () => records.map(parseRecord),
    parseFromStored: () => records.map((record) => Message.fromStored(parseRecord(record))),
    parseCreate: () => records.map((record) => Message.create(parseRecord(record) as MessageInput)),
    decode: () => records.map((record) => decodeMessage(record, 'big', cipher, 'bench')),
    touch: () => {
      let total = 0;
      for (const fields of parsed)
        total +=
          (fields.id as string).length +
          (fields.content as string | unknown[]).length +
          (fields.timestamp as string).length;
      return total;
    },
    fromStored: () => parsed.map((fields) => Message.fromStored(fields)),
    create: () => parsed.map((fields) => Message.create(fields as MessageInput)),
  };
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (let round = 0; round <= ROUNDS; round++) {
    // Alternate the order so that no step always runs right after the same neighbour.
    const names = round % 2 === 0 ? Object.keys(steps) : Object.keys(steps).reverse();
    for (const name of names) {
      const step = steps[name];
      if (step === undefined) continue;
      collectGarbage();
      const time = measure(step);
      if (round === 0) continue;
      (wall[name] ??= []).push(time.wall);
      (cpu[name] ??= []).push(time.cpu);
    }
  }

  const of = (samples: Record<string, number[]>, name: string): number[] => samples[name] ?? [];
  const ratio = (samples: Record<string, number[]>, name: string): number =>
    pairedRatio(of(samples, name), of(samples, 'document'));
  /** The median over rounds of (`name` − `base`) ÷ the document parse: a step's own share. */
  const extra = (samples: Record<string, number[]>, name: string, base: string): number =>
    median(
      of(samples, name).map(
        (value, index) => (value - (of(samples, base)[index] ?? NaN)) / (of(samples, 'document')[index] ?? NaN),
      ),
    );
  const row = (label: string, name: string): string[] => [
    label,
    formatMs(median(of(wall, name))),
    formatRatio(ratio(wall, name)),
    formatMs(median(of(cpu, name))),
    formatRatio(ratio(cpu, name)),
  ];
  const table: Table = {
    title: `Decoding the ${formatCount(COUNT)} message records of the corpus (${formatBytes(Buffer.byteLength(document))} as one session document; ${ROUNDS} rounds, each step after a full garbage collection)`,
    headers: ['Step', 'Wall time', '÷ `JSON.parse` of the document', 'CPU time (process)', '÷ `JSON.parse` (CPU)'],
    rows: [
      row('`JSON.parse` of the session as one document (the baseline)', 'document'),
      row('`JSON.parse` of each message record, plus its `seq`', 'records'),
      row('… then `Message.fromStored` of each (parse + the fast path)', 'parseFromStored'),
      row('… then `Message.create` of each (parse + zod)', 'parseCreate'),
      row('`decodeMessage` of each record, as `src/store/codec.ts` runs it now', 'decode'),
      row('Records parsed long before: reading `id`, `content` and `timestamp` of each (memory access alone)', 'touch'),
      row('Records parsed long before: `Message.fromStored` of each', 'fromStored'),
      row('Records parsed long before: `Message.create` of each', 'create'),
    ],
  };
  const ownWall = extra(wall, 'parseFromStored', 'records');
  const ownCpu = extra(cpu, 'parseFromStored', 'records');
  const loadWall = ratio(wall, 'parseFromStored');
  const loadCpu = ratio(cpu, 'parseFromStored');
  return {
    name: 'decode',
    title: 'Decoding stored messages: the validated fast path',
    tables: [table],
    notes: [
      `The fast path's own time (parse + \`fromStored\` − parse, per round) ≤ ${DECODE_TARGET}× \`JSON.parse\` of the document: ${verdict(ownWall <= DECODE_TARGET)} (${formatRatio(ownWall)} wall, ${formatRatio(ownCpu)} CPU); zod's own time the same way: ${formatRatio(extra(wall, 'parseCreate', 'records'))} wall, ${formatRatio(extra(cpu, 'parseCreate', 'records'))} CPU.`,
      `Parse + \`fromStored\` of every record ≤ ${LOAD_TARGET}× \`JSON.parse\` of the document: ${verdict(loadWall <= LOAD_TARGET)} (${formatRatio(loadWall)} wall, ${formatRatio(loadCpu)} CPU). A store's \`load\` adds its own work (the head, \`Session.fromJSON\`).`,
      `The fast path built ${formatCount(fastHits)} of the ${formatCount(parsed.length)} messages itself (the rest went to \`Message.create\`), each equal as JSON to what \`Message.create\` returns for the same record (checked before timing).`,
      "Records are what the stores write (`encodeMessage`, no encryption); `seq` is added to the parsed fields as `decodeMessage` does. Ratios are medians of per-round ratios. CPU time is the process's (garbage collector threads included); on a busy machine it moves less than wall time.",
      'The three "parsed long before" rows validate records parsed before timing, as the read suite\'s breakdown times `Message.create`: each record is then far from the cache; the row that only reads three fields of each shows what merely visiting them costs.',
    ],
  };
}
