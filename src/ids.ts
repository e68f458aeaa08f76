/**
 * Id generation and validation, in one place: ids become file names and database keys, so every
 * store relies on this check instead of writing its own.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { InvalidInputError } from './errors.js';

/** The shape of every session id: safe as a file name and as a key in any store. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Longest session id (what `ID_PATTERN` allows). */
export const MAX_ID_CHARS = 128;

// Names that are dangerous as object keys (prototype pollution) even though the pattern allows them.
const RESERVED = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']);

/** True when `value` is a valid id. */
export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value) && !RESERVED.has(value) && !value.includes('..');
}

/** Returns `value` when it is a valid id; otherwise throws `INVALID_ID` (stops path traversal and key injection). */
export function assertValidId(value: unknown, what = 'id'): string {
  if (!isValidId(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
    throw new InvalidInputError('INVALID_ID', `Invalid ${what} ${shown}: expected ${ID_PATTERN.source}`, {
      details: { what },
    });
  }
  return value;
}

/** Longest user or agent id, in UTF-16 code units. */
export const MAX_OWNER_ID_CHARS = 256;

// `String.prototype.isWellFormed` (ES2024): Node 20 has it, TypeScript's ES2023 library does not declare it.
const strings = String.prototype as unknown as { isWellFormed(this: string): boolean };

/**
 * True when `text` is well-formed Unicode (no lone surrogate). Stores keep text as UTF-8, which has
 * no form for a lone surrogate: Redis would store U+FFFD instead, so `"\ud800"` and `"\udc00"`
 * would become the same user, and SQLite and Postgres refuse them.
 */
export function isWellFormed(text: string): boolean {
  return strings.isWellFormed.call(text);
}

/** True when `value` can be a user or agent id: a non-empty, well-formed string of at most 256 characters. */
export function isValidOwnerId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_OWNER_ID_CHARS && isWellFormed(value);
}

/**
 * Returns `value` when it can be a user or agent id (`what` names it); otherwise throws
 * `INVALID_ID`. Owner ids are data, never syntax: any other character is allowed, and each store
 * keeps them as they are (the one check every store relies on, so all refuse the same ids alike).
 */
export function assertOwnerId(value: unknown, what = 'owner id'): string {
  if (!isValidOwnerId(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
    const why =
      typeof value === 'string' && value.length > 0 && value.length <= MAX_OWNER_ID_CHARS
        ? 'well-formed Unicode (a lone surrogate cannot be stored)'
        : `a non-empty string of at most ${MAX_OWNER_ID_CHARS} characters`;
    throw new InvalidInputError('INVALID_ID', `Invalid ${what} ${shown}: expected ${why}`, { details: { what } });
  }
  return value;
}

// Random bytes are drawn 1 KiB at a time: a randomBytes call per id cost more than the rest of newId.
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** Eight random hex digits. */
function randomHex(): string {
  if (poolOffset + 4 > pool.length) {
    pool = randomBytes(1024);
    poolOffset = 0;
  }
  poolOffset += 4;
  return pool.toString('hex', poolOffset - 4, poolOffset);
}

let lastMillis = 0;
let sequence = 0;
const PROCESS_TAG = randomBytes(3).toString('hex');

/**
 * A new unique, roughly time-ordered id: `prefix_` + milliseconds + a per-millisecond sequence +
 * a per-process tag + randomness. Thousands of ids in one millisecond never collide, and two
 * processes never collide either.
 */
export function newId(prefix: string): string {
  const now = Date.now();
  if (now === lastMillis) {
    sequence += 1;
  } else {
    lastMillis = now;
    sequence = 0;
  }
  const time = now.toString(36).padStart(9, '0');
  const seq = sequence.toString(36).padStart(4, '0');
  return `${prefix}_${time}${seq}${PROCESS_TAG}${randomHex()}`;
}
