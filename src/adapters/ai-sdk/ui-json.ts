/**
 * UI messages as JSON: what a chat store reads from its caller, checked once. A `UIMessage`
 * crosses the network as JSON, so that is what is stored; fields set to `undefined` are dropped
 * and dates become strings, as `JSON.stringify` does.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { cloneJson, isRecord } from '../../formats/wire-json.js';
import { defineField } from '../../internal/define-field.js';
import { readJson } from '../../message/json-value.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { handOut, handedOut } from './handed-out.js';
import { readsAs } from './json-equal.js';

/** One part of a UI message, as JSON (`type` is always a string). */
export type UiPartJson = JsonObject & { readonly type: string };

/** A UI message as JSON: the fields every `UIMessage` has, checked, and any others kept. */
export interface UiMessageJson {
  readonly id: string;
  readonly role: 'system' | 'user' | 'assistant';
  readonly parts: readonly UiPartJson[];
  /** The message's metadata, present only when the caller set it. */
  readonly metadata?: JsonValue;
  /** Top-level fields beyond `id`, `role`, `parts` and `metadata`, kept verbatim. */
  readonly extra?: JsonObject;
}

const ROLES: ReadonlySet<unknown> = new Set(['system', 'user', 'assistant']);
const KNOWN = new Set(['id', 'role', 'parts', 'metadata']);

function invalid(path: string, expected: string): InvalidInputError {
  return new InvalidInputError('INVALID_MESSAGE', `Invalid UI message at ${path}: expected ${expected}`, {
    details: { path },
  });
}

/** `value` as JSON (dates and the like coerced as `JSON.stringify` does); `TOO_LARGE` over the size limit. */
function jsonOf(value: unknown, path: string): JsonValue {
  const read = readJson(value, { omitUndefined: true });
  if (read.ok) return read.value;
  if (read.problem.kind === 'too-large')
    throw new InvalidInputError('TOO_LARGE', `UI message at ${path} is ${read.problem.message}`, {
      details: { path },
    });
  return cloneJson<JsonValue>(value);
}

/** `value` as a UI message in JSON; throws `INVALID_MESSAGE` (or `INVALID_ARGUMENT` for non-JSON) naming where. */
export function readUiMessage(value: unknown, path: string): UiMessageJson {
  if (!isRecord(value)) throw invalid(path, 'an object');
  const json = jsonOf(value, path);
  if (!isRecord(json)) throw invalid(path, 'an object');
  const { id, role, parts } = json;
  if (typeof id !== 'string') throw invalid(`${path}.id`, 'a non-empty string');
  // What a stream makes without `generateMessageId`: the client would give it another id later.
  if (id.length === 0)
    throw invalid(
      `${path}.id`,
      'a non-empty string (a message streamed with `originalMessages` gets its id from `generateMessageId`)',
    );
  if (!ROLES.has(role)) throw invalid(`${path}.role`, 'system, user or assistant');
  if (!Array.isArray(parts)) throw invalid(`${path}.parts`, 'an array of parts');
  parts.forEach((part: unknown, index) => {
    if (!isRecord(part) || typeof part['type'] !== 'string' || part['type'].length === 0)
      throw invalid(`${path}.parts[${index}]`, 'a part with a type');
  });
  const extra: Record<string, JsonValue> = {};
  for (const [key, field] of Object.entries(json)) if (!KNOWN.has(key)) defineField(extra, key, field);
  return {
    id,
    role: role as UiMessageJson['role'],
    parts: parts as unknown as UiPartJson[],
    ...('metadata' in json ? { metadata: json['metadata'] as JsonValue } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** Options of `readUiMessages`. */
export interface ReadUiMessagesOptions {
  /** What the list is called in errors. @default 'messages' */
  readonly path?: string;
  /** The index in the caller's list of `value[0]`, for errors (`value` is the rest of a list). @default 0 */
  readonly offset?: number;
  /** The UI message the item at an index (of the caller's list) most likely is: the stored one at its place. */
  readonly likely?: (index: number) => UiMessageJson | undefined;
}

/**
 * A list of UI messages; throws `INVALID_ARGUMENT` for a non-array or two messages with one id.
 * An item this chat store handed out (`handOut`) is the message it was made from, and an item that
 * reads as the `likely` one at its place is that message: neither is copied.
 */
export function readUiMessages(value: unknown, options: ReadUiMessagesOptions = {}): UiMessageJson[] {
  const { path = 'messages', offset = 0, likely } = options;
  if (!Array.isArray(value)) throw new InvalidInputError('INVALID_ARGUMENT', `${path} must be an array of UI messages`);
  const seen = new Set<string>();
  return value.map((item: unknown, at) => {
    const index = offset + at;
    const message = handedOut(item) ?? readAs(item, likely?.(index)) ?? readUiMessage(item, `${path}[${index}]`);
    if (seen.has(message.id)) throw usedTwice(path, index, message.id);
    seen.add(message.id);
    return message;
  });
}

/** The error of a list that gives `id` twice, the second time at `index`. */
export function usedTwice(path: string, index: number, id: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `${path}[${index}]: the id ${id} is used twice`, {
    details: { path: `${path}[${index}].id`, id },
  });
}

/** `message` when `item` reads as it (see `readsAs`), else `undefined`. */
function readAs(item: unknown, message: UiMessageJson | undefined): UiMessageJson | undefined {
  return message !== undefined && readsAs(item, handOut(message) as JsonObject) ? message : undefined;
}
