/**
 * What the saver keeps per checkpoint: its record (ids, versions, serialized metadata, and
 * references to its channel values), carried by its checkpoint-log entry; in the log session's
 * values, one blob per channel a checkpoint changed; and in the values of an owner per checkpoint
 * (`writesOwnerId`), its pending writes, one value per task.
 * @module
 */
import { createHash } from 'node:crypto';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { DataError } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';

/** A channel version as LangGraph gives it. */
export type Version = number | string;

/** A value serialized by the saver's `serde`: its type and its bytes (UTF-8 text when they are, base64 otherwise). */
export interface StoredBlob {
  readonly t: string;
  /** The bytes as UTF-8 text (`json` values). */
  readonly s?: string;
  /** The bytes in base64 (anything that is not valid UTF-8). */
  readonly b?: string;
}

/** Where a channel's value is: the blob the checkpoint `at` wrote for version `v`. */
export interface BlobRef {
  readonly v: Version;
  readonly at: string;
  /** The blob is small and kept in the record of checkpoint `at` (`inline`), not in a session value. */
  readonly inline?: boolean;
}

/** A messages channel at version `v`: the conversation's messages with these sequence numbers, inclusive ranges in order. */
export interface MessageRef {
  readonly v: Version;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  /**
   * Only in a record a conversation message carries: the list goes on with the `tail` messages
   * ending at that message (appended with it, so their numbers are only known once stored).
   */
  readonly tail?: number;
}

/** One checkpoint, without its channel values. */
export interface CheckpointRecord {
  readonly id: string;
  readonly parent?: string;
  readonly ts: string;
  /** The checkpoint format version (`Checkpoint.v`). */
  readonly v: number;
  readonly versions: Readonly<Record<string, Version>>;
  readonly seen: Readonly<Record<string, Readonly<Record<string, Version>>>>;
  readonly metadata: StoredBlob;
  readonly blobs: Readonly<Record<string, BlobRef>>;
  readonly messages: Readonly<Record<string, MessageRef>>;
  /** Small blobs this checkpoint wrote, by channel: they cost no write of their own. */
  readonly inline?: Readonly<Record<string, StoredBlob>>;
}

/** One pending write, as stored. */
export interface StoredWrite {
  readonly task: string;
  readonly idx: number;
  readonly channel: string;
  readonly path: string;
  readonly value: StoredBlob;
}

/** A part of a value key: the text itself when short, else a hash (tagged, so the two never meet). */
function keyPart(text: string): string {
  return text.length <= 100 ? `=${text}` : `#${createHash('sha256').update(text, 'utf8').digest('base64url')}`;
}

/** Value keys of a log session. */
export const keys = Object.freeze({
  /** The thread and namespace the session belongs to. */
  thread: 'thread',
  /** The conversation's metadata (the compaction log). */
  conversation: 'conversation',
  blob: (checkpointId: string, channel: string) => `b/${keyPart(checkpointId)}/${keyPart(channel)}`,
  /** A task's pending writes, in the values of its checkpoint's writes owner (see `writesOwnerId`). */
  taskWrites: (taskId: string) => `w/${keyPart(taskId)}`,
});

/**
 * The value owner (a session id no session has) holding the pending writes of one checkpoint of a
 * log session, one key per task: `<prefix>.w.` + the SHA-256 of the log id and the checkpoint id.
 * Thread sessions start `<prefix>.` + `r`, `b` or `h`, so this never names one.
 */
export function writesOwnerId(prefix: string, log: string, checkpointId: string): string {
  return `${prefix}.w.${createHash('sha256').update(`${log}\n${checkpointId}`, 'utf8').digest('base64url')}`;
}

/** Characters of a blob's text per stored value (a value holds at most 1 MiB of UTF-8). */
const PART_CHARS = 200_000;

/** The session values that hold `blob` for `channel` of `checkpointId`: one, or a head and its parts when it is large. */
export function blobEntries(checkpointId: string, channel: string, blob: StoredBlob): Record<string, JsonValue> {
  const key = keys.blob(checkpointId, channel);
  const text = blob.s ?? blob.b ?? '';
  if (text.length <= PART_CHARS) return { [key]: blob as unknown as JsonValue };
  const entries: Record<string, JsonValue> = {};
  let parts = 0;
  for (let start = 0; start < text.length; start += PART_CHARS) {
    entries[`${key}/${parts}`] = text.slice(start, start + PART_CHARS);
    parts += 1;
  }
  entries[key] = { t: blob.t, parts, encoding: blob.s !== undefined ? 's' : 'b' };
  return entries;
}

/** The blob `blobEntries` stored, read back with `get`; `undefined` when it is not there, `CORRUPT` when a part is missing. */
export async function readBlob(
  get: (key: string) => Promise<JsonValue | undefined>,
  checkpointId: string,
  channel: string,
): Promise<StoredBlob | undefined> {
  const key = keys.blob(checkpointId, channel);
  const head = await get(key);
  if (head === undefined) return undefined;
  if (isBlob(head)) return head;
  const parts = isObject(head) ? head['parts'] : undefined;
  if (!isObject(head) || typeof head['t'] !== 'string' || typeof parts !== 'number' || !Number.isSafeInteger(parts))
    throw new DataError(
      'CORRUPT',
      `LangGraph saver: the value of channel ${JSON.stringify(channel)} at ${checkpointId} is damaged`,
    );
  const texts = await Promise.all(Array.from({ length: parts }, (_, index) => get(`${key}/${index}`)));
  if (!texts.every((text): text is string => typeof text === 'string'))
    throw new DataError(
      'CORRUPT',
      `LangGraph saver: a part of channel ${JSON.stringify(channel)} at ${checkpointId} is missing`,
    );
  const text = texts.join('');
  return head['encoding'] === 'b' ? { t: head['t'], b: text } : { t: head['t'], s: text };
}

/** `value` serialized by `serde`, as JSON a store keeps. */
export async function dumpBlob(serde: SerializerProtocol, value: unknown): Promise<StoredBlob> {
  const [type, bytes] = await serde.dumpsTyped(value);
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes);
  const text = buffer.toString('utf8');
  return Buffer.byteLength(text, 'utf8') === buffer.length && Buffer.from(text, 'utf8').equals(buffer)
    ? { t: type, s: text }
    : { t: type, b: buffer.toString('base64') };
}

/** The value a `StoredBlob` holds, revived by `serde`. */
export function loadBlob(serde: SerializerProtocol, blob: StoredBlob): Promise<unknown> {
  const bytes =
    blob.s !== undefined ? new TextEncoder().encode(blob.s) : new Uint8Array(Buffer.from(blob.b ?? '', 'base64'));
  return serde.loadsTyped(blob.t, bytes);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBlob(value: unknown): value is StoredBlob {
  return (
    isObject(value) &&
    typeof value['t'] === 'string' &&
    (typeof value['s'] === 'string' || typeof value['b'] === 'string')
  );
}

/** A stored record read back; `CORRUPT` when it is not one. */
export function readRecord(value: JsonValue | undefined, where: string): CheckpointRecord | undefined {
  if (value === undefined) return undefined;
  if (
    !isObject(value) ||
    typeof value['id'] !== 'string' ||
    typeof value['ts'] !== 'string' ||
    typeof value['v'] !== 'number' ||
    !isObject(value['versions']) ||
    !isObject(value['seen']) ||
    !isBlob(value['metadata']) ||
    !isObject(value['blobs']) ||
    !isObject(value['messages'])
  )
    throw new DataError('CORRUPT', `LangGraph saver: the checkpoint record ${where} is damaged`);
  return value as unknown as CheckpointRecord;
}

/** Stored writes read back; `CORRUPT` when they are not. */
export function readWrites(value: JsonValue | undefined, where: string): StoredWrite[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    !value.every(
      (entry) =>
        isObject(entry) &&
        typeof entry['task'] === 'string' &&
        typeof entry['idx'] === 'number' &&
        typeof entry['channel'] === 'string' &&
        typeof entry['path'] === 'string' &&
        isBlob(entry['value']),
    )
  )
    throw new DataError('CORRUPT', `LangGraph saver: the pending writes ${where} are damaged`);
  return value as unknown as StoredWrite[];
}

/** A record as a stored JSON value. */
export function recordJson(record: CheckpointRecord): JsonObject {
  return record as unknown as JsonObject;
}
