/**
 * Chatstate messages that were not written by a chat store (a conversation of the runtime, an
 * import, a compaction summary, a group another writer cut) read as the nearest UI messages: text,
 * reasoning and files become parts, an assistant's tool calls become `dynamic-tool` parts with the
 * outcome of the tool message that answers them, and a tool message is read with its call.
 * @module
 */
import { toolResultOutput } from '../../formats/ai-sdk-output.js';
import { parseJson } from '../../formats/wire-json.js';
import type { Message } from '../../message/message.js';
import type { ContentPart, JsonValue } from '../../message/schema.js';
import type { StoredUiMessage } from './decode.js';
import { isPlaceholder } from './stored-layout.js';
import type { UiPartJson } from './ui-json.js';

function contentParts(content: Message['content']): UiPartJson[] {
  if (typeof content === 'string') return content.length === 0 ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part: ContentPart): UiPartJson[] => {
    switch (part.type) {
      case 'text':
        return [{ type: 'text', text: part.text }];
      case 'reasoning':
        return [{ type: 'reasoning', text: part.text }];
      case 'file':
      case 'image': {
        const mediaType = part.mediaType ?? 'application/octet-stream';
        const url = part.url ?? (part.data === undefined ? undefined : `data:${mediaType};base64,${part.data}`);
        if (url === undefined) return [];
        const file: UiPartJson = { type: 'file', mediaType, url };
        return [part.type === 'file' && part.filename !== undefined ? { ...file, filename: part.filename } : file];
      }
      case 'raw':
        return [];
      default: {
        const unreachable: never = part;
        throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
      }
    }
  });
}

/** A `dynamic-tool` part for `call`, with the outcome `result` gives it (none: the call waits for one). */
function toolPart(call: NonNullable<Message['toolCalls']>[number], result: Message | undefined): UiPartJson {
  const parsed = parseJson(call.arguments);
  const base = {
    type: 'dynamic-tool',
    toolName: call.name,
    toolCallId: call.id,
    input: parsed.ok ? parsed.value : call.arguments,
  };
  if (result === undefined) return { ...base, state: 'input-available' };
  const output = toolResultOutput(result, []);
  switch (output.type) {
    case 'text':
    case 'json':
    case 'error-json':
      return { ...base, state: 'output-available', output: output.value as JsonValue };
    case 'error-text':
      return { ...base, state: 'output-error', errorText: output.value };
    case 'execution-denied':
      return {
        ...base,
        state: 'output-denied',
        approval: { id: call.id, approved: false, ...(output.reason === undefined ? {} : { reason: output.reason }) },
      };
    case 'content':
      return { ...base, state: 'output-available', output: output.value as unknown as JsonValue };
    default: {
      const unreachable: never = output;
      throw new Error(`unknown output ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The UI messages of a run of messages without the chat store's layout. */
export function foreignUiMessages(messages: readonly Message[]): StoredUiMessage[] {
  const out: StoredUiMessage[] = [];
  const answered = new Set<Message>();
  messages.forEach((message, index) => {
    if (answered.has(message)) return;
    if (message.role === 'tool') {
      // A result without its call in this run: its call is gone, so it stands alone.
      out.push({
        message: {
          id: message.id,
          role: 'assistant',
          parts: [
            toolPart({ id: message.toolCallId ?? message.id, name: message.name ?? 'tool', arguments: '{}' }, message),
          ],
        },
        stored: [message],
      });
      return;
    }
    const parts = contentParts(message.content).filter((part) => part.type !== 'raw');
    const stored: Message[] = [message];
    for (const call of message.toolCalls ?? []) {
      const result = messages
        .slice(index + 1)
        .find((item) => item.role === 'tool' && item.toolCallId === call.id && !answered.has(item));
      if (result !== undefined) {
        answered.add(result);
        stored.push(result);
      }
      parts.push(toolPart(call, result));
    }
    if (
      typeof message.content !== 'string' &&
      message.content.every((part) => isPlaceholder(part)) &&
      parts.length === 0
    )
      return;
    out.push({ message: { id: message.id, role: message.role, parts }, stored });
  });
  return out;
}
