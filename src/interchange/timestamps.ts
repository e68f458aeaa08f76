/**
 * Timestamps as other systems write them, read into chatstate's ISO-8601 UTC form (and Penguin's
 * naive local form written back): naive local times read in a given zone, `%z` offsets without a
 * colon, ISO with `Z` or `±HH:MM`, and float epoch seconds. Explicit rules throughout: `Date.parse`
 * reads a naive time in the process zone and accepts `-0800` only as a V8 extension.
 * @module
 */
import { InvalidInputError } from '../errors.js';

/** A timestamp read from a source: the instant, and whether its zone had to be assumed. */
export interface ReadTimestamp {
  /** ISO-8601 in UTC, millisecond precision (`2025-04-10T08:15:02.481Z`). */
  readonly iso: string;
  /** The zone the source left out and the reader assumed (`Europe/Lisbon`, `UTC`), when it did. */
  readonly assumedZone?: string;
}

// Date, optional time (`T` or a space), 0–9 fractional digits, optional zone (`Z`, `±HH:MM`, `±HHMM`, `±HH`).
const ISO_LIKE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** The process's time zone (what Penguin's naive timestamps mean when no zone is given). */
export function processTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of wall-clock fields in `timeZone`; `INVALID_ARGUMENT` for a zone Intl does not know. */
function wallClock(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch (error) {
      throw new InvalidInputError('INVALID_ARGUMENT', `Unknown time zone ${JSON.stringify(timeZone)}`, {
        cause: error,
      });
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Checks `timeZone` (an IANA name Intl knows); throws `INVALID_ARGUMENT` otherwise. */
export function checkTimeZone(timeZone: string): string {
  wallClock(timeZone);
  return timeZone;
}

/** Offset of `timeZone` from UTC at the instant `epochMs`, in milliseconds. */
function zoneOffset(epochMs: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of wallClock(timeZone).formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/** The instant whose wall clock in `timeZone` reads `wallMs` (wall time written as if UTC). */
function fromWallClock(wallMs: number, timeZone: string): number {
  // Two passes settle the offset on either side of a DST change (a wall time in a skipped hour lands an hour beside it).
  let guess = wallMs - zoneOffset(wallMs, timeZone);
  guess = wallMs - zoneOffset(guess, timeZone);
  return guess;
}

function isoOf(epochMs: number): string | undefined {
  if (!Number.isFinite(epochMs)) return undefined;
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Parses an ISO-like timestamp; a value without a zone is read in `naiveZone` (and reported as assumed). */
export function readTimestamp(text: string, naiveZone: string): ReadTimestamp | undefined {
  const match = ISO_LIKE.exec(text.trim());
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour ?? 0);
  const mi = Number(minute ?? 0);
  const s = Number(second ?? 0);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const wall = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  // Date.UTC rolls 31 February over into March: such a date is not a date.
  if (new Date(wall).getUTCDate() !== d) return undefined;
  if (zone === undefined) {
    const iso = isoOf(naiveZone === 'UTC' ? wall : fromWallClock(wall, naiveZone));
    return iso === undefined ? undefined : { iso, assumedZone: naiveZone };
  }
  if (zone === 'Z' || zone === 'z') {
    const iso = isoOf(wall);
    return iso === undefined ? undefined : { iso };
  }
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  if (offsetMinutes >= 24 * 60) return undefined;
  const iso = isoOf(wall - sign * offsetMinutes * 60_000);
  return iso === undefined ? undefined : { iso };
}

/** A naive local timestamp (Penguin's `2025-04-10T09:15:02.481203`) read in `timeZone`; offsets are honoured too. */
export function readNaiveLocal(text: string, timeZone: string = processTimeZone()): ReadTimestamp | undefined {
  return readTimestamp(text, timeZone);
}

/** Magent's `%Y-%m-%dT%T%z` (`2025-02-21T14:30:15-0800`): an explicit `±HHMM` rule, never `Date.parse`. */
export function readCompactOffset(text: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})([+-])(\d{2})(\d{2})$/.exec(text.trim());
  if (match === null) return undefined;
  return readTimestamp(`${match[1]}${match[2]}${match[3]}:${match[4]}`, 'UTC')?.iso;
}

/** Float Unix seconds (`1746950400.125`) as ISO UTC; undefined for anything else. */
export function readEpochSeconds(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return isoOf(Math.round(value * 1000));
}

/**
 * `iso` as a naive local timestamp in `timeZone`, with six fractional digits
 * (`2025-04-10T09:15:02.481000`), as Penguin writes them (never `Z`: Python 3.10 cannot read it).
 */
export function formatNaiveLocal(iso: string, timeZone: string = processTimeZone()): string {
  const epochMs = Date.parse(iso);
  if (Number.isNaN(epochMs)) throw new InvalidInputError('INVALID_ARGUMENT', `Not a timestamp: ${iso.slice(0, 40)}`);
  const wall = new Date(epochMs + zoneOffset(epochMs, timeZone));
  const micro = String(wall.getUTCMilliseconds() * 1000).padStart(6, '0');
  return `${wall.toISOString().slice(0, 19)}.${micro}`;
}
