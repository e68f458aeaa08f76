/**
 * The query of `list`, checked once in the core before any driver sees it: a filter of the wrong
 * type must fail, never match something else (SQLite bound `['a']` as `'a'`, Postgres and Redis
 * matched `123` as `"123"`, Redis `{}` as `"[object Object]"`), and a misspelt field must fail
 * rather than silently list every session.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { assertOwnerId, isValidId, isWellFormed } from '../ids.js';
import type { ListCursor } from './session-store-types.js';
import { isSessionKind, type ListKinds } from './session-kind.js';

/** Largest page `list` returns. */
export const MAX_LIST_LIMIT = 1000;

/** Rows `list` returns when the query gives no `limit`. */
export const DEFAULT_LIST_LIMIT = 100;

/** A checked query of `list`: defaults filled in, filters present only when given. */
export interface CheckedListQuery {
  readonly limit: number;
  readonly offset: number;
  /** A fresh object of the cursor's two fields. */
  readonly after?: ListCursor;
  readonly userId?: string;
  readonly agentId?: string;
  /** Present only when `true`. */
  readonly expired?: true;
  readonly idPrefix?: string;
  /** Always given: `'conversations'` unless the query asked for more (an array is a frozen copy). */
  readonly kinds: ListKinds;
}

const FIELDS: ReadonlySet<string> = new Set([
  'limit',
  'offset',
  'after',
  'userId',
  'agentId',
  'expired',
  'idPrefix',
  'kinds',
]);

/** Most kinds one query names. */
const MAX_KINDS = 32;

/** What a prefix of a session id can be (see `ID_PATTERN`): `list`'s and `purgeExpired`'s `idPrefix`. */
export const ID_PREFIX = /^[A-Za-z0-9._-]{1,128}$/;

function invalid(store: string, message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `${store}: list ${message}`);
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'number') return String(value);
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function integer(store: string, value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw invalid(store, `${what} must be ${range}, not ${shown(value)}`);
  }
  return value;
}

/** An owner filter: absent, or a string that is a valid user or agent id (else `INVALID_ID`, as everywhere). */
function owner(store: string, value: unknown, what: 'userId' | 'agentId'): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(store, `${what} must be a string, not ${shown(value)}`);
  return assertOwnerId(value, what);
}

/** A field of the cursor, read once (a throwing getter is `INVALID_ARGUMENT` like the query's own). */
function cursorField(store: string, cursor: object, name: keyof ListCursor): unknown {
  try {
    return (cursor as Record<string, unknown>)[name];
  } catch (error) {
    throw invalid(store, `after.${name} could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * The cursor `after`: an object (a `SessionSummary` will do, its other fields ignored) whose
 * `updatedAt` is an ISO-8601 string and whose `id` is a session id, as every row's are. Nothing
 * else reaches a driver, so a NUL or a lone surrogate never meets a backend that cannot hold it.
 */
function cursor(store: string, value: unknown): ListCursor | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(store, `after must be a row of list (updatedAt and id), not ${shown(value)}`);
  const updatedAt = cursorField(store, value, 'updatedAt');
  const id = cursorField(store, value, 'id');
  if (
    typeof updatedAt !== 'string' ||
    Number.isNaN(Date.parse(updatedAt)) ||
    updatedAt.includes('\0') ||
    !isWellFormed(updatedAt)
  )
    throw invalid(store, `after.updatedAt must be an ISO-8601 date string, not ${shown(updatedAt)}`);
  if (!isValidId(id)) throw invalid(store, `after.id must be a session id, not ${shown(id)}`);
  return { updatedAt, id };
}

/** `kinds`: absent (conversations), `'conversations'`, `'all'`, or 1 to `MAX_KINDS` kinds (see `isSessionKind`). */
function kindsOf(store: string, value: unknown): ListKinds {
  if (value === undefined || value === 'conversations' || value === 'all') return value ?? 'conversations';
  if (!Array.isArray(value))
    throw invalid(store, `kinds must be 'conversations', 'all' or an array of kinds, not ${shown(value)}`);
  if (value.length === 0 || value.length > MAX_KINDS)
    throw invalid(store, `kinds must name 1 to ${MAX_KINDS} kinds, not ${value.length}`);
  const kinds: string[] = [];
  for (const kind of value as unknown[]) {
    if (!isSessionKind(kind)) throw invalid(store, `kinds holds ${shown(kind)}, which is not a session kind`);
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return Object.freeze(kinds);
}

/**
 * `query` checked (`store` names the store in errors): `INVALID_ARGUMENT` for anything but a plain
 * object of `limit` (1 to `MAX_LIST_LIMIT`), `offset` (a non-negative integer), `after` (see
 * `cursor`), `userId` and `agentId` (strings), `expired` (a boolean) and `kinds` (see `kindsOf`); `INVALID_ID` for an owner
 * id no session can have (see `assertOwnerId`).
 */
export function checkListQuery(query: unknown, store: string): CheckedListQuery {
  if (query === undefined) return { limit: DEFAULT_LIST_LIMIT, offset: 0, kinds: 'conversations' };
  if (typeof query !== 'object' || query === null || Array.isArray(query))
    throw invalid(store, `needs a query object, not ${shown(query)}`);
  const fields: Record<string, unknown> = {};
  try {
    // Each field read once, here: the checks and the driver see the same values.
    for (const key of Object.keys(query)) {
      if (!FIELDS.has(key))
        throw invalid(store, `has no field ${JSON.stringify(key.slice(0, 40))} (it takes ${[...FIELDS].join(', ')})`);
      fields[key] = (query as Record<string, unknown>)[key];
    }
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw invalid(store, `query could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const { limit, offset, expired } = fields;
  const after = cursor(store, fields.after);
  const userId = owner(store, fields.userId, 'userId');
  const agentId = owner(store, fields.agentId, 'agentId');
  if (expired !== undefined && typeof expired !== 'boolean')
    throw invalid(store, `expired must be a boolean, not ${shown(expired)}`);
  const { idPrefix } = fields;
  if (idPrefix !== undefined && (typeof idPrefix !== 'string' || !ID_PREFIX.test(idPrefix)))
    throw invalid(store, `idPrefix must be the start of a session id (${ID_PREFIX.source}), not ${shown(idPrefix)}`);
  return {
    limit: limit === undefined ? DEFAULT_LIST_LIMIT : integer(store, limit, 'limit', 1, MAX_LIST_LIMIT),
    offset: offset === undefined ? 0 : integer(store, offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
    ...(after === undefined ? {} : { after }),
    ...(userId === undefined ? {} : { userId }),
    ...(agentId === undefined ? {} : { agentId }),
    ...(expired === true ? { expired } : {}),
    ...(idPrefix === undefined ? {} : { idPrefix: idPrefix as string }),
    kinds: kindsOf(store, fields.kinds),
  };
}
