/**
 * Magent's `messages` generations (seed-formats.md §2.2–2.3) as drafts: G0's newest-first list with
 * Anthropic-style blocks and embedded `tool_result` objects, and the chronological, flattened lists
 * of G1 to v5, whose tool objects (from `cf3b608`) carry the call they answer.
 * @module
 */
import type { MessageInput } from '../../message/message.js';
import type { ContentPart, JsonValue, ToolCallInput } from '../../message/schema.js';
import { TOOL_CALL_ID_PATTERN } from '../../message/schema.js';
import { json, type Draft } from '../build.js';
import { isObject } from '../json-text.js';
import type { ImportRepair } from '../types.js';

/** What every message of one file shares. */
export interface ChatContext {
  readonly sessionId: string;
  /** The time every message gets (quirk 3: no per-message times before v6). */
  readonly timestamp: string;
  readonly repairs: ImportRepair[];
}

function validCallId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 256 && TOOL_CALL_ID_PATTERN.test(value);
}

function validName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 256;
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** A message that cannot be what it says (a result without a call id, an unknown role): its text, as context. */
function asContext(raw: unknown, content: string, why: string, index: number, context: ChatContext): MessageInput {
  context.repairs.push({ kind: why, message: `Message ${index} was kept as a context message (${why})` });
  const was = isObject(raw) ? json(raw.role ?? null) : null;
  return { role: 'system', category: 'context', content, metadata: { imported: { was, why } } };
}

/** A G0 assistant content: a string, or text and `tool_use` blocks (quirk 5: `input: null` means no arguments). */
function assistantOf(content: unknown): Pick<MessageInput, 'content' | 'toolCalls'> {
  if (!Array.isArray(content)) return { content: textOf(content) };
  const parts: ContentPart[] = [];
  const toolCalls: ToolCallInput[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string')
      parts.push({ type: 'text', text: block.text });
    else if (isObject(block) && block.type === 'tool_use' && validCallId(block.id) && validName(block.name))
      toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    else parts.push({ type: 'raw', provider: 'anthropic', value: json(block) });
  }
  const only = parts.length === 1 && parts[0]?.type === 'text' ? parts[0].text : undefined;
  return { content: only ?? (parts.length === 0 ? '' : parts), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

/** G0 messages (newest first, quirk 1) in chronological order. */
export function g0Drafts(messages: readonly unknown[], context: ChatContext): Draft[] {
  return [...messages].reverse().map((raw, index) => {
    const entry = isObject(raw) ? raw : {};
    let input: MessageInput;
    if (entry.role === 'user' || entry.role === 'system') input = { role: entry.role, content: textOf(entry.content) };
    else if (entry.role === 'assistant') input = { role: 'assistant', ...assistantOf(entry.content) };
    else if (entry.role === 'tool') {
      // Quirk 4: one object, not an array.
      const result = isObject(entry.content) ? entry.content : {};
      input = validCallId(result.tool_use_id)
        ? { role: 'tool', toolCallId: result.tool_use_id, content: textOf(result.content) }
        : asContext(raw, textOf(entry.content), 'orphan_tool_result', index, context);
    } else input = asContext(raw, textOf(isObject(raw) ? entry.content : raw), 'unknown_role', index, context);
    return { input: stamp(input, index, context), original: raw };
  });
}

function stamp(input: MessageInput, index: number, context: ChatContext): MessageInput {
  const metadata = { ...(input.metadata as Record<string, JsonValue> | undefined) };
  metadata.magent = { idDerived: true, timestampDerived: true };
  return { ...input, id: `${context.sessionId}.${index}`, timestamp: context.timestamp, metadata };
}

/**
 * G1–v5 messages (chronological, flattened, quirk 6). A v2 tool object names its call: the call is
 * added as an assistant message before its result(s) (the file lost it when content was flattened).
 */
export function chronologicalDrafts(messages: readonly unknown[], context: ChatContext): Draft[] {
  const drafts: Draft[] = [];
  let pending: { calls: ToolCallInput[]; results: Draft[] } | undefined;
  const flush = () => {
    if (pending === undefined) return;
    drafts.push({
      input: {
        role: 'assistant',
        content: '',
        toolCalls: pending.calls,
        metadata: { imported: { synthesized: true } },
      },
      original: null,
    });
    const first = pending.calls[0]?.id ?? '';
    context.repairs.push({
      kind: 'synthesized_tool_call',
      message: `Added the assistant call ${first}${pending.calls.length > 1 ? ` (and ${pending.calls.length - 1} more)` : ''} before its result: Magent flattened it away`,
    });
    for (const result of pending.results) drafts.push(result);
    pending = undefined;
  };
  messages.forEach((raw, index) => {
    const entry = isObject(raw) ? raw : {};
    const tool = entry.role === 'tool' && isObject(entry.content) ? entry.content : undefined;
    if (tool !== undefined && validCallId(tool.id)) {
      let args = '{}';
      if (typeof tool['args-json'] === 'string') args = tool['args-json'];
      pending ??= { calls: [], results: [] };
      pending.calls.push({ id: tool.id, name: validName(tool.name) ? tool.name : 'tool', arguments: args });
      const input: MessageInput = {
        role: 'tool',
        toolCallId: tool.id,
        content: textOf(tool.result),
        ...(validName(tool.name) ? { name: tool.name } : {}),
      };
      pending.results.push({ input, original: raw });
      return;
    }
    flush();
    let input: MessageInput;
    if (entry.role === 'user' || entry.role === 'assistant' || entry.role === 'system')
      input = { role: entry.role, content: textOf(entry.content) };
    else if (entry.role === 'tool') input = asContext(raw, textOf(entry.content), 'orphan_tool_result', index, context);
    else input = asContext(raw, textOf(isObject(raw) ? entry.content : raw), 'unknown_role', index, context);
    drafts.push({ input, original: raw });
  });
  flush();
  // Ids and times by final position, so that a synthesized call has its own.
  return drafts.map((draft, index) => ({ ...draft, input: stamp(draft.input, index, context) }));
}
