/**
 * A chatstate message as a Penguin message (seed-formats.md §1.9): the ten keys in Penguin's order,
 * the category's enum name, tool calls in `metadata.tool_calls`, results as `action` messages, naive
 * local timestamps. What Penguin has no key for goes under `metadata.chatstate`.
 * @module
 */
import type { Message } from '../../message/message.js';
import type { Category, JsonObject, JsonValue } from '../../message/schema.js';
import { toDataUrl } from '../../formats/media-url.js';
import { isObject } from '../json-text.js';
import { formatNaiveLocal, readNaiveLocal } from '../timestamps.js';
import { PENGUIN_CATEGORIES, type PenguinCategory } from './message.js';

const FROM_CHATSTATE: Readonly<Record<Category, PenguinCategory>> = {
  system: 'SYSTEM',
  context: 'CONTEXT',
  dialog: 'DIALOG',
  tool_output: 'SYSTEM_OUTPUT',
};

/** `original` when it still reads as `iso` in `timeZone` (keeps Penguin's microseconds), else `iso` written naive. */
export function naiveTime(original: unknown, iso: string, timeZone: string): string {
  if (typeof original === 'string' && readNaiveLocal(original, timeZone)?.iso === iso) return original;
  return formatNaiveLocal(iso, timeZone);
}

function writeContent(message: Message, penguin: Record<string, unknown>, lost: string[]): JsonValue {
  if (Object.hasOwn(penguin, 'content')) return penguin.content as JsonValue;
  if (typeof message.content === 'string') return message.content;
  const extras = isObject(penguin.parts) ? penguin.parts : {};
  const out: JsonValue[] = [];
  message.content.forEach((part, index) => {
    const extra = isObject(extras[String(index)]) ? (extras[String(index)] as JsonObject) : {};
    switch (part.type) {
      case 'text':
        out.push({ type: 'text', text: part.text, ...extra });
        break;
      case 'image':
        out.push({
          type: 'image_url',
          image_url: { url: part.url ?? toDataUrl(part.data ?? '', part.mediaType ?? 'application/octet-stream') },
        });
        break;
      case 'raw':
        if (part.provider !== 'openaiChat') lost.push(`a raw ${part.provider} part was written as it is`);
        out.push(part.value);
        break;
      case 'file':
      case 'reasoning':
        lost.push(`a ${part.type} part (Penguin has no such part) was kept under metadata.chatstate.parts`);
        break;
      default: {
        const never: never = part;
        throw new Error(`unknown part ${JSON.stringify(never)}`);
      }
    }
  });
  return out;
}

/** `message` as a Penguin message (legacy: the seven seed-era keys); what cannot be held is listed in `lost`. */
export function penguinMessage(message: Message, timeZone: string, legacy: boolean, lost: string[]): JsonObject {
  const { penguin: rawPenguin, ...metadata } = message.metadata as Record<string, JsonValue>;
  const penguin = isObject(rawPenguin) ? rawPenguin : {};
  const out: Record<string, JsonValue> = { ...metadata };
  const chatstate: Record<string, JsonValue> = {};
  if (message.toolCalls !== undefined) {
    const kept = Array.isArray(metadata.tool_calls) ? metadata.tool_calls : [];
    out.tool_calls = [
      ...message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
      ...kept,
    ];
    if (message.toolCalls.some((call) => call.providerOptions !== undefined))
      chatstate.toolCalls = message.toolCalls.map((call) => ({
        id: call.id,
        providerOptions: call.providerOptions ?? {},
      }));
  }
  if (message.role === 'tool') {
    out.tool_call_id = message.toolCallId ?? '';
    if (message.name !== undefined && out.action_type === undefined) out.action_type = message.name;
  }
  if (message.name !== undefined && message.role !== 'tool') chatstate.name = message.name;
  if (message.tokens !== undefined) chatstate.tokens = message.tokens;
  const parts = typeof message.content === 'string' ? [] : message.content;
  const kept = Object.fromEntries(
    parts.flatMap((part, index) => (part.type === 'file' || part.type === 'reasoning' ? [[String(index), part]] : [])),
  );
  if (Object.keys(kept).length > 0) chatstate.parts = kept as JsonObject;
  if (Object.keys(chatstate).length > 0) out.chatstate = chatstate;

  const named = typeof penguin.category === 'string' ? penguin.category : undefined;
  const category =
    named !== undefined && (PENGUIN_CATEGORIES as readonly string[]).includes(named)
      ? named
      : FROM_CHATSTATE[message.category];
  const written: Record<string, JsonValue> = {
    role: typeof penguin.role === 'string' ? penguin.role : message.role,
    content: writeContent(message, penguin, lost),
    category,
    id: message.id,
    timestamp: naiveTime(penguin.timestamp, message.timestamp, timeZone),
    metadata: out,
  };
  if (legacy) return written;
  return {
    ...written,
    tokens: typeof penguin.tokens === 'number' && Number.isSafeInteger(penguin.tokens) ? penguin.tokens : 0,
    agent_id: (penguin.agentId as JsonValue | undefined) ?? null,
    recipient_id: (penguin.recipientId as JsonValue | undefined) ?? null,
    message_type: (penguin.messageType as JsonValue | undefined) ?? (message.role === 'tool' ? 'action' : 'message'),
  };
}
