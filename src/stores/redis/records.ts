/**
 * Replies of the Redis store's scripts ↔ records: the head hash written from a `HeadRecord` and
 * read back with every field checked, and message records rebuilt from id/seq/body lists. What
 * Redis returns is data from outside the process: anything malformed is `CORRUPT`, never trusted.
 * @module
 */
import { DataError } from '../../errors.js';
import type { RawHeadColumns } from '../../store/driver-helpers.js';
import type { HeadRecord, MessageRecord, ValueRecord } from '../../store/driver-types.js';

/** Name of the store in error messages, unless its `name` option gives another. */
export const STORE = 'redis';

/** A reply value as text: clients return strings, or Buffers when asked to. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

/** The head as the field/value pairs of its hash (optional fields absent). */
export function headFields(head: HeadRecord): string[] {
  const fields: string[] = [
    'id',
    head.id,
    'schema',
    String(head.schema),
    'version',
    String(head.version),
    'createdAt',
    head.createdAt,
    'updatedAt',
    head.updatedAt,
    'messageCount',
    String(head.messageCount),
    'tokenCount',
    String(head.tokenCount),
    'lastSeq',
    String(head.lastSeq),
    'data',
    head.data,
  ];
  if (head.agentId !== undefined) fields.push('agentId', head.agentId);
  if (head.userId !== undefined) fields.push('userId', head.userId);
  if (head.expiresAt !== undefined) fields.push('expiresAt', String(head.expiresAt));
  if (head.ttlMs !== undefined) fields.push('ttlMs', String(head.ttlMs));
  if (head.title !== undefined) fields.push('title', head.title);
  if (head.keys !== undefined) fields.push('keyCheck', head.keys);
  if (head.kind !== undefined) fields.push('kind', head.kind);
  return fields;
}

/**
 * The checked readers of script replies for the store named `store`: anything malformed is
 * `CORRUPT`, naming the store (and the session, when there is one).
 */
export function redisRecords(store: string) {
  /** A `CORRUPT` error naming the store and the session. */
  function corrupt(id: string, what: string): DataError {
    return new DataError('CORRUPT', `${store}: session ${JSON.stringify(id)} is damaged: ${what}`, { details: { id } });
  }

  /** A reply that must be an array (a Lua table). */
  function list(value: unknown, id: string, what: string): unknown[] {
    if (!Array.isArray(value)) throw corrupt(id, `${what} is not a list`);
    return value;
  }

  /** A reply value that must be a non-negative safe integer (Redis returns numbers as text or integers). */
  function integer(value: unknown, id: string, what: string): number {
    const raw = typeof value === 'number' ? String(value) : text(value);
    const number = raw !== undefined && /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(number))
      throw corrupt(
        id,
        `${what} is ${JSON.stringify(String(raw ?? typeof value).slice(0, 40))}, not a non-negative integer`,
      );
    return number;
  }

  /**
   * A head hash (flat field/value list) back into a `HeadRecord`, or `undefined` when it is empty.
   * Fields this version does not know are ignored, so a newer writer's additions do not break it.
   */
  function parseHead(reply: unknown, id: string): HeadRecord | undefined {
    const flat = list(reply, id, 'the head');
    if (flat.length === 0) return undefined;
    // A Map, not an object: field names come from the server and must never reach Object.prototype.
    const fields = new Map<string, string>();
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const name = text(flat[index]);
      const value = text(flat[index + 1]);
      if (name === undefined || value === undefined) throw corrupt(id, 'the head hash holds a value that is not text');
      fields.set(name, value);
    }
    const required = (name: string): string => {
      const value = fields.get(name);
      if (value === undefined || value.length === 0) throw corrupt(id, `the head has no ${name}`);
      return value;
    };
    const count = (name: string): number => integer(required(name), id, `the head's ${name}`);
    const optionalCount = (name: string): number | undefined => (fields.has(name) ? count(name) : undefined);
    const optionalText = (name: string): string | undefined => fields.get(name);
    const storedId = required('id');
    if (storedId !== id) throw corrupt(id, `the head says it belongs to ${JSON.stringify(storedId.slice(0, 140))}`);
    const createdAt = required('createdAt');
    const updatedAt = required('updatedAt');
    if (Number.isNaN(Date.parse(updatedAt)))
      throw corrupt(id, `the head's updatedAt ${JSON.stringify(updatedAt.slice(0, 40))} is not a date`);
    const agentId = optionalText('agentId');
    const userId = optionalText('userId');
    const expiresAt = optionalCount('expiresAt');
    const ttlMs = optionalCount('ttlMs');
    const title = optionalText('title');
    const keys = optionalText('keyCheck');
    const kind = optionalText('kind');
    const head: HeadRecord = {
      id,
      schema: count('schema'),
      version: count('version'),
      ...(agentId === undefined ? {} : { agentId }),
      ...(userId === undefined ? {} : { userId }),
      ...(kind === undefined ? {} : { kind }),
      createdAt,
      updatedAt,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(ttlMs === undefined ? {} : { ttlMs }),
      messageCount: count('messageCount'),
      tokenCount: count('tokenCount'),
      lastSeq: count('lastSeq'),
      ...(title === undefined ? {} : { title }),
      data: required('data'),
      ...(keys === undefined ? {} : { keys }),
    };
    return Object.freeze(head);
  }

  /** Message records from a `[id, seq, id, seq, …]` list and the bodies in the same order. */
  function parseMessages(pairs: unknown, bodies: unknown, id: string, descending: boolean): MessageRecord[] {
    const ids = list(pairs, id, 'the message index');
    const data = list(bodies, id, 'the message bodies');
    if (data.length * 2 !== ids.length) throw corrupt(id, 'the message index and bodies disagree');
    const records: MessageRecord[] = [];
    for (let index = 0; index < data.length; index += 1) {
      const messageId = text(ids[index * 2]);
      const seq = integer(ids[index * 2 + 1], id, 'a message seq');
      const body = text(data[index]);
      if (messageId === undefined) throw corrupt(id, `message ${seq} has no id`);
      if (body === undefined)
        throw corrupt(id, `message ${seq} (${JSON.stringify(messageId.slice(0, 140))}) has no body`);
      records.push(Object.freeze({ seq, id: messageId, data: body }));
    }
    if (descending) records.reverse();
    return records;
  }

  /** Value records from a flat `[key, data, …]` reply, keys ascending; anything malformed is `CORRUPT`. */
  function parseValues(reply: unknown): ValueRecord[] {
    const malformed = (): DataError => new DataError('CORRUPT', `${store}: a values reply is malformed`);
    if (!Array.isArray(reply) || reply.length % 2 !== 0) throw malformed();
    const records: ValueRecord[] = [];
    for (let index = 0; index < reply.length; index += 2) {
      const key = text(reply[index]);
      const data = text(reply[index + 1]);
      if (key === undefined || data === undefined) throw malformed();
      records.push({ key, data });
    }
    return records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** What a listing can read of a head hash that `parseHead` refuses (see `listedHead`). */
  function rawColumns(reply: unknown, id: string | undefined): RawHeadColumns {
    const fields = new Map<string, string>();
    const flat = Array.isArray(reply) ? (reply as unknown[]) : [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const name = text(flat[index]);
      const value = text(flat[index + 1]);
      if (name !== undefined && value !== undefined) fields.set(name, value);
    }
    return {
      id,
      userId: fields.get('userId'),
      agentId: fields.get('agentId'),
      createdAt: fields.get('createdAt'),
      updatedAt: fields.get('updatedAt'),
      kind: fields.get('kind'),
    };
  }

  return Object.freeze({ store, corrupt, list, integer, parseHead, parseMessages, parseValues, rawColumns });
}

/** The reply readers of one Redis store (see `redisRecords`). */
export type RedisRecords = ReturnType<typeof redisRecords>;
