/**
 * LangChain messages as LangGraph checkpoints hold them, read into chatstate messages: the
 * serializer's constructor form (`{"lc":1,"type":"constructor","id":[…,"AIMessage"],"kwargs":{…}}`),
 * LangChain's stored form (`{"type":"ai","data":{…}}`), and the message-like dicts, tuples and
 * strings a graph's raw input may hold. Nothing is revived: the JSON is read as data. Whatever has
 * no chatstate field (`additional_kwargs`, `response_metadata`, `usage_metadata`, a tool's
 * `artifact`, content blocks chatstate does not model) is kept verbatim in `metadata.langgraph`.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { MessageInput } from '../message/message.js';
import type { Content, ContentPart, ImagePart, JsonObject, JsonValue, ToolCallInput } from '../message/schema.js';
import { isEmptyContent } from '../message/rules.js';
import { splitDataUrl } from '../formats/media-url.js';
import { messageIdOr, type Draft } from './build.js';
import { derivedMessageId, validToolCallId } from './import-ids.js';
import { isObject } from './json-text.js';
import type { ImportRepair } from './types.js';

/** What a serialized message is, whatever form it was written in. */
type Kind = 'human' | 'ai' | 'system' | 'tool' | 'function' | 'chat' | 'remove' | 'unknown';

/** A serialized message read into one shape: its kind, its fields, and its class as written. */
interface Normalized {
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
function withoutSentinels(value: unknown): JsonValue | undefined {
  if (isUndefinedSentinel(value)) return undefined;
  if (Array.isArray(value)) return value.map((entry) => withoutSentinels(entry) ?? null);
  if (isObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [key, entry] of Object.entries(value)) {
      const kept = withoutSentinels(entry);
      if (kept !== undefined) out[key] = kept;
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

/** One content block as a chatstate part, or undefined when chatstate has no part for it. */
function readBlock(block: unknown): ContentPart | undefined {
  if (typeof block === 'string') return { type: 'text', text: block };
  if (!isObject(block)) return undefined;
  const type = block['type'];
  if (type === 'text' && typeof block['text'] === 'string') return { type: 'text', text: block['text'] };
  if (type === 'image_url') {
    const source = block['image_url'];
    const url = typeof source === 'string' ? source : isObject(source) ? source['url'] : undefined;
    const detail = isObject(source) ? source['detail'] : undefined;
    if (typeof url !== 'string' || url.length === 0) return undefined;
    const options: Pick<ImagePart, 'detail'> =
      detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {};
    const inline = splitDataUrl(url);
    return inline === undefined
      ? { type: 'image', url, ...options }
      : { type: 'image', data: inline.data, mediaType: inline.mediaType, ...options };
  }
  if (type === 'image') {
    const mediaType = block['mimeType'] ?? block['mime_type'];
    const typed = typeof mediaType === 'string' && mediaType.length > 0 ? { mediaType } : {};
    if (typeof block['url'] === 'string' && block['url'].length > 0)
      return { type: 'image', url: block['url'], ...typed };
    const data = block['data'] ?? block['base64'];
    if (typeof data === 'string' && data.length > 0) return { type: 'image', data, ...typed };
    return undefined;
  }
  if (type === 'thinking' && typeof block['thinking'] === 'string') {
    const signature = block['signature'];
    return typeof signature === 'string'
      ? { type: 'reasoning', text: block['thinking'], signature, provider: 'anthropic' }
      : { type: 'reasoning', text: block['thinking'] };
  }
  if (type === 'reasoning' && typeof block['reasoning'] === 'string')
    return { type: 'reasoning', text: block['reasoning'] };
  return undefined;
}

/** True when `part` says all `block` said (a plain text block): otherwise the original blocks are kept too. */
function isExact(block: unknown, part: ContentPart | undefined): boolean {
  if (part === undefined) return false;
  if (typeof block === 'string') return true;
  return part.type === 'text' && isObject(block) && Object.keys(block).every((key) => key === 'type' || key === 'text');
}

/** Content as chatstate parts, and whether the original must be kept beside them (a block was left out or changed). */
function readContent(content: unknown): { content: Content; keepOriginal: boolean } {
  if (typeof content === 'string') return { content, keepOriginal: false };
  if (content === undefined || content === null) return { content: '', keepOriginal: false };
  if (!Array.isArray(content)) return { content: '', keepOriginal: true };
  const parts: ContentPart[] = [];
  let keepOriginal = false;
  for (const block of content as unknown[]) {
    const part = readBlock(block);
    if (part !== undefined) parts.push(part);
    if (!isExact(block, part)) keepOriginal = true;
  }
  // Text-only content reads best as one string when the source wrote one block.
  const only = parts.length === 1 ? parts[0] : undefined;
  return { content: only?.type === 'text' && !keepOriginal ? only.text : parts, keepOriginal };
}

// Fields read into a chatstate field: everything else goes to metadata as written.
const READ_FIELDS = new Set(['content', 'id', 'name', 'tool_calls', 'tool_call_id', 'role']);

function isEmptyValue(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** What one decoded message carries to the session: a message to build, or nothing (a reducer instruction, an empty message). */
export interface DecodedMessage {
  readonly draft?: Draft;
  readonly repairs: readonly ImportRepair[];
  /** The serialized message, when no message could hold it (kept verbatim in the session's metadata). */
  readonly unplaced?: JsonValue;
}

/** Where a message sits and what the thread knows about it. */
export interface MessagePlace {
  /** A readable place for errors (`thread t1, messages[3]`). */
  readonly where: string;
  /** The id to give a message that has none (deterministic: thread and position). */
  readonly fallbackId: string;
  /** Its timestamp: the `ts` of the first checkpoint that held it. */
  timestampOf(id: string | undefined): string;
  /** Extra metadata to record (a pending write, the input of a run that never started). */
  readonly flags?: JsonObject;
}

/** Decodes legacy function calls across messages: a `FunctionMessage` answers the last call of its name. */
export class FunctionCalls {
  private readonly byName = new Map<string, string>();
  record(name: string, id: string): void {
    this.byName.set(name, id);
  }
  take(name: string): string | undefined {
    const id = this.byName.get(name);
    this.byName.delete(name);
    return id;
  }
}

function readToolCalls(
  kwargs: Record<string, unknown>,
  messageId: string,
  functionCalls: FunctionCalls,
  repairs: ImportRepair[],
): { calls: ToolCallInput[]; dropped: JsonValue[] } {
  const calls: ToolCallInput[] = [];
  const dropped: JsonValue[] = [];
  const seen = new Set<string>();
  const add = (id: unknown, name: unknown, args: unknown, raw: unknown, index: number): void => {
    if (typeof name !== 'string' || name.length === 0 || name.length > 256) {
      dropped.push(withoutSentinels(raw) ?? null);
      repairs.push({
        kind: 'unreadable_tool_call',
        message: `Kept tool call ${index} of ${messageId} in metadata: it has no name`,
        messageId,
      });
      return;
    }
    let callId = validToolCallId(id);
    if (callId === undefined || seen.has(callId)) {
      const made = `${messageId}-call${index}`.slice(0, 256);
      repairs.push({
        kind: callId === undefined ? 'missing_tool_call_id' : 'duplicate_tool_call_id',
        message: `Gave tool call ${index} (${name}) of ${messageId} the id ${made}: ${callId === undefined ? 'it had no usable id' : 'its id repeated an earlier call of the message'}`,
        messageId,
      });
      callId = made;
    }
    seen.add(callId);
    const argumentsText =
      typeof args === 'string' ? args : args === undefined || args === null ? '{}' : JSON.stringify(args);
    calls.push({ id: callId, name, arguments: argumentsText });
  };
  const toolCalls = kwargs['tool_calls'];
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    toolCalls.forEach((call: unknown, index) => {
      const record = isObject(call) ? call : {};
      add(record['id'], record['name'], record['args'], call, index);
    });
    return { calls, dropped };
  }
  // Older serializations carry the calls only in OpenAI's raw form, or as one legacy function call.
  const extra = isObject(kwargs['additional_kwargs']) ? kwargs['additional_kwargs'] : {};
  const raw = extra['tool_calls'];
  if (Array.isArray(raw) && raw.length > 0) {
    raw.forEach((call: unknown, index) => {
      const record = isObject(call) ? call : {};
      const fn = isObject(record['function']) ? record['function'] : {};
      add(record['id'], fn['name'], fn['arguments'], call, index);
    });
    return { calls, dropped };
  }
  const legacy = extra['function_call'];
  if (isObject(legacy) && typeof legacy['name'] === 'string') {
    const id = `${messageId}-function_call`.slice(0, 256);
    add(id, legacy['name'], legacy['arguments'], legacy, 0);
    functionCalls.record(legacy['name'], id);
  }
  return { calls, dropped };
}

/** The metadata a message keeps: the class it was written as and every field chatstate has no place for. */
function sourceMetadata(
  normalized: Normalized,
  rawContent: unknown,
  keepContent: boolean,
  originalId: unknown,
  place: MessagePlace,
  extra: Record<string, JsonValue>,
  nameUsed: boolean,
): JsonObject {
  const langgraph: Record<string, JsonValue> = { class: normalized.written };
  if (normalized.path !== undefined) langgraph['path'] = [...normalized.path];
  for (const [key, value] of Object.entries(normalized.kwargs)) {
    if (READ_FIELDS.has(key)) continue;
    const kept = withoutSentinels(value);
    if (!isEmptyValue(kept)) langgraph[key] = kept as JsonValue;
  }
  if (normalized.kind === 'chat' && typeof normalized.kwargs['role'] === 'string')
    langgraph['role'] = normalized.kwargs['role'];
  // A name chatstate cannot hold (not a string, or longer than 256) stays as written.
  if (!nameUsed && normalized.kwargs['name'] !== undefined)
    langgraph['name'] = withoutSentinels(normalized.kwargs['name']) ?? null;
  if (keepContent) langgraph['content'] = withoutSentinels(rawContent) ?? null;
  // An id chatstate cannot use (the message got a derived one) is kept as written.
  if (originalId !== undefined && originalId !== null) langgraph['id'] = withoutSentinels(originalId) ?? null;
  Object.assign(langgraph, extra, place.flags ?? {});
  return { langgraph };
}

/** A tool result whose call cannot be named: kept as context with its text (repairToolPairs does the same for orphans). */
function orphanResult(base: MessageInput, sourceMeta: JsonObject, why: string, repairs: ImportRepair[]): MessageInput {
  const metadata = { ...sourceMeta, imported: { was: 'tool', why: 'orphan_tool_result' } };
  repairs.push({
    kind: 'orphan_tool_result',
    message: `Kept tool result ${String(base.id)} as a context message: ${why}`,
    ...(base.id === undefined ? {} : { messageId: base.id }),
  });
  return { ...base, role: 'system', category: 'context', metadata };
}

const CHAT_ROLES: Readonly<Record<string, 'user' | 'assistant' | 'system'>> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  system: 'system',
  developer: 'system',
};

/**
 * One serialized message read into a chatstate message (or reported when it cannot be one).
 * Throws `INVALID_ARGUMENT` for a value that is no message at all; the draft is validated by `materialize`.
 */
export function decodeMessage(value: unknown, place: MessagePlace, functionCalls: FunctionCalls): DecodedMessage {
  const normalized = normalizeMessage(value, place.where);
  const { kind, kwargs } = normalized;
  const repairs: ImportRepair[] = [];
  if (kind === 'remove') {
    repairs.push({
      kind: 'remove_message',
      message: `Skipped a RemoveMessage (a reducer instruction for ${JSON.stringify(kwargs['id'] ?? null)}) at ${place.where}; it is kept in the session's metadata`,
    });
    return { repairs, unplaced: withoutSentinels(value) ?? null };
  }
  const originalId = kwargs['id'];
  const { id } = messageIdOr(originalId, place.fallbackId);
  const { content, keepOriginal } = readContent(kwargs['content']);
  const name =
    typeof kwargs['name'] === 'string' && kwargs['name'].length > 0 && kwargs['name'].length <= 256
      ? kwargs['name']
      : undefined;
  const extra: Record<string, JsonValue> = {};
  let calls: ToolCallInput[] = [];
  if (kind === 'ai' || (kind === 'chat' && CHAT_ROLES[String(kwargs['role'])] === 'assistant')) {
    const read = readToolCalls(kwargs, id, functionCalls, repairs);
    calls = read.calls;
    if (read.dropped.length > 0) extra['unreadToolCalls'] = read.dropped;
  }
  const metadata = sourceMetadata(
    normalized,
    kwargs['content'],
    keepOriginal,
    originalId === id ? undefined : originalId,
    place,
    extra,
    name !== undefined,
  );
  const base: MessageInput = {
    id,
    role: 'user',
    content: content as MessageInput['content'],
    timestamp: place.timestampOf(typeof originalId === 'string' ? originalId : undefined),
    metadata,
    ...(name === undefined ? {} : { name }),
  };
  if (kind === 'tool' || kind === 'function' || (kind === 'chat' && kwargs['role'] === 'tool')) {
    const callId =
      kind === 'function'
        ? name === undefined
          ? undefined
          : functionCalls.take(name)
        : validToolCallId(kwargs['tool_call_id']);
    if (callId === undefined)
      return {
        draft: {
          original: value,
          input: orphanResult(
            base,
            metadata,
            kind === 'function'
              ? 'no function call of its name came before it'
              : 'its tool_call_id is missing or unusable',
            repairs,
          ),
        },
        repairs,
      };
    return { draft: { original: value, input: { ...base, role: 'tool', toolCallId: callId } }, repairs };
  }
  let role: MessageInput['role'];
  let category: MessageInput['category'];
  if (kind === 'human') role = 'user';
  else if (kind === 'ai') role = 'assistant';
  else if (kind === 'system') role = 'system';
  else {
    const mapped = kind === 'chat' ? CHAT_ROLES[String(kwargs['role'])] : undefined;
    if (mapped !== undefined) role = mapped;
    else {
      // A speaker chatstate has no role for (a custom class, a ChatMessage role): its words kept as context.
      role = 'system';
      category = 'context';
      repairs.push({
        kind: 'unknown_role',
        message: `Kept ${normalized.written}${kind === 'chat' ? ` (role ${JSON.stringify(kwargs['role'])})` : ''} message ${id} as a context message`,
        messageId: id,
      });
    }
  }
  if (calls.length === 0 && isEmptyContent(content)) {
    repairs.push({
      kind: 'empty_message',
      message: `Skipped ${normalized.written} message ${id} at ${place.where}: it has no content and no tool calls; it is kept in the session's metadata`,
      messageId: id,
    });
    return { repairs, unplaced: withoutSentinels(value) ?? null };
  }
  const input: MessageInput = {
    ...base,
    role,
    ...(category === undefined ? {} : { category }),
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
  };
  return { draft: { original: value, input }, repairs };
}

/** The id for a message at `index` of a thread's list, when it has none. */
export function fallbackMessageId(threadKey: string, index: number, pending: boolean): string {
  return derivedMessageId(threadKey, pending ? `pending${index}` : index);
}
