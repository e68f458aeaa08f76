/**
 * Records ↔ values: how a session head and its messages are written as strings, read back with
 * validation, migrated from older record schemas, and rewritten without losing fields a newer
 * version of chatstate added.
 * @module
 */
import { DataError, InvalidInputError } from '../errors.js';
import { defineField } from '../internal/define-field.js';
import { Message } from '../message/message.js';
import { MESSAGE_FIELDS } from '../message/rules.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import { sessionJson, type Session } from '../session/session.js';
import { checkJsonRecord, checkUsage, checkVariableNames } from '../session/session-checks.js';
import type { RecordedUsage } from '../tokens/usage.js';
import type { RecordCipher } from './at-rest.js';
import type { MessageRecord } from './driver-types.js';

/** Schema version of the records this version writes. */
export const RECORD_SCHEMA = 1;

// Fields a newer writer added, remembered per message so that rewriting the message keeps them.
const unknownFields = new WeakMap<Message, Record<string, JsonValue>>();

/** The decoded head data: what the index does not need in the clear. */
export interface HeadData {
  readonly metadata: JsonObject;
  readonly variables: Readonly<Record<string, JsonValue>>;
  readonly lastUsage?: RecordedUsage;
  /** Fields of a newer schema, kept for rewrites. */
  readonly extra?: Record<string, JsonValue>;
}

function corrupt(store: string, what: string, cause?: unknown): DataError {
  return new DataError('CORRUPT', `${store}: ${what}`, { cause });
}

function parseObject(text: string, store: string, what: string): Record<string, JsonValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(store, `${what} is not JSON`, error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw corrupt(store, `${what} is not an object`);
  return value as Record<string, JsonValue>;
}

/** AAD of a message record: binds its ciphertext to the session and the message. */
function messageAad(sessionId: string, messageId: string): string {
  return `message\n${sessionId}\n${messageId}`;
}

/** Writes a message body (without its seq, which the record carries). */
export function encodeMessage(message: Message, sessionId: string, cipher: RecordCipher): string {
  const { seq: _seq, ...fields } = message;
  const extra = unknownFields.get(message);
  const json = JSON.stringify(extra === undefined ? fields : { ...extra, ...fields });
  return cipher.encrypted ? cipher.seal(json, messageAad(sessionId, message.id)) : json;
}

/** Reads a message record back, validated; unknown fields are kept aside for rewrites. */
export function decodeMessage(record: MessageRecord, sessionId: string, cipher: RecordCipher, store: string): Message {
  // A record starting with `{` is plain JSON, never an envelope: no AAD to build, nothing to open.
  const text =
    record.data.charCodeAt(0) === 0x7b ? record.data : cipher.open(record.data, messageAad(sessionId, record.id));
  const fields = parseObject(text, store, `message ${record.seq} of ${sessionId}`);
  let foreign = false;
  for (const key in fields) {
    if (!MESSAGE_FIELDS.has(key)) {
      foreign = true;
      break;
    }
  }
  let known: Record<string, unknown>;
  let extra: Record<string, JsonValue> | undefined;
  if (!foreign) {
    // The common record: only known fields. The parsed object is this call's own, so it is given
    // its seq in place instead of being copied (a copy per message was a fifth of a full load).
    known = fields;
    known.seq = record.seq;
  } else {
    known = { seq: record.seq };
    for (const key of Object.keys(fields)) {
      if (MESSAGE_FIELDS.has(key)) known[key] = fields[key];
      else if (key !== 'seq') defineField((extra ??= {}), key, fields[key]);
    }
  }
  if (known.id !== record.id)
    throw corrupt(
      store,
      `message ${record.seq} of ${sessionId} has id ${JSON.stringify(known.id)}, its record says ${record.id}`,
    );
  let message: Message;
  try {
    // The fast path for stored records: same acceptance and errors as Message.create, a fraction of the cost.
    message = Message.fromStored(known);
  } catch (error) {
    throw corrupt(store, `message ${record.seq} of ${sessionId} is invalid: ${(error as Error).message}`, error);
  }
  if (extra !== undefined) unknownFields.set(message, extra);
  return message;
}

/**
 * The JSON text of `message`, which `record` decoded to: the record's own text with its seq when
 * it is plain JSON of known fields on one line (no second serialization; `Message.create` reads it
 * back as `message`, as `decodeMessage` did), otherwise `message` serialized.
 */
export function messageText(record: MessageRecord, message: Message): string {
  const { data } = record;
  // A raw line break would split an export line (JSON.stringify never writes one; an edited record may).
  if (data.charCodeAt(0) !== 0x7b || unknownFields.has(message) || data.includes('\n') || data.includes('\r'))
    return JSON.stringify(message);
  return `{"seq":${record.seq},${data.slice(1)}`;
}

/**
 * The JSON text of `session` in pieces: the text before its messages, each message's text, and
 * the text after them. With `records` (what its messages decoded from, one by one) each message is
 * its record's own text (see `messageText`); without, it is serialized.
 */
export interface SessionJsonParts {
  readonly before: string;
  readonly messages: readonly string[];
  readonly after: string;
}

/** The pieces of `session`'s JSON text (see `SessionJsonParts`). */
export function sessionJsonParts(session: Session, records?: readonly MessageRecord[]): SessionJsonParts {
  const { messages } = session;
  const texts = new Array<string>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    texts[i] = records === undefined ? JSON.stringify(message) : messageText(records[i] as MessageRecord, message);
  }
  const head = JSON.stringify(sessionJson(session, []));
  // The first match is the top-level field: only numbers and escaped strings come before it.
  const at = head.indexOf('"messages":[]') + '"messages":['.length;
  return { before: head.slice(0, at), messages: texts, after: head.slice(at) };
}

/** The JSON text of `session`, whose messages `records` decoded to, one by one (see `messageText`). */
export function sessionText(session: Session, records?: readonly MessageRecord[]): string {
  const { before, messages, after } = sessionJsonParts(session, records);
  return `${before}${messages.join(',')}${after}`;
}

const COMMA = 0x2c;

/**
 * The UTF-8 bytes of `parts`' text, between `prefix` and `suffix`, in one buffer. Each message is
 * encoded on its own: V8 builds and encodes one large string with non-ASCII characters several
 * times slower than it encodes its pieces (measured: 742 KB in 4.5 ms as a string, 0.55 ms so).
 */
export function sessionJsonBytes(parts: SessionJsonParts, prefix = '', suffix = ''): Buffer {
  const { messages } = parts;
  const pieces = [prefix, parts.before, parts.after, suffix];
  let size = Math.max(0, messages.length - 1);
  for (const piece of pieces) size += Buffer.byteLength(piece);
  for (const text of messages) size += Buffer.byteLength(text);
  const bytes = Buffer.allocUnsafe(size);
  let at = bytes.write(prefix, 0);
  at += bytes.write(parts.before, at);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    at += bytes.write(messages[i] as string, at);
  }
  at += bytes.write(parts.after, at);
  bytes.write(suffix, at);
  return bytes;
}

/** Writes the head data. */
export function encodeHeadData(data: HeadData, sessionId: string, cipher: RecordCipher): string {
  const { extra, ...known } = data;
  return cipher.seal(JSON.stringify(extra === undefined ? known : { ...extra, ...known }), `head\n${sessionId}`);
}

/** Reads the head data back. */
export function decodeHeadData(text: string, sessionId: string, cipher: RecordCipher, store: string): HeadData {
  const fields = parseObject(cipher.open(text, `head\n${sessionId}`), store, `the head of ${sessionId}`);
  const { metadata, variables, lastUsage, ...extra } = fields;
  const object = (value: JsonValue | undefined): value is JsonObject =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (metadata !== undefined && !object(metadata))
    throw corrupt(store, `the metadata of ${sessionId} is not an object`);
  if (variables !== undefined && !object(variables))
    throw corrupt(store, `the variables of ${sessionId} are not an object`);
  const data: { -readonly [K in keyof HeadData]: HeadData[K] } = {
    metadata: metadata ?? {},
    variables: variables ?? {},
  };
  if (object(lastUsage)) data.lastUsage = lastUsage as unknown as RecordedUsage;
  if (Object.keys(extra).length > 0) data.extra = extra;
  return data;
}

/**
 * The state an append replaces (`AppendOptions.state`), checked as `Session` checks its own:
 * JSON metadata and variables without reserved names, usage with non-negative token counts.
 */
export function checkHeadState(state: unknown): HeadData {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      'append: state must be an object of metadata, variables and lastUsage',
    );
  }
  const { metadata, variables, lastUsage } = state as { metadata?: unknown; variables?: unknown; lastUsage?: unknown };
  checkVariableNames(variables);
  const data: { -readonly [K in keyof HeadData]: HeadData[K] } = {
    metadata: checkJsonRecord(metadata, 'metadata'),
    variables: checkJsonRecord(variables, 'variables'),
  };
  if (lastUsage !== undefined) {
    const messageCount = (lastUsage as { messageCount?: unknown } | null)?.messageCount;
    if (typeof messageCount !== 'number' || !Number.isSafeInteger(messageCount) || messageCount < 0) {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        'append: state.lastUsage.messageCount must be a non-negative integer',
      );
    }
    data.lastUsage = { ...checkUsage(lastUsage as RecordedUsage), messageCount };
  }
  return data;
}

/** Writes a title. */
export function encodeTitle(title: string, sessionId: string, cipher: RecordCipher): string {
  return cipher.seal(JSON.stringify(title), `title\n${sessionId}`);
}

/** Reads a title back; a damaged title is dropped rather than failing a whole listing. */
export function decodeTitle(text: string | undefined, sessionId: string, cipher: RecordCipher): string | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(cipher.open(text, `title\n${sessionId}`));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

// The title rule (which message, `metadata.title`, a stored title kept) lives in `./title.ts`.
export { TITLE_CHARS, titleOf } from './title.js';
