/**
 * Input checks of active memory, in one place: keys, values, owner ids and recall options. Each
 * bad input is a typed `InvalidInputError` naming what was wrong.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { assertOwnerId, isWellFormed } from '../ids.js';
import { checkJson } from '../message/json-value.js';
import type { JsonValue } from '../message/schema.js';
import type { Scope } from './types.js';

/** Longest key, in UTF-16 code units. */
export const MAX_KEY_CHARS = 256;
/** Largest value (its JSON text, UTF-8) and largest `remember` text: 1 MiB. */
export const MAX_VALUE_BYTES = 1024 * 1024;
/** Most results one `recall` returns. */
export const MAX_RECALL_K = 100;
/** Longest `recall` query, in characters. */
export const MAX_QUERY_CHARS = 10_000;
/** Most messages one `history` page returns. */
export const MAX_HISTORY_LIMIT = 1000;

// Keys become object members (session variables) and stored keys: these would reach Object's
// prototype instead of an own property.
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const SCOPES: ReadonlySet<string> = new Set<Scope>(['session', 'user', 'agent', 'app', 'temp']);

function invalid(message: string, details?: Record<string, unknown>): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', message, details === undefined ? {} : { details });
}

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
}

/** A valid key: a non-empty, well-formed string of at most 256 characters, without control characters, that is not a prototype name. */
export function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_CHARS) {
    throw invalid(`Invalid key ${shown(key)}: expected a non-empty string of at most ${MAX_KEY_CHARS} characters`);
  }
  if (RESERVED_KEYS.has(key)) throw invalid(`Invalid key ${shown(key)}: the name is reserved`);
  // Control characters break logs and line-based formats; every scope refuses them alike.
  if (CONTROL.test(key)) throw invalid(`Invalid key ${shown(key)}: control characters are not allowed`);
  // A lone surrogate has no UTF-8 form: a store would write a different key than the one read back.
  if (!isWellFormed(key)) throw invalid(`Invalid key ${shown(key)}: not well-formed Unicode`);
  return key;
}

/** A valid scope (`session` when omitted). */
export function checkScope(scope: unknown): Scope {
  if (scope === undefined) return 'session';
  if (typeof scope !== 'string' || !SCOPES.has(scope))
    throw invalid(`Invalid scope ${shown(scope)}: expected one of ${[...SCOPES].join(', ')}`);
  return scope as Scope;
}

/** A deep-frozen copy of a JSON value of at most 1 MiB of JSON; `INVALID_ARGUMENT` or `TOO_LARGE` otherwise. */
export function checkValue(key: string, value: unknown): JsonValue {
  // The read stops at the byte limit (a value's UTF-8 JSON is never shorter than its size), so a
  // huge value is refused before it is walked whole; the exact byte count comes after.
  const copy = checkJson(value, `The value of ${shown(key)}`, 'INVALID_ARGUMENT', { maxChars: MAX_VALUE_BYTES });
  const json = JSON.stringify(copy);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw new InvalidInputError(
      'TOO_LARGE',
      `The value of ${shown(key)} is ${bytes} bytes of JSON; the limit is ${MAX_VALUE_BYTES}`,
      {
        details: { key: key.slice(0, 80), bytes, limit: MAX_VALUE_BYTES },
      },
    );
  }
  return copy;
}

/** A user or agent id as `Session` accepts it (`assertOwnerId`), or `INVALID_ID`. */
export function checkOwnerId(value: unknown, what: 'userId' | 'agentId'): string | undefined {
  return value === undefined ? undefined : assertOwnerId(value, what);
}

/** A text `remember` can store: non-blank, at most 1 MiB of UTF-8. */
export function checkKnowledge(text: unknown): string {
  if (typeof text !== 'string' || text.trim().length === 0) throw invalid('remember needs a non-empty text');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw new InvalidInputError(
      'TOO_LARGE',
      `The text to remember is ${bytes} bytes; the limit is ${MAX_VALUE_BYTES}`,
      { details: { bytes, limit: MAX_VALUE_BYTES } },
    );
  }
  return text;
}

/** An integer in [min, max], or `fallback` when undefined; `INVALID_ARGUMENT` otherwise. */
export function checkInteger(value: unknown, what: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(
      `${what} must be an integer from ${min} to ${max}, got ${typeof value === 'number' ? value : typeof value}`,
    );
  }
  return value;
}

/** A recall threshold: a number in [0, 1] (0 when undefined). */
export function checkThreshold(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1))
    throw invalid(`threshold must be a number from 0 to 1, got ${String(value)}`);
  return value;
}

/** A recall query: a string of at most 10,000 characters. */
export function checkQuery(query: unknown): string {
  if (typeof query !== 'string') throw invalid(`recall needs a query string, got ${typeof query}`);
  if (query.length > MAX_QUERY_CHARS) {
    throw new InvalidInputError(
      'TOO_LARGE',
      `The recall query is ${query.length} characters; the limit is ${MAX_QUERY_CHARS}`,
      {
        details: { chars: query.length, limit: MAX_QUERY_CHARS },
      },
    );
  }
  return query;
}

const EMBED_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** An embedding model's id as it appears in stored keys: 1 to 64 of `[A-Za-z0-9._-]` ('default' when undefined). */
export function checkEmbedId(value: unknown): string {
  if (value === undefined) return 'default';
  if (typeof value !== 'string' || !EMBED_ID.test(value))
    throw invalid(`Invalid embedId ${shown(value)}: expected 1 to 64 of [A-Za-z0-9._-]`);
  return value;
}
