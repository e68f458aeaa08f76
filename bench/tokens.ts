/**
 * Token benches: exact counting throughput against `gpt-tokenizer` called directly, the default
 * estimate's error against exact `o200k_base` per kind of content, and the estimate's speed.
 * @module
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateText, tokens } from '../src/tokens/index.js';
import { CONTENT_KINDS, REPORT_SEED, TUNING_SEED, generateCorpus, type ContentKind, type Corpus } from './corpus.js';
import {
  formatCount,
  formatMs,
  formatPercent,
  formatRatio,
  formatThroughput,
  median,
  pairedRatio,
  timeRounds,
  verdict,
  type SuiteReport,
  type Table,
} from './harness.js';

/** Messages in the token corpus (about 1.1 M characters). */
const CORPUS_MESSAGES = 2000;
// The compared counters differ by a few percent at most, so many rounds keep the median steady on a busy machine.
const EXACT_TIMING = { warmup: 3, repetitions: 15 };
// The same options chatstate passes: text containing "<|endoftext|>" is counted, not rejected.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const KIND_LABELS: Record<ContentKind, string> = {
  prose: 'prose (user, assistant, system)',
  code: 'code blocks (TS, Python)',
  jsonArgs: 'tool call arguments (JSON)',
  jsonOutputs: 'tool outputs (JSON)',
};

const exact = (text: string): number => countTokens(text, PLAIN_TEXT);
const charsOver4 = (text: string): number => Math.ceil(text.length / 4);

function countAll(texts: readonly string[], count: (text: string) => number): number {
  let total = 0;
  for (const text of texts) total += count(text);
  return total;
}

function charsOf(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts) total += text.length;
  return total;
}

type Encode = (text: string) => number;

/** js-tiktoken, when some other package installed it (it is not our dependency); undefined otherwise. */
async function loadJsTiktoken(): Promise<Encode | undefined> {
  // Specifiers in variables: the bench must typecheck and run whether or not the package is there.
  const liteSpecifier = 'js-tiktoken/lite';
  const ranksSpecifier = 'js-tiktoken/ranks/o200k_base';
  try {
    const lite = (await import(liteSpecifier)) as { Tiktoken?: unknown };
    const ranks = (await import(ranksSpecifier)) as { default?: unknown };
    if (typeof lite.Tiktoken !== 'function' || ranks.default === undefined) return undefined;
    const Tiktoken = lite.Tiktoken as new (ranks: unknown) => {
      encode(text: string, allowed: string[], disallowed: string[]): number[];
    };
    const encoder = new Tiktoken(ranks.default);
    return (text) => encoder.encode(text, [], []).length;
  } catch {
    return undefined;
  }
}

async function exactThroughput(texts: readonly string[]): Promise<{ table: Table; notes: string[] }> {
  const chars = charsOf(texts);
  const ours = tokens.o200kBase;
  // One loop per counter: a shared loop taking the counter as an argument would be a polymorphic
  // call site, and whichever counter the JIT saw first would win by a few percent.
  const samples = timeRounds(
    {
      ours: () => {
        let total = 0;
        for (const text of texts) total += ours.countText(text);
        return total;
      },
      direct: () => {
        let total = 0;
        for (const text of texts) total += countTokens(text, PLAIN_TEXT);
        return total;
      },
      directDefault: () => {
        let total = 0;
        for (const text of texts) total += countTokens(text);
        return total;
      },
    },
    EXACT_TIMING,
  );
  const times = {
    ours: median(samples.ours ?? []),
    direct: median(samples.direct ?? []),
    directDefault: median(samples.directDefault ?? []),
  };
  const oursMs = times.ours;
  // chatstate's throughput relative to each counter = that counter's time ÷ chatstate's time, per round.
  const ratio = pairedRatio(samples.direct ?? [], samples.ours ?? []);
  const ratioDefault = pairedRatio(samples.directDefault ?? [], samples.ours ?? []);
  const row = (label: string, ms: number, relative: number): string[] => [
    label,
    formatMs(ms),
    formatThroughput(chars, ms),
    formatRatio(relative),
  ];
  const rows: string[][] = [
    row('`tokens.o200kBase.countText` (chatstate)', oursMs, 1),
    row('`countTokens` of gpt-tokenizer, same options', times.direct, ratio),
    row('`countTokens` of gpt-tokenizer, default options', times.directDefault, ratioDefault),
  ];
  const notes = [
    `Exact counting: chatstate runs at ${formatRatio(ratio)} the throughput of gpt-tokenizer called directly with the same options (target ≥ 0.9×: ${verdict(ratio >= 0.9)}), ${formatRatio(ratioDefault)} with its default options.`,
  ];
  const jsTiktoken = await loadJsTiktoken();
  if (jsTiktoken === undefined) {
    notes.push('js-tiktoken is not installed: not compared.');
  } else {
    const tiktoken = timeRounds(
      {
        jsTiktoken: () => countAll(texts, jsTiktoken),
        ours: () => {
          let total = 0;
          for (const text of texts) total += ours.countText(text);
          return total;
        },
      },
      { warmup: 1, repetitions: 3 },
    );
    const slower = pairedRatio(tiktoken.jsTiktoken ?? [], tiktoken.ours ?? []);
    rows.push(
      row(
        '`Tiktoken.encode` of js-tiktoken (installed only as a dependency of @langchain/core)',
        median(tiktoken.jsTiktoken ?? []),
        slower,
      ),
    );
    notes.push(
      `gpt-tokenizer (through chatstate) counts ${formatRatio(slower)} faster than js-tiktoken on the same texts (3 interleaved repetitions).`,
    );
  }
  return {
    table: {
      title: `Exact o200k_base counting of ${formatCount(texts.length)} texts (${formatCount(chars)} characters), median of ${EXACT_TIMING.repetitions} runs after ${EXACT_TIMING.warmup} warm-ups`,
      headers: ['Counter', 'Time', 'Throughput', 'chatstate’s throughput relative to it'],
      rows,
    },
    notes,
  };
}

interface KindError {
  readonly texts: number;
  readonly chars: number;
  readonly exact: number;
  readonly charsOver4: number;
  readonly estimate: number;
  /** Texts of 20+ tokens that the estimate undercounts by more than 10%. */
  readonly undercounted: number;
  /** Texts of 20+ tokens that characters/4 undercounts by more than 10%. */
  readonly naiveUndercounted: number;
  readonly measured: number;
}

function kindError(texts: readonly string[]): KindError {
  let truth = 0;
  let naive = 0;
  let ours = 0;
  let undercounted = 0;
  let naiveUndercounted = 0;
  let measured = 0;
  for (const text of texts) {
    const count = exact(text);
    const estimated = estimateText(text);
    const quarter = charsOver4(text);
    truth += count;
    naive += quarter;
    ours += estimated;
    if (count >= 20) {
      measured += 1;
      if (estimated < count * 0.9) undercounted += 1;
      if (quarter < count * 0.9) naiveUndercounted += 1;
    }
  }
  return {
    texts: texts.length,
    chars: charsOf(texts),
    exact: truth,
    charsOver4: naive,
    estimate: ours,
    undercounted,
    naiveUndercounted,
    measured,
  };
}

function share(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
}

function errorRow(label: string, error: KindError): string[] {
  return [
    label,
    formatCount(error.texts),
    formatCount(error.exact),
    (error.chars / error.exact).toFixed(2),
    formatPercent(error.charsOver4 / error.exact - 1),
    formatPercent(error.estimate / error.exact - 1),
    share(error.naiveUndercounted, error.measured),
    share(error.undercounted, error.measured),
  ];
}

function sum(errors: readonly KindError[]): KindError {
  const total = {
    texts: 0,
    chars: 0,
    exact: 0,
    charsOver4: 0,
    estimate: 0,
    undercounted: 0,
    naiveUndercounted: 0,
    measured: 0,
  };
  for (const error of errors) for (const key of Object.keys(total) as (keyof KindError)[]) total[key] += error[key];
  return total;
}

function estimateError(corpus: Corpus, tuning: Corpus): { table: Table; notes: string[] } {
  const errors = CONTENT_KINDS.map((kind) => kindError(corpus.texts[kind]));
  const total = sum(errors);
  const rows = CONTENT_KINDS.map((kind, index) => errorRow(KIND_LABELS[kind], errors[index] ?? total));
  rows.push(errorRow('**all text**', total));
  // Whole messages through the counters, overhead and tool-call names included.
  let exactMessages = 0;
  let estimatedMessages = 0;
  let naiveMessages = 0;
  const naive = tokens.create({ name: 'chars/4', countText: charsOver4 });
  for (const message of corpus.messages) {
    exactMessages += tokens.o200kBase.countMessage(message);
    estimatedMessages += tokens.estimate.countMessage(message);
    naiveMessages += naive.countMessage(message);
  }
  rows.push([
    '**whole messages** (`countMessage`, with overhead)',
    formatCount(corpus.messages.length),
    formatCount(exactMessages),
    '–',
    formatPercent(naiveMessages / exactMessages - 1),
    formatPercent(estimatedMessages / exactMessages - 1),
    '–',
    '–',
  ]);
  const tuningTotal = sum(CONTENT_KINDS.map((kind) => kindError(tuning.texts[kind])));
  const overall = total.estimate / total.exact - 1;
  const worstKind = Math.min(...errors.map((error) => error.estimate / error.exact - 1));
  return {
    table: {
      title: `Estimate error against exact o200k_base (corpus seed ${REPORT_SEED}, ${formatCount(corpus.messages.length)} messages; + means overcount)`,
      headers: [
        'Content',
        'Texts',
        'o200k tokens',
        'Chars/token',
        'chars/4',
        '`tokens.estimate`',
        'Texts chars/4 undercounts >10%',
        'Texts the estimate undercounts >10%',
      ],
      rows,
    },
    notes: [
      `Estimate: ${formatPercent(overall)} in total (requirement: no undercount, aim 0 to +10%: ${verdict(overall >= 0 && overall <= 0.1)}); worst kind ${formatPercent(worstKind)} (no kind under by more than a few %: ${verdict(worstKind >= -0.03)}). Plain characters/4 is ${formatPercent(total.charsOver4 / total.exact - 1)} in total.`,
      `The weights were fitted on a corpus of another seed (${TUNING_SEED}), where the estimate is ${formatPercent(tuningTotal.estimate / tuningTotal.exact - 1)} in total. The "undercounts >10%" columns count texts of 20 tokens or more.`,
    ],
  };
}

function estimateThroughput(texts: readonly string[]): { table: Table; notes: string[] } {
  const chars = charsOf(texts);
  // One loop per counter, as in exactThroughput.
  const samples = timeRounds(
    {
      estimate: () => {
        let total = 0;
        for (const text of texts) total += estimateText(text);
        return total;
      },
      charsOver4: () => {
        let total = 0;
        for (const text of texts) total += Math.ceil(text.length / 4);
        return total;
      },
      exact: () => {
        let total = 0;
        for (const text of texts) total += tokens.o200kBase.countText(text);
        return total;
      },
    },
    { warmup: 2, repetitions: 7 },
  );
  const estimate = samples.estimate ?? [];
  const row = (label: string, values: readonly number[]): string[] => {
    const ms = median(values);
    return [label, formatMs(ms), formatThroughput(chars, ms), formatRatio(pairedRatio(values, estimate))];
  };
  return {
    table: {
      title: `Counting speed on the same ${formatCount(chars)} characters, median of 7 runs after 2 warm-ups`,
      headers: ['Counter', 'Time', 'Throughput', 'Time relative to the estimate'],
      rows: [
        row('`estimateText`', estimate),
        row('characters/4', samples.charsOver4 ?? []),
        row('exact o200k_base (chatstate)', samples.exact ?? []),
      ],
    },
    notes: [
      `The estimate is ${formatRatio(pairedRatio(samples.exact ?? [], estimate))} faster than exact counting; characters/4 (no scan at all) is the floor.`,
    ],
  };
}

/** Runs the token benches. */
export async function runTokenBench(): Promise<SuiteReport> {
  const corpus = generateCorpus(CORPUS_MESSAGES, REPORT_SEED);
  const tuning = generateCorpus(CORPUS_MESSAGES, TUNING_SEED);
  const texts = CONTENT_KINDS.flatMap((kind) => corpus.texts[kind]);
  // Load the encoding before timing anything.
  tokens.o200kBase.countText('warm up');
  const parts = [await exactThroughput(texts), estimateError(corpus, tuning), estimateThroughput(texts)];
  return {
    name: 'tokens',
    title: 'Tokens',
    tables: parts.map((part) => part.table),
    notes: parts.flatMap((part) => part.notes),
  };
}
