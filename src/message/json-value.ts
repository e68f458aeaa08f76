/**
 * JSON values that come from outside — tool arguments, message metadata, raw provider parts,
 * provider options, session variables and metadata, stored values, records read back from a store
 * — checked and copied by this module alone, in one walk that:
 *
 * - checks the depth before it goes deeper (`MAX_JSON_DEPTH` levels), so no value can exhaust the
 *   stack here or in any code that walks the copy later;
 * - refuses what JSON cannot hold (functions, symbols, bigints, `NaN`, `±Infinity`, `undefined` in
 *   an array), cycles, non-plain objects (class instances, `Date`, `Map`, Proxies), symbol keys and
 *   accessor properties (a getter is never called: a value is data, not code);
 * - reads each property once and copies what it read, so a value cannot show one thing to the check
 *   and another to the copy; the copy is plain and deep-frozen, so the caller cannot change it later;
 * - keeps every key as an own property, `"__proto__"` included (as `JSON.parse` makes it), without
 *   touching any prototype: keys of user data are data;
 * - measures the size of the JSON text as it goes and stops once it passes a limit, so a huge (or
 *   exponentially shared) value costs at most the limit's worth of work.
 *
 * A key whose value is `undefined` is refused (the copy could not hold it: data would change),
 * unless the caller asks to leave such keys out as `JSON.stringify` does (`omitUndefined`, for
 * wire values from SDKs). Non-enumerable properties and array properties that are not elements are
 * not data, and not copied.
 * @module
 */
import { types } from 'node:util';
import { InvalidInputError, type ErrorCode } from '../errors.js';
import { defineField } from '../internal/define-field.js';
import type { JsonObject, JsonValue } from './schema.js';

/**
 * Most levels of objects and arrays a JSON value may nest, its own level included (`{}` is one
 * level, `{"a":[]}` two). Ample for tool arguments and metadata, and far below what would exhaust
 * the stack of any code that walks a value recursively.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Largest JSON value read by default, in characters of its JSON text (see `jsonSize`): 32 Mi, as
 * `MAX_MESSAGE_CHARS`. Callers with a tighter rule pass their own `maxChars`.
 */
export const MAX_JSON_CHARS = 32 * 1024 * 1024;

/** Limits of one read. */
export interface JsonLimits {
  /** Most levels of objects and arrays. @default MAX_JSON_DEPTH */
  readonly maxDepth?: number;
  /** Largest size, in characters of JSON text (`jsonSize`). @default MAX_JSON_CHARS */
  readonly maxChars?: number;
  /** Leave out object keys whose value is `undefined` (as `JSON.stringify` does) instead of refusing them. @default false */
  readonly omitUndefined?: boolean;
}

/** Why a value was refused. */
export type JsonProblemKind = 'not-json' | 'unreadable' | 'cyclic' | 'too-deep' | 'too-large';

/** What was wrong with a value, and where (`path` is `''` for the value itself). */
export interface JsonProblem {
  readonly kind: JsonProblemKind;
  /** Where in the value, as `a.b[2]` (empty for the value itself). */
  readonly path: string;
  readonly message: string;
}

/** The outcome of `readJson`: a frozen copy and its size, or the problem. */
export type JsonRead<T extends JsonValue = JsonValue> =
  | { readonly ok: true; readonly value: T; readonly size: number }
  | { readonly ok: false; readonly problem: JsonProblem };

/** The copy of every empty object: shared, and frozen, so nothing can tell it from a fresh one. */
export const EMPTY_OBJECT: JsonObject = Object.freeze({});
const EMPTY_ARRAY: readonly JsonValue[] = Object.freeze([]);

// Marks an object whose copy is being made: meeting it again below itself is a cycle.
const VISITING = Symbol('visiting');

/** A copy already made of a source object met again (a shared subtree), or `VISITING`. */
type Seen = { readonly copy: JsonValue; readonly size: number } | typeof VISITING;

/** Thrown inside a read to stop it, collecting its path on the way out; never leaves this module. */
class Stop {
  readonly path: Array<string | number> = [];
  constructor(
    readonly kind: JsonProblemKind,
    readonly message: string,
  ) {}
}

/** `error` with `key` put in front of its path when it is a `Stop`; rethrown by the caller. */
function at(error: unknown, key: string | number): unknown {
  if (error instanceof Stop) error.path.unshift(key);
  return error;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `path` as `a.b[2]["odd key"]` (a long one shortened in its middle). */
function formatPath(path: ReadonlyArray<string | number>): string {
  if (path.length > 8) return `${formatPath(path.slice(0, 3))}…(${path.length - 5} more)…${formatPath(path.slice(-2))}`;
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += out.length === 0 ? key : `.${key}`;
    else out += `[${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)}]`;
  }
  return out;
}

/** How a non-JSON value is named in a message. */
function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name.length > 0 ? `a ${name}` : 'an object with a custom prototype';
  }
  return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
}

/** One read: its limits, the size so far and the objects met. */
class Reader {
  size = 0;
  // Created at the first non-empty container: most values are scalars or empty.
  private seen: Map<object, Seen> | undefined;

  constructor(
    private readonly maxDepth: number,
    private readonly maxChars: number,
    // The limit as the caller states it (a record's own level is not counted: see `readJsonRecord`).
    private readonly statedDepth: number,
    private readonly omitUndefined: boolean,
  ) {}

  private add(chars: number): void {
    this.size += chars;
    if (this.size > this.maxChars) throw new Stop('too-large', `larger than ${this.maxChars} characters of JSON`);
  }

  /** A frozen copy of `value`, one level below a container at `depth` (0 for the root). */
  read(value: unknown, depth: number): JsonValue {
    switch (typeof value) {
      case 'string':
        this.add(value.length + 2);
        return value;
      case 'boolean':
        this.add(value ? 4 : 5);
        return value;
      case 'number':
        if (!Number.isFinite(value)) throw new Stop('not-json', `${describe(value)} is not a JSON number`);
        // -0 is written as 0: the copy holds what JSON holds, so a stored value reads back equal.
        if (value === 0) {
          this.add(1);
          return 0;
        }
        this.add(String(value).length);
        return value;
      case 'object':
        if (value === null) {
          this.add(4);
          return null;
        }
        return this.container(value, depth + 1);
      default:
        throw new Stop('not-json', `${describe(value)} is not a JSON value`);
    }
  }

  private container(source: object, depth: number): JsonValue {
    const seen = this.seen?.get(source);
    if (seen === VISITING) throw new Stop('cyclic', 'the value contains itself (a cycle)');
    if (seen !== undefined) {
      // A subtree met before: its copy is frozen, so it is shared, and its size counted again.
      this.add(seen.size);
      return seen.copy;
    }
    // The depth is checked before going deeper: nothing below can exhaust the stack.
    if (depth > this.maxDepth) throw new Stop('too-deep', `nested deeper than ${this.statedDepth} levels`);
    // A Proxy is code: its traps could throw, or answer the check one way and the copy another.
    if (types.isProxy(source)) throw new Stop('unreadable', 'a Proxy is not plain data');
    const prototype: unknown = Object.getPrototypeOf(source);
    if (Array.isArray(source)) {
      if (prototype !== Array.prototype) throw new Stop('not-json', `${describe(source)} is not a plain array`);
      return this.array(source as readonly unknown[], depth);
    }
    if (prototype !== Object.prototype && prototype !== null)
      throw new Stop('not-json', `${describe(source)} is not a plain object`);
    return this.object(source, depth);
  }

  private enter(source: object): Map<object, Seen> {
    const seen = (this.seen ??= new Map());
    seen.set(source, VISITING);
    return seen;
  }

  private array(source: readonly unknown[], depth: number): JsonValue {
    const length = source.length;
    if (length === 0) {
      this.add(2);
      return EMPTY_ARRAY;
    }
    const seen = this.enter(source);
    const start = this.size;
    // Brackets and commas.
    this.add(length + 1);
    const copy = new Array<JsonValue>(length);
    for (let index = 0; index < length; index++) {
      // Elements are read by index, once each (a descriptor per element would cost more than the rest).
      const item = source[index];
      try {
        if (item === undefined)
          throw new Stop(
            'not-json',
            Object.hasOwn(source, index) ? 'undefined is not a JSON value' : 'an array with holes is not JSON',
          );
        copy[index] = this.read(item, depth);
      } catch (error) {
        throw at(error, index);
      }
    }
    Object.freeze(copy);
    seen.set(source, { copy, size: this.size - start });
    return copy;
  }

  private object(source: object, depth: number): JsonValue {
    const keys = Object.keys(source);
    if (Object.getOwnPropertySymbols(source).length > 0) throw new Stop('not-json', 'symbol keys are not JSON');
    if (keys.length === 0) {
      this.add(2);
      return EMPTY_OBJECT;
    }
    const seen = this.enter(source);
    const start = this.size;
    const copy: Record<string, JsonValue> = {};
    let fields = 0;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      // The descriptor, not the property: a getter is refused without being called.
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      try {
        if (descriptor === undefined || !('value' in descriptor))
          throw new Stop('unreadable', 'an accessor property (getter or setter) is not data');
        const item: unknown = descriptor.value;
        if (item === undefined && !this.omitUndefined) throw new Stop('not-json', 'undefined is not a JSON value');
        if (item !== undefined) {
          // Quotes and colon of the key, and a comma before every field but the first.
          this.add(key.length + 3 + (fields > 0 ? 1 : 0));
          const value = this.read(item, depth);
          // Assigned where that is the same and faster; "__proto__" is defined (see `defineField`).
          if (key === '__proto__') defineField(copy, key, value);
          else copy[key] = value;
          fields += 1;
        }
      } catch (error) {
        throw at(error, key);
      }
    }
    this.add(2);
    const frozen = fields === 0 ? EMPTY_OBJECT : Object.freeze(copy);
    seen.set(source, { copy: frozen, size: this.size - start });
    return frozen;
  }
}

// What reading `{}` gives: most metadata is empty, and this answer costs no allocation.
const EMPTY_READ: JsonRead = Object.freeze({ ok: true, value: EMPTY_OBJECT, size: 2 });

/** True for `{}` as `JSON.parse` makes it (the checks of `Reader.container` and `Reader.object`, in short). */
function isEmptyPlainObject(value: object): boolean {
  if (types.isProxy(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const _key in value) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}

/** `value` read with `limits` (`record`: a record of values, see `readJsonRecord`); never throws. */
function readWith(value: unknown, limits: JsonLimits | undefined, object: boolean, record: boolean): JsonRead {
  const depth = limits?.maxDepth ?? MAX_JSON_DEPTH;
  const maxChars = limits?.maxChars ?? MAX_JSON_CHARS;
  const maxDepth = record ? depth + 1 : depth;
  if (object && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    return {
      ok: false,
      problem: {
        kind: 'not-json',
        path: '',
        message: `expected a JSON object, not ${Array.isArray(value) ? 'an array' : describe(value)}`,
      },
    };
  }
  if (typeof value === 'object' && value !== null && maxDepth >= 1 && maxChars >= 2 && isEmptyPlainObject(value))
    return EMPTY_READ;
  const reader = new Reader(maxDepth, maxChars, depth, limits?.omitUndefined === true);
  try {
    const copy = reader.read(value, 0);
    return { ok: true, value: copy, size: reader.size };
  } catch (error) {
    if (error instanceof Stop) {
      // Too large is a property of the whole value, not of the place where the count passed the limit.
      const path = error.kind === 'too-large' ? '' : formatPath(error.path);
      return { ok: false, problem: { kind: error.kind, path, message: error.message } };
    }
    // Nothing above runs the caller's code except an array element's getter; whatever it threw,
    // the value could not be read.
    return {
      ok: false,
      problem: {
        kind: 'unreadable',
        path: '',
        message: `it could not be read (${error instanceof Error ? error.message : String(error)})`,
      },
    };
  }
}

/**
 * `value` checked and copied: a plain, deep-frozen JSON value and its size (`jsonSize` of the
 * copy), or the problem. Never throws, whatever `value` is.
 */
export function readJson(value: unknown, limits?: JsonLimits): JsonRead {
  return readWith(value, limits, false, false);
}

/** `readJson` for a value that must be a JSON object (not an array). */
export function readJsonObject(value: unknown, limits?: JsonLimits): JsonRead<JsonObject> {
  return readWith(value, limits, true, false) as JsonRead<JsonObject>;
}

/**
 * `readJsonObject` for a record of values — metadata, session variables, provider options, token
 * counts — whose own level comes on top of its values': each value may nest `MAX_JSON_DEPTH`
 * levels, as it may when it is passed alone (a variable set by `withVariable`, a stored value).
 */
export function readJsonRecord(value: unknown, limits?: JsonLimits): JsonRead<JsonObject> {
  return readWith(value, limits, true, true) as JsonRead<JsonObject>;
}

/** The problem as a sentence: `what` (at its path) and why. */
export function describeProblem(problem: JsonProblem, what: string): string {
  const where = `${what}${problem.path.length > 0 ? ` at ${problem.path}` : ''}`;
  return problem.kind === 'too-large'
    ? `${where} is ${problem.message}`
    : `${where} is not a valid JSON value: ${problem.message}`;
}

/** The error for `problem`: `TOO_LARGE` for a value over its size limit, else `code`. */
export function jsonError(problem: JsonProblem, what: string, code: ErrorCode): InvalidInputError {
  return new InvalidInputError(problem.kind === 'too-large' ? 'TOO_LARGE' : code, describeProblem(problem, what), {
    details: { what, path: problem.path, reason: problem.kind },
  });
}

/** A frozen copy of the JSON value `value`, or `code` (`TOO_LARGE` when too large) naming `what`. */
export function checkJson(
  value: unknown,
  what: string,
  code: ErrorCode = 'INVALID_ARGUMENT',
  limits?: JsonLimits,
): JsonValue {
  const read = readJson(value, limits);
  if (!read.ok) throw jsonError(read.problem, what, code);
  return read.value;
}

/** A frozen copy of the record of JSON values `value` (`readJsonRecord`), or `code` (`TOO_LARGE` when too large) naming `what`. */
export function checkJsonRecord(
  value: unknown,
  what: string,
  code: ErrorCode = 'INVALID_ARGUMENT',
  limits?: JsonLimits,
): JsonObject {
  const read = readJsonRecord(value, limits);
  if (!read.ok) throw jsonError(read.problem, what, code);
  return read.value;
}

/**
 * The size of a JSON value as this module measures it: the length of its JSON text, each string
 * counted as its characters and two quotes (an escape counts as the one character it stands for),
 * keys whose value is `undefined` left out. For values already read (no checks, no copy).
 */
export function jsonSize(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'boolean':
      return value ? 4 : 5;
    case 'number':
      return value === 0 ? 1 : String(value).length;
    case 'object': {
      if (value === null) return 4;
      if (value === EMPTY_OBJECT) return 2;
      if (Array.isArray(value)) {
        const items = value as readonly unknown[];
        let size = items.length + 1 + (items.length === 0 ? 1 : 0);
        for (let index = 0; index < items.length; index++) size += jsonSize(items[index]);
        return size;
      }
      let size = 2;
      let fields = 0;
      for (const key of Object.keys(value)) {
        const item = (value as Readonly<Record<string, unknown>>)[key];
        if (item === undefined) continue;
        size += key.length + 3 + (fields > 0 ? 1 : 0) + jsonSize(item);
        fields += 1;
      }
      return size;
    }
    default:
      return 0;
  }
}
