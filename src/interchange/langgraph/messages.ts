/**
 * LangChain messages as LangGraph checkpoints hold them, read into chatstate message drafts: the
 * role from the class (or stored type, or dict role), ids, names, tool calls and results. Whatever
 * has no chatstate field (`additional_kwargs`, `response_metadata`, `usage_metadata`, a tool's
 * `status` and `artifact`, content blocks chatstate does not model) is kept verbatim in
 * `metadata.langgraph`. A `RemoveMessage` or an empty message becomes no message and is kept in
 * the session's metadata.
 *
 * The other direction lives here too: `toLangChainSerialized` writes a chatstate message back as
 * the serializer's constructor form, and `fromLangChainSerialized` (the LangGraph saver's reader)
 * adds to `decodeMessage`'s message the few fixes (`metadata.langchain`) that make that way back
 * exact, so a message that goes in comes out equal.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { ChatstateError } from '../../errors.js';
import { Message, type MessageInput } from '../../message/message.js';
import type { Content, JsonObject, JsonValue, ToolCallInput } from '../../message/schema.js';
import { isEmptyContent } from '../../message/rules.js';
import { messageIdOr, type Draft } from '../build.js';
import { derivedMessageId, validToolCallId } from '../import-ids.js';
import type { ImportRepair } from '../types.js';
import { readContent } from './content.js';
import { normalizeMessage, withoutSentinels, type Normalized } from './forms.js';
import { FunctionCalls, readToolCalls } from './tool-calls.js';

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

// ---------------------------------------------------------------------------------------------
// Both directions, exactly: what the LangGraph saver stores and reads back.

/** Metadata key of the fixes that make `toLangChainSerialized` give back the exact source message. */
export const EXACT_KEY = 'langchain';

// Keys of `metadata.langgraph` that are not the message's own fields.
const NOT_KWARGS = new Set(['class', 'path', 'unreadToolCalls', 'pending', 'input']);

/** The serializer's constructor form of a LangChain message. */
export interface SerializedLangChainMessage {
  readonly lc: 1;
  readonly type: 'constructor';
  readonly id: readonly string[];
  readonly kwargs: JsonObject;
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** True for the serializer's constructor form (`{"lc":1,"type":"constructor","id":[…],"kwargs":{…}}`) and nothing more. */
function isConstructorForm(value: unknown): value is SerializedLangChainMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    Object.keys(record).length === 4 &&
    record['lc'] === 1 &&
    record['type'] === 'constructor' &&
    Array.isArray(record['id']) &&
    (record['id'] as unknown[]).every((part) => typeof part === 'string') &&
    typeof record['kwargs'] === 'object' &&
    record['kwargs'] !== null &&
    !Array.isArray(record['kwargs'])
  );
}

const CLASS_OF_ROLE: Readonly<Record<Message['role'], string>> = {
  user: 'HumanMessage',
  assistant: 'AIMessage',
  system: 'SystemMessage',
  tool: 'ToolMessage',
};

/** Chatstate content as LangChain content: text as written, parts as content blocks. */
function contentBlocks(content: Content): JsonValue {
  if (typeof content === 'string') return content;
  return content.map((part): JsonValue => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image': {
        const url = part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data ?? ''}`;
        return { type: 'image_url', image_url: part.detail === undefined ? { url } : { url, detail: part.detail } };
      }
      case 'reasoning':
        return part.signature === undefined
          ? { type: 'thinking', thinking: part.text }
          : { type: 'thinking', thinking: part.text, signature: part.signature };
      default:
        // Files and raw parts have no LangChain block of their own: kept as chatstate wrote them.
        return part as unknown as JsonValue;
    }
  });
}

function parsedArguments(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * A chatstate message as the serializer's constructor form of a LangChain message (what
 * `@langchain/core/load` revives): the class it was written as, its fields from chatstate's, the
 * fields chatstate had no place for from `metadata.langgraph`, then the fixes of `metadata.langchain`.
 */
export function toLangChainSerialized(message: Message): JsonValue {
  const exact = asObject(message.metadata[EXACT_KEY]);
  if (exact !== undefined && exact['value'] !== undefined) return exact['value'];
  const kept = asObject(message.metadata['langgraph']) ?? {};
  const written = typeof kept['class'] === 'string' ? kept['class'] : CLASS_OF_ROLE[message.role];
  const path = Array.isArray(kept['path']) ? (kept['path'] as JsonValue[]) : ['langchain_core', 'messages', written];
  const kwargs: Record<string, JsonValue> = { content: kept['content'] ?? contentBlocks(message.content) };
  for (const [key, value] of Object.entries(kept)) if (!NOT_KWARGS.has(key) && key !== 'content') kwargs[key] = value;
  if (!('id' in kept)) kwargs['id'] = message.id;
  if (!('name' in kept) && message.name !== undefined) kwargs['name'] = message.name;
  if (message.toolCalls !== undefined)
    kwargs['tool_calls'] = message.toolCalls.map((call) => ({
      name: call.name,
      args: parsedArguments(call.arguments),
      id: call.id,
      type: 'tool_call',
    }));
  if (message.toolCallId !== undefined) kwargs['tool_call_id'] = message.toolCallId;
  const fixes = asObject(exact?.['kwargs']);
  if (fixes !== undefined) Object.assign(kwargs, fixes);
  const absent = exact?.['absent'];
  if (Array.isArray(absent)) for (const key of absent) if (typeof key === 'string') delete kwargs[key];
  const id = exact?.['id'];
  return { lc: 1, type: 'constructor', id: Array.isArray(id) ? id : path, kwargs };
}

/** What `fromLangChainSerialized` needs besides the message. */
export interface FromLangChainOptions {
  /** The chatstate id to give the message (the LangChain id stays a field of its own). */
  readonly id: string;
  /** Its timestamp. @default now */
  readonly timestamp?: string;
  /** Where it is, for errors (`thread t1, messages[3]`). */
  readonly where: string;
}

/** A message that is no conversation turn (a `RemoveMessage`, an empty message): told as context. */
function placeholder(serialized: unknown, options: FromLangChainOptions): MessageInput {
  const written = isConstructorForm(serialized) ? (serialized.id.at(-1) ?? 'message') : 'message';
  const target = isConstructorForm(serialized) ? serialized.kwargs['id'] : undefined;
  const text =
    written === 'RemoveMessage'
      ? `[LangChain RemoveMessage${typeof target === 'string' ? ` of ${target}` : ''}]`
      : `[LangChain ${written} without content]`;
  return {
    id: options.id,
    role: 'system',
    category: 'context',
    content: text,
    metadata: { langgraph: { class: written } },
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  };
}

/** The fixes that turn `rebuilt` into `source` (same class path, kwargs equal), or `{ value }` when no fix can. */
function fixesFor(source: unknown, rebuilt: JsonValue): JsonObject | undefined {
  if (!isConstructorForm(source)) return { value: (source ?? null) as JsonValue };
  if (isDeepStrictEqual(source, rebuilt)) return undefined;
  const built = rebuilt as unknown as SerializedLangChainMessage;
  const fixes: Record<string, JsonValue> = {};
  const kwargs: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(source.kwargs))
    if (!isDeepStrictEqual(value, built.kwargs[key])) kwargs[key] = value;
  const absent = Object.keys(built.kwargs).filter((key) => !(key in source.kwargs));
  if (Object.keys(kwargs).length > 0) fixes['kwargs'] = kwargs;
  if (absent.length > 0) fixes['absent'] = absent;
  if (!isDeepStrictEqual(source.id, built.id)) fixes['id'] = [...source.id];
  return fixes;
}

/**
 * A serialized LangChain message (the JSON of `serde.dumpsTyped`) as a chatstate message that
 * `toLangChainSerialized` turns back into the very same JSON: `decodeMessage`'s reading (role,
 * content, tool calls, the rest in `metadata.langgraph`), plus in `metadata.langchain` whatever
 * that reading changed. A message chatstate cannot hold as a turn (`RemoveMessage`, no content)
 * becomes a context message that still gives it back. Throws `TOO_LARGE` for a message over the limit.
 */
export function fromLangChainSerialized(serialized: unknown, options: FromLangChainOptions): Message {
  const place: MessagePlace = {
    where: options.where,
    fallbackId: options.id,
    timestampOf: () => options.timestamp ?? new Date().toISOString(),
  };
  let input: MessageInput;
  try {
    const decoded = decodeMessage(serialized, place, new FunctionCalls());
    input = decoded.draft === undefined ? placeholder(serialized, options) : decoded.draft.input;
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    input = placeholder(serialized, options);
  }
  input = { ...input, id: options.id, ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }) };
  let message: Message;
  try {
    message = Message.create(input);
  } catch (error) {
    if (ChatstateError.hasCode(error, 'TOO_LARGE')) throw error;
    input = placeholder(serialized, options);
    message = Message.create(input);
  }
  const fixes = fixesFor(serialized, toLangChainSerialized(message));
  if (fixes === undefined) return message;
  const fixed = Message.create({ ...input, metadata: { ...(input.metadata ?? {}), [EXACT_KEY]: fixes } });
  if (isDeepStrictEqual(toLangChainSerialized(fixed), serialized)) return fixed;
  // Belt and braces: a field the fixes could not express is kept whole.
  return Message.create({
    ...input,
    metadata: { ...(input.metadata ?? {}), [EXACT_KEY]: { value: (serialized ?? null) as JsonValue } },
  });
}
