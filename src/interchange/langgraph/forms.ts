/**
 * The forms a LangChain message takes in a LangGraph checkpoint, read into one shape: the
 * serializer's constructor form (`{"lc":1,"type":"constructor","id":[…,"AIMessage"],"kwargs":{…}}`,
 * JS's `langchain_core/messages` path or Python's `langchain/schema/messages`), LangChain's stored
 * form (`{"type":"ai","data":{…}}`), and the message-like dicts, `[type, content]` tuples and strings
 * a graph's raw input may hold. Nothing is revived: the JSON is read as data.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { defineField } from '../../internal/define-field.js';
import type { JsonValue } from '../../message/schema.js';
import { isObject } from '../json-text.js';

/** What a serialized message is, whatever form it was written in. */
export type Kind = 'human' | 'ai' | 'system' | 'tool' | 'function' | 'chat' | 'remove' | 'unknown';

/** A serialized message read into one shape: its kind, its fields, and its class as written. */
export interface Normalized {
  readonly kind: Kind;
  readonly kwargs: Record<string, unknown>;
  /** The class (`AIMessageChunk`), stored type (`ai`) or dict role as the source wrote it. */
  readonly written: string;
  /** The constructor path when it is not JS's own `langchain_core/messages` (Python writes `langchain/schema/messages`). */
  readonly path?: readonly string[];
}

const CLASS_KINDS: Readonly<Record<string, Kind>> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  FunctionMessage: 'function',
  FunctionMessageChunk: 'function',
  ChatMessage: 'chat',
  ChatMessageChunk: 'chat',
  RemoveMessage: 'remove',
};

// Type and role spellings of the stored and dict forms (`_constructMessageFromParams` in @langchain/core).
const TYPE_KINDS: Readonly<Record<string, Kind>> = {
  human: 'human',
  user: 'human',
  ai: 'ai',
  assistant: 'ai',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'function',
  chat: 'chat',
  generic: 'chat',
  remove: 'remove',
};

function unreadable(what: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', what);
}

/** The serializer's `{"lc":2,"type":"undefined"}` means absent; everything else stays as written. */
function isUndefinedSentinel(value: unknown): boolean {
  return isObject(value) && value['lc'] === 2 && value['type'] === 'undefined';
}

/** `value` without the serializer's "undefined" sentinels (as JSON: the keys are dropped). */
export function withoutSentinels(value: unknown): JsonValue | undefined {
  if (isUndefinedSentinel(value)) return undefined;
  if (Array.isArray(value)) return value.map((entry) => withoutSentinels(entry) ?? null);
  if (isObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [key, entry] of Object.entries(value)) {
      const kept = withoutSentinels(entry);
      if (kept !== undefined) defineField(out, key, kept);
    }
    return out;
  }
  return value as JsonValue;
}

/** Reads any of the forms a message may be written in; throws `INVALID_ARGUMENT` for anything else. */
export function normalizeMessage(value: unknown, where: string): Normalized {
  if (typeof value === 'string') return { kind: 'human', kwargs: { content: value }, written: 'string' };
  if (Array.isArray(value)) {
    const [type, content] = value as unknown[];
    if (value.length === 2 && typeof type === 'string')
      return { kind: TYPE_KINDS[type] ?? 'chat', kwargs: { content, role: type }, written: type };
    throw unreadable(`${where} is an array that is not a [type, content] message`);
  }
  if (!isObject(value)) throw unreadable(`${where} is not a message`);
  if (value['lc'] === 1 && value['type'] === 'constructor' && Array.isArray(value['id'])) {
    const path = (value['id'] as unknown[]).filter((part): part is string => typeof part === 'string');
    const written = path.at(-1) ?? '';
    const kwargs = value['kwargs'];
    if (!isObject(kwargs)) throw unreadable(`${where} (${written}) has no kwargs object`);
    const standard = path.length === 3 && path[0] === 'langchain_core' && path[1] === 'messages';
    return { kind: CLASS_KINDS[written] ?? 'unknown', kwargs, written, ...(standard ? {} : { path }) };
  }
  if (value['lc'] !== undefined)
    throw unreadable(`${where} is a serialized ${JSON.stringify(value['type'])}, not a message`);
  if (typeof value['type'] === 'string' && isObject(value['data'])) {
    const written = value['type'];
    return { kind: TYPE_KINDS[written] ?? 'unknown', kwargs: value['data'], written };
  }
  const type = typeof value['role'] === 'string' ? value['role'] : value['type'];
  if (typeof type === 'string' && 'content' in value) {
    const { type: _type, ...kwargs } = value;
    return { kind: TYPE_KINDS[type] ?? 'chat', kwargs: { ...kwargs, role: type }, written: type };
  }
  throw unreadable(`${where} is an object that is not a message (no class, type or role)`);
}

/** The id a serialized message carries, in any form (for reducers: a later write with the same id replaces it). */
export function serializedMessageId(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const holder = isObject(value['kwargs']) ? value['kwargs'] : isObject(value['data']) ? value['data'] : value;
  const id = holder['id'];
  return typeof id === 'string' ? id : undefined;
}
