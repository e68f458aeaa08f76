/**
 * What a recall query says about time, and which messages can answer it. A question that asks
 * when something happened ("When did…", "How long ago…", "What year…") is answered by a message
 * that places the event in time ("yesterday", "last week", "in May"), read with that message's
 * own timestamp — and so is one asking what happened "recently" or "lately" ("What did she paint
 * recently?": the message saying "we just finished one last weekend"); a question that names a period ("in June", "May 2023", "in 2022", "last summer")
 * is about messages written in it. English only; nothing here depends on the current date.
 * @module
 */
import { forEachWord } from '../text-index.js';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const SEASONS: Readonly<Record<string, readonly number[]>> = {
  spring: [2, 3, 4],
  summer: [5, 6, 7],
  autumn: [8, 9, 10],
  fall: [8, 9, 10],
  winter: [11, 0, 1],
};

const ASKS_TIME =
  /\b(when|how long|how many (?:years|months|weeks|days|times)|what (?:year|month|date|day|time|week)|which (?:year|month|day|week)|since when|recently|lately)\b/i;
const MONTH_OR_YEAR = new RegExp(
  `\\b(?:(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\b\\.?(?:\\s+(?:of\\s+)?((?:19|20)\\d\\d))?|((?:19|20)\\d\\d)\\b|(spring|summer|autumn|fall|winter)\\b)`,
  'gi',
);
/** Words that place something in time on their own (`forEachWord`'s lowercase words). */
const TIME_WORDS: ReadonlySet<string> = new Set([
  ...'yesterday today tonight tomorrow ago recently lately earlier weekend weekends last next since soon'.split(' '),
  ...'monday tuesday wednesday thursday friday saturday sunday'.split(' '),
  ...MONTHS,
  ...'week weeks month months year years day days spring summer autumn winter'.split(' '),
]);
/** Words that place something in time after "this" ("this morning"). */
const AFTER_THIS: ReadonlySet<string> = new Set('morning evening fall'.split(' '));
const YEAR = /^(?:19|20)\d\d$/;

/** A span of the calendar a question names: a month (of any year without one), a year, or months of a season. */
export interface NamedPeriod {
  /** Months (0–11) the period covers; empty for a whole year. */
  readonly months: readonly number[];
  /** The year, when named. */
  readonly year?: number;
}

/** What a query asks about time. */
export interface TimeIntent {
  /** The query asks when (or how long ago) something happened. */
  readonly asksWhen: boolean;
  /** Periods the query names. */
  readonly periods: readonly NamedPeriod[];
}

/** The time intent of `query` (see the module comment). */
export function timeIntent(query: string): TimeIntent {
  const periods: NamedPeriod[] = [];
  for (const match of query.matchAll(MONTH_OR_YEAR)) {
    const [, month, monthYear, year, season] = match;
    if (month !== undefined) {
      // "may" is a verb far more often than a month: only "May" capitalized, or followed by a year, is one.
      if (month.toLowerCase() === 'may' && !/^May$/.test(month) && monthYear === undefined) continue;
      const index = MONTHS.findIndex((name) => name.startsWith(month.toLowerCase().slice(0, 3)));
      periods.push({ months: [index], ...(monthYear === undefined ? {} : { year: Number(monthYear) }) });
    } else if (year !== undefined) {
      periods.push({ months: [], year: Number(year) });
    } else if (season !== undefined) {
      periods.push({ months: SEASONS[season.toLowerCase()] ?? [] });
    }
  }
  return { asksWhen: ASKS_TIME.test(query), periods };
}

/** `timeWordFlags`: the word places something in time on its own. */
export const TIME_WORD = 1;
/** `timeWordFlags`: the word places something in time after "this". */
export const TIME_AFTER_THIS = 2;
/** `timeWordFlags`: the word is "this". */
export const THIS_WORD = 4;

/** What a lowercase word of `forEachWord` can say about time, as `TIME_WORD | TIME_AFTER_THIS | THIS_WORD` bits. */
export function timeWordFlags(word: string): number {
  return (
    (TIME_WORDS.has(word) || (word.length === 4 && YEAR.test(word)) ? TIME_WORD : 0) |
    (AFTER_THIS.has(word) ? TIME_AFTER_THIS : 0) |
    (word === 'this' ? THIS_WORD : 0)
  );
}

/** Whether `word` (a lowercase word of `forEachWord`) places something in time; `previous` is the word before it. */
export function isTimeWord(word: string, previous: string): boolean {
  const flags = timeWordFlags(word);
  return (flags & TIME_WORD) !== 0 || ((flags & TIME_AFTER_THIS) !== 0 && previous === 'this');
}

/** Whether `text` places something in time (a date, a weekday, "yesterday", "last week", …). */
export function mentionsTime(text: string): boolean {
  let found = false;
  let previous = '';
  forEachWord(text, (word) => {
    if (!found && isTimeWord(word, previous)) found = true;
    previous = word;
  });
  return found;
}

/** The calendar month of the instant `timestampMs` (UTC) as year × 12 + month, or -1 when unknown. */
export function monthOf(timestampMs: number): number {
  if (!Number.isFinite(timestampMs)) return -1;
  const date = new Date(timestampMs);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

/** Whether the calendar month `month` (as `monthOf` gives it) falls in one of `periods`. */
export function inPeriodMonth(month: number, periods: readonly NamedPeriod[]): boolean {
  if (month < 0) return false;
  const year = Math.floor(month / 12);
  const inYear = month % 12;
  return periods.some(
    (period) =>
      (period.year === undefined || period.year === year) &&
      (period.months.length === 0 || period.months.includes(inYear)),
  );
}

/** Whether the instant `timestampMs` (UTC) falls in one of `periods`. */
export function inPeriods(timestampMs: number, periods: readonly NamedPeriod[]): boolean {
  return inPeriodMonth(monthOf(timestampMs), periods);
}
