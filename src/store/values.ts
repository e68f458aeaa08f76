/**
 * Active memory's side of the core: owners become value namespaces here and nowhere else, keys
 * and values are checked, and value data is sealed with the store's cipher — so a driver only
 * keeps opaque strings under opaque namespaces; full-text queries are checked here too.
 * @module
 */
import { DataError, InvalidInputError, UnsupportedError } from '../errors.js';
import { assertOwnerId, assertValidId, isWellFormed } from '../ids.js';
import { checkJson, readJson } from '../message/json-value.js';
import type { JsonValue } from '../message/schema.js';
import type { RecordCipher } from './at-rest.js';
import { hasCapability } from './driver-check.js';
import type { ForgetTarget, SessionDriver, ValueDriver } from './driver-types.js';
import type { TextSearchQuery, ValueOwner, ValueStore } from './session-store-types.js';

/** Longest key of a stored value, in UTF-16 code units. */
export const MAX_VALUE_KEY_CHARS = 256;

/** Largest stored value: its JSON text in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 1 << 20;

/** Largest `limit` of a full-text search. */
export const MAX_SEARCH_LIMIT = 1000;

/**
 * A user or agent id as a namespace part: every code unit outside `[A-Za-z0-9_-]` becomes `%`
 * and four hex digits. The mapping is one-to-one and its output holds no `:` or `/`, so no id can
 * end one part of a namespace and start another (`a/user:b` cannot pose as agent `a` of user `b`);
 * nor `.`, so not even a driver that wrongly used a namespace as a path could be led out by `..`.
 */
export function encodeOwnerId(id: string): string {
  let out = '';
  for (let index = 0; index < id.length; index += 1) {
    const char = id[index] as string;
    out += /[A-Za-z0-9_-]/.test(char) ? char : `%${id.charCodeAt(index).toString(16).padStart(4, '0')}`;
  }
  return out;
}

function ownerId(value: unknown, what: string): string {
  return encodeOwnerId(assertOwnerId(value, what));
}

/**
 * The namespace of an owner: `user:<u>`, `agent:<a>/user:<u>`, `app` or `session:<id>` (user and
 * agent ids encoded by `encodeOwnerId`, session ids validated). Drivers never build these.
 */
export function valueNamespace(owner: ValueOwner): string {
  const scope = (owner as { scope?: unknown } | null)?.scope;
  switch (scope) {
    case 'user':
      return `user:${ownerId((owner as { userId?: unknown }).userId, 'userId')}`;
    case 'agent': {
      const { agentId, userId } = owner as { agentId?: unknown; userId?: unknown };
      return `agent:${ownerId(agentId, 'agentId')}/user:${ownerId(userId, 'userId')}`;
    }
    case 'app':
      return 'app';
    case 'session':
      return `session:${assertValidId((owner as { sessionId?: unknown }).sessionId, 'session id')}`;
    default:
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `Invalid value owner: scope must be user, agent, app or session, got ${JSON.stringify(String(scope)).slice(0, 40)}`,
      );
  }
}

/** Keys of session values that hold stored embeddings (active memory's vector chunks, `embed/<id>/<dims>/…`). */
export const VECTOR_KEY_PREFIX = 'embed/';

/** What a driver's `forgetUser` removes for `userId` (`INVALID_ID` for an id that is not a user id). */
export function forgetTarget(userId: string): ForgetTarget {
  const encoded = ownerId(userId, 'userId');
  return Object.freeze({ userId, userNamespace: `user:${encoded}`, agentSuffix: `/user:${encoded}` });
}

/**
 * True when `ns` is one of the user's value namespaces: `user:<u>`, or `agent:<a>/user:<u>` for
 * any agent (an encoded agent id holds no `/`, so the suffix can only be the user part).
 */
export function isUserNamespace(ns: string, target: ForgetTarget): boolean {
  return ns === target.userNamespace || (ns.startsWith('agent:') && ns.endsWith(target.agentSuffix));
}

/**
 * The user namespace (`user:<u>`) whose key seals the values of `ns`: its own for a user
 * namespace, the user's for an agent namespace (`agent:<a>/user:<u>`); `undefined` for others.
 */
export function namespaceUser(ns: string): string | undefined {
  if (ns.startsWith('user:')) return ns;
  const at = ns.startsWith('agent:') ? ns.indexOf('/user:') : -1;
  return at === -1 ? undefined : ns.slice(at + 1);
}

/** The ciphers values are sealed and opened with (see `StoreCiphers`): by namespace to write, by what was read to read. */
export interface ValueCiphers {
  forWrite(ns: string): Promise<RecordCipher>;
  forRead(datas: readonly string[]): Promise<RecordCipher>;
}

/** The session a namespace belongs to (`session:<id>` or `session:<id>/…`), for drivers that remove it with the session. */
export function namespaceSession(ns: string): string | undefined {
  return /^session:([^/]+)(?:\/|$)/.exec(ns)?.[1];
}

/** True when `text` holds a C0 or C1 control character (a newline in a key breaks logs and line formats). */
function hasControl(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** Returns `key` when it can name a stored value; otherwise `INVALID_ARGUMENT`. */
export function checkValueKey(key: unknown): string {
  // A lone surrogate has no UTF-8 form: a store could write another key than the one given.
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > MAX_VALUE_KEY_CHARS ||
    hasControl(key) ||
    !isWellFormed(key)
  ) {
    const shown = typeof key === 'string' ? JSON.stringify(key.slice(0, 80)) : typeof key;
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Invalid value key ${shown}: expected 1 to ${MAX_VALUE_KEY_CHARS} characters without control characters`,
    );
  }
  return key;
}

/** AAD of a value: binds its ciphertext to its namespace and key, so it cannot be moved to another owner or key. */
function valueAad(ns: string, key: string): string {
  return `value\n${ns}\n${key}`;
}

function encodeValue(value: unknown, ns: string, key: string, cipher: RecordCipher): string {
  // Its JSON text is at least as long as the copy's size (and its UTF-8 at least as long), so the
  // read may stop at the byte limit: a huge value is refused before it is walked whole.
  const copy = checkJson(value, `Value ${JSON.stringify(key.slice(0, 80))}`, 'INVALID_ARGUMENT', {
    maxChars: MAX_VALUE_BYTES,
  });
  const json = JSON.stringify(copy);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw new InvalidInputError(
      'TOO_LARGE',
      `Value ${JSON.stringify(key.slice(0, 80))} is ${bytes} bytes of JSON; the limit is ${MAX_VALUE_BYTES}`,
      {
        details: { bytes, limit: MAX_VALUE_BYTES },
      },
    );
  }
  return cipher.seal(json, valueAad(ns, key));
}

function decodeValue(data: string, ns: string, key: string, cipher: RecordCipher, store: string): JsonValue {
  // Namespaces hold user ids: the error names the key and the scope only.
  const what = `the value ${JSON.stringify(key.slice(0, 80))} of ${ns.split(':', 1)[0] ?? ns} scope`;
  const plain = cipher.open(data, valueAad(ns, key));
  let value: unknown;
  try {
    value = JSON.parse(plain);
  } catch (error) {
    throw new DataError('CORRUPT', `${store}: ${what} is not JSON`, { cause: error });
  }
  const read = readJson(value);
  if (!read.ok) throw new DataError('CORRUPT', `${store}: ${what} is not a JSON value (${read.problem.message})`);
  // The parsed value itself, which is this call's own: a reader may change it without touching what is stored.
  return value as JsonValue;
}

/** What every value operation of a store whose driver has no values capability rejects with. */
export function valuesUnsupported(store: string): UnsupportedError {
  return new UnsupportedError(
    `${store}: this store keeps no values (its driver does not implement the values capability, readValues and writeValues)`,
    {
      store,
      capability: 'values',
    },
  );
}

/**
 * The `ValueStore` of a core store: `run` tracks each operation so that closing the store waits for
 * it (and refuses operations once closed — each method is async so that refusal is a rejection).
 * Over a driver without the values capability, every operation is refused with `UNSUPPORTED`.
 */
export function createValueStore(
  driver: SessionDriver & Partial<ValueDriver>,
  ciphers: ValueCiphers,
  run: <T>(name: string, operation: () => Promise<T>) => Promise<T>,
): ValueStore {
  const store = driver.name;
  if (!hasCapability(driver, 'values')) {
    const refuse = async (): Promise<never> => run('values', async () => Promise.reject(valuesUnsupported(store)));
    return Object.freeze({ get: refuse, getAll: refuse, set: refuse });
  }
  const values = driver as SessionDriver & ValueDriver;
  return Object.freeze({
    get: async (owner: ValueOwner, key: string) =>
      run('values.get', async () => {
        const ns = valueNamespace(owner);
        checkValueKey(key);
        const record = (await values.readValues(ns, [key])).find((each) => each.key === key);
        if (record === undefined) return undefined;
        return decodeValue(record.data, ns, key, await ciphers.forRead([record.data]), store);
      }),
    getAll: async (owner: ValueOwner) =>
      run('values.getAll', async () => {
        const ns = valueNamespace(owner);
        const records = (await values.readValues(ns))
          .slice()
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        const cipher = await ciphers.forRead(records.map((record) => record.data));
        // fromEntries defines own properties: a key named "__proto__" stays a key, never a prototype.
        return Object.fromEntries(
          records.map((record) => [record.key, decodeValue(record.data, ns, record.key, cipher, store)]),
        );
      }),
    set: async (owner: ValueOwner, entries: Readonly<Record<string, JsonValue | undefined>>) =>
      run('values.set', async () => {
        const ns = valueNamespace(owner);
        if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
          throw new InvalidInputError('INVALID_ARGUMENT', `${store}: values.set needs an object of key → value`);
        }
        // Everything is checked and sealed before the driver sees any of it: one bad value writes nothing.
        const cipher = await ciphers.forWrite(ns);
        const writes = Object.keys(entries).map((key) => {
          checkValueKey(key);
          const value = entries[key];
          return { key, data: value === undefined ? null : encodeValue(value, ns, key, cipher) };
        });
        if (writes.length > 0) await values.writeValues(ns, writes);
      }),
  });
}

/** A checked, frozen copy of a full-text query; `INVALID_ARGUMENT` (or `INVALID_ID`) for a bad one. */
export function checkTextQuery(query: TextSearchQuery, store: string): TextSearchQuery {
  const invalid = (why: string): InvalidInputError =>
    new InvalidInputError('INVALID_ARGUMENT', `${store}: searchText ${why}`);
  if (typeof query !== 'object' || query === null) throw invalid('needs a query object');
  const { text, userId, sessionIds, limit } = query;
  if (typeof text !== 'string' || text.trim().length === 0) throw invalid('needs non-empty text');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
    throw invalid(`needs a limit from 1 to ${MAX_SEARCH_LIMIT}`);
  if (sessionIds !== undefined && !Array.isArray(sessionIds)) throw invalid('needs sessionIds as an array');
  return Object.freeze({
    text,
    // Checked like a value owner's id; the encoded form is not needed, only the check.
    ...(userId === undefined ? {} : { userId: (ownerId(userId, 'userId'), userId) }),
    ...(sessionIds === undefined
      ? {}
      : { sessionIds: Object.freeze(sessionIds.map((id) => assertValidId(id, 'session id'))) }),
    limit,
  });
}
