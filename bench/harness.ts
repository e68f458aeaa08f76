/**
 * The little the benches need: timing with warm-up and medians, interleaved runs (so that load on
 * a shared machine hits the compared functions alike), and report tables.
 * @module
 */

/** A markdown table. */
export interface Table {
  readonly title: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** What a suite reports: tables, and notes that explain how the figures were measured. */
export interface SuiteReport {
  readonly name: string;
  readonly title: string;
  readonly tables: readonly Table[];
  readonly notes: readonly string[];
}

/** Timing options. */
export interface TimingOptions {
  /** Untimed runs first (JIT, caches). @default 2 */
  warmup?: number;
  /** Timed runs; the median is reported. @default 7 */
  repetitions?: number;
  /** Calls per timed run, for functions too fast to time one call at a time. @default 1 */
  batch?: number;
}

/** Milliseconds per call of `fn`, run `batch` times in a row. */
export function timeOnce(fn: () => unknown, batch = 1): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / batch;
}

/** Milliseconds elapsed awaiting `fn` once. */
export async function timeOnceAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Median milliseconds of `fn` awaited `repetitions` times after `warmup` untimed runs. */
export async function timeAsync(fn: () => Promise<unknown>, options: TimingOptions = {}): Promise<number> {
  const { warmup = 1, repetitions = 5 } = options;
  const samples: number[] = [];
  for (let round = 0; round < warmup + repetitions; round++) {
    const elapsed = await timeOnceAsync(fn);
    if (round >= warmup) samples.push(elapsed);
  }
  return median(samples);
}

/** The median of non-empty `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const value = sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  if (value === undefined) throw new Error('median() of no values');
  return value;
}

/**
 * Milliseconds of each function in every timed round, run round-robin (a, b, c, a, b, c, …)
 * after warm-up, so that a burst of load on the machine slows all of them rather than one.
 */
export function timeRounds(
  fns: Readonly<Record<string, () => unknown>>,
  options: TimingOptions = {},
): Record<string, number[]> {
  const { warmup = 2, repetitions = 7, batch = 1 } = options;
  const names = Object.keys(fns);
  const samples: Record<string, number[]> = {};
  for (const name of names) samples[name] = [];
  for (let round = 0; round < warmup + repetitions; round++) {
    // Alternate the order too, so that no function always runs right after the same neighbour.
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const fn = fns[name];
      if (fn === undefined) continue;
      const elapsed = timeOnce(fn, batch);
      if (round >= warmup) samples[name]?.push(elapsed);
    }
  }
  return samples;
}

/** Median milliseconds of each function, timed by `timeRounds`. */
export function timeInterleaved(
  fns: Readonly<Record<string, () => unknown>>,
  options: TimingOptions = {},
): Record<string, number> {
  const samples = timeRounds(fns, options);
  const result: Record<string, number> = {};
  for (const [name, values] of Object.entries(samples)) result[name] = median(values);
  return result;
}

/** The median over rounds of `numerator[i] / denominator[i]`: steadier than a ratio of medians under bursty load. */
export function pairedRatio(numerator: readonly number[], denominator: readonly number[]): number {
  return median(numerator.map((value, index) => value / (denominator[index] ?? NaN)));
}

/** Milliseconds with a sensible number of digits. */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(0)} µs`;
}

/** A ratio such as `0.97×` or `1,234×`. */
export function formatRatio(ratio: number): string {
  if (ratio >= 100) return `${Math.round(ratio).toLocaleString('en-US')}×`;
  if (ratio >= 10) return `${ratio.toFixed(1)}×`;
  return `${ratio.toFixed(2)}×`;
}

/** A signed percentage such as `+4.2%`. */
export function formatPercent(fraction: number): string {
  const percent = fraction * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

/** An integer with thousands separators. */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Millions of characters per second. */
export function formatThroughput(chars: number, ms: number): string {
  return `${(chars / ms / 1000).toFixed(1)} M chars/s`;
}

/** `table` as markdown lines. */
export function renderTable(table: Table): string[] {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [
    `**${table.title}**`,
    '',
    line(table.headers),
    line(table.headers.map((_, index) => (index === 0 ? ':--' : '--:'))),
    ...table.rows.map(line),
  ];
}

/** A pass/fail mark for a target. */
export function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

/** The positive number in environment variable `name` (a whole one when `integer`), else `fallback`: a bench's size knob. */
export function envNumber(name: string, fallback: number, { integer = true }: { integer?: boolean } = {}): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 && (!integer || Number.isInteger(value)) ? value : fallback;
}
