/**
 * LangChain messages as LangGraph checkpoints hold them, read into chatstate message drafts: the
 * role from the class (or stored type, or dict role), ids, names, tool calls and results. Whatever
 * has no chatstate field (`additional_kwargs`, `response_metadata`, `usage_metadata`, a tool's
 * `status` and `artifact`, content blocks chatstate does not model) is kept verbatim in
 * `metadata.langgraph`. A `RemoveMessage` or an empty message becomes no message and is kept in
 * the session's metadata.
 * @module
 */
import type { MessageInput } from '../../message/message.js';
import type { JsonObject, JsonValue, ToolCallInput } from '../../message/schema.js';
import { isEmptyContent } from '../../message/rules.js';
import { messageIdOr, type Draft } from '../build.js';
import { derivedMessageId, validToolCallId } from '../import-ids.js';
import type { ImportRepair } from '../types.js';
import { readContent } from './content.js';
import { normalizeMessage, withoutSentinels, type Normalized } from './forms.js';
import { readToolCalls, type FunctionCalls } from './tool-calls.js';

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
