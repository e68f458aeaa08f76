/**
 * JSON helpers shared by every wire format: narrowing untrusted wire values, copying our frozen
 * JSON into the mutable JSON the SDK request types expect, reading wire values back as JSON
 * (strictly or leniently), reading JSON text, and collecting structural problems.
 * @module
 */
import { ChatstateError, InvalidInputError, errorMessage } from '../errors.js';
import { defineField } from '../internal/define-field.js';
import { readJson } from '../message/json-value.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { FormatWarning, WireProblem } from './types.js';

// SDK objects leave optional fields `undefined`: on the wire that means absent, as in JSON.
const WIRE = { omitUndefined: true } as const;

/** A mutable JSON value, as SDK request types expect (our messages hold frozen, readonly ones). */
export type WireJson = null | boolean | number | string | WireJson[] | { [key: string]: WireJson };

/** A mutable JSON object. */
export type WireJsonObject = { [key: string]: WireJson };

/** True for a non-null, non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a string with something besides whitespace (providers reject blank text). */
export function hasText(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** A deep, unfrozen copy: callers may mutate a request body without touching our frozen messages. */
export function toWireJson(value: JsonValue): WireJson {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return (value as readonly JsonValue[]).map(toWireJson);
  const copy: WireJsonObject = {};
  for (const [key, item] of Object.entries(value as JsonObject)) defineField(copy, key, toWireJson(item));
  return copy;
}

/** A deep, unfrozen copy of a JSON object. */
export function toWireObject(value: JsonObject): WireJsonObject {
  return toWireJson(value) as WireJsonObject;
}

/**
 * A raw part's value written back as the wire shape it was read from. The one cast of the format
 * code: the value came from `from` reading exactly that shape (or from a caller who asked for it).
 */
export function rawAs<T>(value: JsonValue): T {
  return toWireJson(value) as unknown as T;
}

/** The error `from` throws when a wire value cannot be read at all. */
export function unreadable(path: string, expected: string): InvalidInputError {
  return new InvalidInputError(
    'INVALID_ARGUMENT',
    `Cannot read wire value at ${path || '(root)'}: expected ${expected}`,
    {
      details: { path },
    },
  );
}

/**
 * Converts a wire value to JSON (dropping `undefined` fields) with `readJson`'s checks: nesting past
 * `MAX_JSON_DEPTH`, cycles, Proxies, getters and other non-JSON values throw `INVALID_ARGUMENT`
 * naming where. The copy keeps `"__proto__"` keys as data.
 */
export function toJsonValue(value: unknown, path: string): JsonValue {
  const read = readJson(value, WIRE);
  if (read.ok) return read.value;
  const { path: inner, message } = read.problem;
  throw unreadable(
    inner.length === 0 ? path : `${path}${inner.startsWith('[') ? '' : '.'}${inner}`,
    `a JSON value (${message})`,
  );
}

/** Converts a wire object to a JSON object; throws `INVALID_ARGUMENT` on non-JSON values. */
export function toJsonObject(value: Record<string, unknown>, path: string): JsonObject {
  return toJsonValue(value, path) as JsonObject;
}

/**
 * The lenient counterpart of `toJsonValue`, for readers that never throw on a caller's wire
 * (Anthropic, Gemini): a JSON copy in which what JSON cannot hold is coerced as `JSON.stringify`
 * does (dates to strings, non-finite numbers to `null`, `undefined` fields dropped). A copy, so
 * `Message.create` does not freeze the caller's objects. What no coercion makes JSON — a cycle,
 * nesting past `MAX_JSON_DEPTH`, a Proxy, a getter that throws — throws `INVALID_ARGUMENT`, which
 * those readers turn into a warning (`skipUnreadable`).
 */
export function cloneJson<T extends JsonValue>(value: unknown): T {
  const read = readJson(value, WIRE);
  if (read.ok) return read.value as T;
  if (read.problem.kind === 'not-json') {
    let coerced: unknown;
    try {
      coerced = JSON.parse(JSON.stringify(value) ?? 'null');
    } catch (error) {
      throw unreadable(read.problem.path, `a JSON value (${errorMessage(error)})`);
    }
    // Checked again: coercion does not bound the depth.
    const again = readJson(coerced, WIRE);
    if (again.ok) return again.value as T;
    throw unreadable(again.problem.path, `a JSON value (${again.problem.message})`);
  }
  throw unreadable(read.problem.path, `a JSON value (${read.problem.message})`);
}

/** `value` as JSON text, coerced as `cloneJson` coerces it (and refused as it refuses it). */
export function jsonText(value: unknown): string {
  return JSON.stringify(cloneJson(value));
}

/**
 * Runs `read` for one block or part of a lenient reader's wire (Anthropic, Gemini); a value it
 * cannot read (`INVALID_ARGUMENT` from `cloneJson`) skips that block with a `code` warning at
 * `where` instead of failing the whole read.
 */
export function skipUnreadable(warnings: FormatWarning[], code: string, where: string, read: () => void): void {
  try {
    read();
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    warnings.push({ code, message: `Skipped ${where}: ${error.message}` });
  }
}

/** The fields of `record` other than `known` that carry a value (not `undefined` or `null`). */
export function extraFields(record: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined && value !== null && !known.includes(key)) defineField(extras, key, value);
  }
  return extras;
}

/** True when `record` has no field with a value outside `known`: a shape we model exactly. */
export function hasOnlyFields(record: Record<string, unknown>, known: readonly string[]): boolean {
  return Object.keys(extraFields(record, known)).length === 0;
}

/**
 * True when every key of `record` is in `allowed`, even a key whose value is `undefined` or `null`
 * (stricter than `hasOnlyFields`: a block with an unknown key, however empty, is kept raw).
 */
export function hasOnlyKeys(record: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(record).every((key) => allowed.includes(key));
}

/** Parses JSON text without throwing. */
export function parseJson(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    // "-0" parses to -0, which JSON cannot write back: normalize it so that to(from(w)) equals w.
    return {
      ok: true,
      value: JSON.parse(text, (_key, value: unknown) => (Object.is(value, -0) ? 0 : value)) as JsonValue,
    };
  } catch {
    return { ok: false };
  }
}

/** A structural problem at `path`. */
export function problem(code: string, path: string, message: string): WireProblem {
  return { code, path, message };
}

/**
 * Checks a content value that is not a string: it must be an array of parts, each with a string
 * `type` that `accepts` takes (`misplaced` says why not). Shared by the OpenAI-style validators.
 */
export function checkPartList(
  content: unknown,
  path: string,
  accepts: (type: string) => boolean,
  misplaced: (type: string) => string,
  problems: WireProblem[],
): void {
  if (!Array.isArray(content)) {
    problems.push(problem('invalid_message', path, 'content must be a string or an array of parts'));
    return;
  }
  content.forEach((part: unknown, index) => {
    const type = isRecord(part) ? part['type'] : undefined;
    if (typeof type !== 'string')
      problems.push(problem('invalid_part', `${path}[${index}]`, 'a content part needs a type'));
    else if (!accepts(type)) problems.push(problem('misplaced_part', `${path}[${index}]`, misplaced(type)));
  });
}

/** Records one structural problem. */
export type Report = (code: string, message: string, path: string) => void;

/**
 * The problems `check` reports. A value that throws while being inspected (a throwing getter, a
 * revoked proxy) is one more `invalid_wire` problem: a validator must not crash on hostile input.
 */
export function collectProblems(check: (report: Report) => void): WireProblem[] {
  const problems: WireProblem[] = [];
  const report: Report = (code, message, path) => {
    problems.push({ code, message, path });
  };
  try {
    check(report);
  } catch (error) {
    report('invalid_wire', `The value could not be inspected: ${errorMessage(error)}`, '');
  }
  return problems;
}

/** `validate` made total: a value whose inspection throws (a hostile getter or Proxy) is reported, never thrown. */
export function neverThrows(validate: (wire: unknown) => WireProblem[]): (wire: unknown) => WireProblem[] {
  return (wire) => {
    try {
      return validate(wire);
    } catch (error) {
      return [problem('invalid_wire', '', `The value could not be inspected: ${errorMessage(error)}`)];
    }
  };
}

/** True for content a provider treats as empty: an empty string, no parts, or only blank text parts. */
export function isBlankWireContent(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length === 0;
  if (!Array.isArray(content)) return content === null || content === undefined;
  return content.every(
    (part) => isRecord(part) && typeof part.text === 'string' && part.text.trim().length === 0 && !isMediaLike(part),
  );
}

// A part that is not text counts as content even without a `text` field.
function isMediaLike(part: Record<string, unknown>): boolean {
  return Object.keys(part).some((key) => key !== 'type' && key !== 'text' && key !== 'providerOptions');
}
