/**
 * JSON text read by the importers, with the line of what went wrong: the parse position of a
 * syntax error, or the line of the key whose value has the wrong type.
 * @module
 */
import { errorMessage, type ErrorCode } from '../errors.js';

/** A refusal of one source: the typed code, a sentence and the 1-based line. */
export interface JsonProblem {
  readonly code: ErrorCode;
  readonly message: string;
  readonly line: number;
}

/** The 1-based line of character `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line of the first `"key":` in `text` (where a wrongly typed value sits), or 1. */
export function lineOfKey(text: string, key: string): number {
  const at = new RegExp(`${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`).exec(text);
  return at === null ? 1 : lineAt(text, at.index);
}

/** `text` parsed, or a `CORRUPT` problem at the line where parsing stopped (the last line when the text ends early). */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: JsonProblem } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = errorMessage(error);
    const position = /at position (\d+)/.exec(reason);
    const offset = position === null ? text.length : Number(position[1]);
    return {
      ok: false,
      problem: { code: 'CORRUPT', message: `Not valid JSON: ${reason}`, line: lineAt(text, offset) },
    };
  }
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An `INVALID_ARGUMENT` problem about `key`'s value, at its line. */
export function wrongType(text: string, key: string, expected: string): JsonProblem {
  return {
    code: 'INVALID_ARGUMENT',
    message: `${JSON.stringify(key)} must be ${expected}`,
    line: lineOfKey(text, key),
  };
}
