/**
 * The LoCoMo development split (`../shared/locomo-dev`, when it exists), read at run time the way
 * its README says recall is scored: one session per `session_N`, one message per turn
 * (`"<speaker>: <text>"` plus `" [shares <caption>]"`), timestamped at its session's date, a
 * minute apart; questions of categories 1–4 with their evidence ids (`D1:3` → `D1-3`).
 * The data is evaluation data: it is never copied into the repository.
 * @module
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the split is looked for, beside the repository. */
export const LOCOMO_DIR = fileURLToPath(new URL('../../shared/locomo-dev/', import.meta.url));

/** LoCoMo's question categories that have evidence (5, adversarial, is left out). */
export const CATEGORIES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

/** One turn, as the message it becomes. */
export interface Turn {
  readonly id: string;
  readonly text: string;
  readonly timestamp: string;
}

/** A question and the turns that answer it. */
export interface Question {
  readonly question: string;
  readonly category: number;
  readonly evidence: readonly string[];
}

/** One conversation: its sessions in order, and its questions. */
export interface Conversation {
  readonly name: string;
  readonly sessions: ReadonlyArray<{ readonly id: string; readonly turns: readonly Turn[] }>;
  readonly questions: readonly Question[];
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "1:56 pm on 8 May, 2023" as milliseconds (UTC). */
export function parseLocomoDate(text: string): number {
  const match = /(\d+):(\d+)\s*(am|pm)\s+on\s+(\d+)\s+(\w+),?\s+(\d{4})/i.exec(text);
  if (match === null) throw new Error(`unreadable LoCoMo date: ${text}`);
  const [, hour, minute, half, day, month, year] = match as unknown as string[];
  const monthIndex = MONTHS.findIndex((name) => name.toLowerCase() === (month as string).toLowerCase());
  const hours = (Number(hour) % 12) + ((half as string).toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(year), monthIndex, Number(day), hours, Number(minute));
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/** The split's conversations, or `undefined` when it is not there. */
export function loadLocomo(dir: string = LOCOMO_DIR): Conversation[] | undefined {
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  return files.map((file) => {
    const raw = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Record<string, unknown>;
    const numbers = Object.keys(raw)
      .flatMap((key) => /^session_(\d+)$/.exec(key)?.[1] ?? [])
      .map(Number)
      .sort((a, b) => a - b);
    const sessions = numbers.map((n) => {
      const start = parseLocomoDate(String(raw[`session_${n}_date_time`]));
      const turns = (raw[`session_${n}`] as RawTurn[]).map((turn, index) => ({
        id: turn.dia_id.replaceAll(':', '-'),
        text: `${turn.speaker}: ${turn.text}${turn.blip_caption === undefined ? '' : ` [shares ${turn.blip_caption}]`}`,
        timestamp: new Date(start + index * 60_000).toISOString(),
      }));
      return { id: `session-${n}`, turns };
    });
    const questions = (raw.qa as Array<{ question: string; category: number; evidence: string[] }>)
      .filter((qa) => qa.category in CATEGORIES)
      .map((qa) => ({
        question: qa.question,
        category: qa.category,
        // LoCoMo writes a few evidence lists as one string ("D8:6; D9:17"): each id counts.
        evidence: qa.evidence.flatMap((id) => id.split(/[;,\s]+/).filter(Boolean)).map((id) => id.replaceAll(':', '-')),
      }));
    return { name: file.replace(/\.json$/, ''), sessions, questions };
  });
}
