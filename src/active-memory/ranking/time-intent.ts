/**
 * What a recall query says about time, and which messages can answer it. A question that asks
 * when something happened ("When did…", "How long ago…", "What year…") is answered by a message
 * that places the event in time ("yesterday", "last week", "in May"), read with that message's
 * own timestamp; a question that names a period ("in June", "May 2023", "in 2022", "last summer")
 * is about messages written in it. English only; nothing here depends on the current date.
 * @module
 */

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
  /\b(when|how long|how many (?:years|months|weeks|days|times)|what (?:year|month|date|day|time|week)|which (?:year|month|day|week)|since when|how recently)\b/i;
const MONTH_OR_YEAR = new RegExp(
  `\\b(?:(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\b\\.?(?:\\s+(?:of\\s+)?((?:19|20)\\d\\d))?|((?:19|20)\\d\\d)\\b|(spring|summer|autumn|fall|winter)\\b)`,
  'gi',
);
const TIME_WORDS = new RegExp(
  `\\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|weekend|weekends|` +
    `last|next|this (?:week|month|year|morning|evening|summer|spring|fall|winter)|` +
    `monday|tuesday|wednesday|thursday|friday|saturday|sunday|` +
    `${MONTHS.join('|')}|(?:19|20)\\d\\d|week|weeks|month|months|year|years|day|days|since|soon|` +
    `spring|summer|autumn|winter)\\b`,
  'i',
);

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

/** Whether `text` places something in time (a date, a weekday, "yesterday", "last week", …). */
export function mentionsTime(text: string): boolean {
  return TIME_WORDS.test(text);
}

/** Whether the instant `timestampMs` (UTC) falls in one of `periods`. */
export function inPeriods(timestampMs: number, periods: readonly NamedPeriod[]): boolean {
  if (!Number.isFinite(timestampMs)) return false;
  const date = new Date(timestampMs);
  const month = date.getUTCMonth();
  const year = date.getUTCFullYear();
  return periods.some(
    (period) =>
      (period.year === undefined || period.year === year) &&
      (period.months.length === 0 || period.months.includes(month)),
  );
}
