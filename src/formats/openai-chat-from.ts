/**
 * Chat Completions messages read back into chatstate messages. What chatstate does not model (audio
 * input, refusals, `audio`, deprecated `function_call` and `function` messages, parts and messages
 * with extra fields) becomes raw `openaiChat` parts that `openaiChat.to` writes back unchanged.
 * @module
 */
import { Message, type MessageInput } from '../message/message.js';
import type { Content, ContentPart, ToolCallInput } from '../message/schema.js';
import { UNKNOWN_MEDIA_TYPE, imageFromUrl, isImageDetail, splitDataUrl } from './media-url.js';
import type { OpenaiChatWire } from './openai-chat-wire.js';
import { isBlankContent } from './turn-rules.js';
import type { FormatWarning, FromResult } from './types.js';
import { extraFields, hasOnlyFields, isRecord, toJsonObject, toJsonValue, unreadable } from './wire-json.js';

type Place = 'user' | 'assistant' | 'text-only';

function raw(value: unknown, path: string): ContentPart {
  return { type: 'raw', provider: 'openaiChat', value: toJsonValue(value, path) };
}

function readImage(part: Record<string, unknown>): ContentPart | undefined {
  const image = part['image_url'];
  if (!hasOnlyFields(part, ['type', 'image_url']) || !isRecord(image) || !hasOnlyFields(image, ['url', 'detail']))
    return undefined;
  const { url, detail } = image;
  if (typeof url !== 'string' || url.length === 0 || (detail !== undefined && !isImageDetail(detail))) return undefined;
  return imageFromUrl(url, detail);
}

function readFile(part: Record<string, unknown>): ContentPart | undefined {
  const file = part['file'];
  if (
    !hasOnlyFields(part, ['type', 'file']) ||
    !isRecord(file) ||
    !hasOnlyFields(file, ['file_data', 'file_id', 'filename'])
  )
    return undefined;
  const { file_data: data, file_id: fileId, filename } = file;
  if (filename !== undefined && (typeof filename !== 'string' || filename.length === 0)) return undefined;
  const named = filename === undefined ? {} : { filename };
  if (typeof fileId === 'string' && fileId.length > 0 && data === undefined)
    return { type: 'file', fileId, mediaType: UNKNOWN_MEDIA_TYPE, ...named };
  // Base64 without a data URL has no media type to keep: left raw so it is written back as it was.
  const inline = typeof data === 'string' && fileId === undefined ? splitDataUrl(data) : undefined;
  return inline === undefined ? undefined : { type: 'file', data: inline.data, mediaType: inline.mediaType, ...named };
}

function readPart(part: unknown, path: string, place: Place): ContentPart {
  if (!isRecord(part) || typeof part['type'] !== 'string') throw unreadable(path, 'a content part with a type');
  let read: ContentPart | undefined;
  if (part['type'] === 'text' && typeof part['text'] === 'string' && hasOnlyFields(part, ['type', 'text']))
    read = { type: 'text', text: part['text'] };
  else if (part['type'] === 'image_url' && place === 'user') read = readImage(part);
  else if (part['type'] === 'file' && place === 'user') read = readFile(part);
  return read ?? raw(part, path);
}

function readContent(content: unknown, path: string, place: Place): Content {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw unreadable(path, 'a string or an array of parts');
  return content.map((part, index) => readPart(part, `${path}[${index}]`, place));
}

function nameOf(item: Record<string, unknown>): { name?: string } {
  return typeof item['name'] === 'string' && item['name'].length > 0 ? { name: item['name'] } : {};
}

function readToolCall(call: unknown, path: string): ToolCallInput {
  if (!isRecord(call) || typeof call['id'] !== 'string') throw unreadable(path, 'a tool call with an id');
  const fn = call['function'];
  if (
    call['type'] === 'function' &&
    isRecord(fn) &&
    typeof fn['name'] === 'string' &&
    typeof fn['arguments'] === 'string'
  ) {
    return { id: call['id'], name: fn['name'], arguments: fn['arguments'] };
  }
  const custom = call['custom'];
  if (
    call['type'] === 'custom' &&
    isRecord(custom) &&
    typeof custom['name'] === 'string' &&
    typeof custom['input'] === 'string'
  ) {
    return {
      id: call['id'],
      name: custom['name'],
      arguments: custom['input'],
      providerOptions: { openaiChat: { type: 'custom' } },
    };
  }
  throw unreadable(path, 'a function or custom tool call');
}

/**
 * `content` plus, when the message has fields other than `known` (an assistant's `refusal`, `audio`,
 * `function_call`, or fields added to the API later), one raw part holding them, merged back by `to`.
 */
function withFields(content: Content, item: Record<string, unknown>, known: readonly string[], path: string): Content {
  const extras = extraFields(item, known);
  if (Object.keys(extras).length === 0) return content;
  const parts: ContentPart[] =
    typeof content === 'string' ? (content.length > 0 ? [{ type: 'text', text: content }] : []) : [...content];
  return [...parts, { type: 'raw', provider: 'openaiChat', value: toJsonObject(extras, path) }];
}

/** Reads one assistant message (request or response shape); undefined when it carries nothing. */
function readAssistant(
  item: Record<string, unknown>,
  path: string,
  callNames: Map<string, string>,
): Message | undefined {
  const content = withFields(
    readContent(item['content'], `${path}.content`, 'assistant'),
    item,
    ['role', 'content', 'name', 'tool_calls'],
    path,
  );
  const rawCalls = item['tool_calls'];
  if (rawCalls !== undefined && rawCalls !== null && !Array.isArray(rawCalls))
    throw unreadable(`${path}.tool_calls`, 'an array');
  const toolCalls = (rawCalls ?? []).map((call: unknown, index: number) =>
    readToolCall(call, `${path}.tool_calls[${index}]`),
  );
  for (const call of toolCalls) callNames.set(call.id, call.name);
  if (isBlankContent(content) && toolCalls.length === 0) return undefined;
  return Message.create({
    role: 'assistant',
    content: content as MessageInput['content'],
    ...nameOf(item),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  });
}

function readMessage(item: unknown, path: string, callNames: Map<string, string>): Message | undefined {
  if (!isRecord(item)) throw unreadable(path, 'a message object');
  const role = item['role'];
  switch (role) {
    case 'system':
    case 'developer':
    case 'user': {
      // `developer` is the newer spelling of `system`; both are read as system messages.
      const content = withFields(
        readContent(item['content'], `${path}.content`, role === 'user' ? 'user' : 'text-only'),
        item,
        ['role', 'content', 'name'],
        path,
      );
      if (isBlankContent(content)) return undefined;
      return Message.create({
        role: role === 'user' ? 'user' : 'system',
        content: content as MessageInput['content'],
        ...nameOf(item),
      });
    }
    case 'assistant':
      return readAssistant(item, path, callNames);
    case 'tool': {
      const id = item['tool_call_id'];
      if (typeof id !== 'string') throw unreadable(`${path}.tool_call_id`, 'a string');
      const content = withFields(
        readContent(item['content'], `${path}.content`, 'text-only'),
        item,
        ['role', 'content', 'tool_call_id'],
        path,
      );
      const name = callNames.get(id);
      return Message.create({
        role: 'tool',
        toolCallId: id,
        content: content as MessageInput['content'],
        ...(name === undefined ? {} : { name }),
      });
    }
    case 'function':
      // A deprecated function result: kept whole, written back as the same message.
      return Message.create({ role: 'user', content: [raw(item, path)] as MessageInput['content'] });
    default:
      throw unreadable(`${path}.role`, 'system, developer, user, assistant, tool or function');
  }
}

/** Reads Chat Completions `messages` back into messages; throws `INVALID_ARGUMENT` when the shape is unreadable. */
export function fromOpenaiChat(wire: OpenaiChatWire): FromResult {
  const value: unknown = wire;
  if (!isRecord(value) || !Array.isArray(value['messages'])) throw unreadable('messages', 'an array of messages');
  const messages: Message[] = [];
  const warnings: FormatWarning[] = [];
  const callNames = new Map<string, string>();
  value['messages'].forEach((item: unknown, index: number) => {
    const path = `messages[${index}]`;
    const message = readMessage(item, path, callNames);
    if (message === undefined) warnings.push({ code: 'empty_message', message: `Skipped ${path}: it has no content` });
    else messages.push(message);
  });
  return { messages, warnings };
}

/**
 * The assistant message of a Chat Completions response (`choices[0].message`, or that message
 * itself). Output-only fields (`annotations`, audio data) are left out: only the audio id can be
 * sent back. Throws `INVALID_ARGUMENT` when there is no readable, non-empty message.
 */
export function openaiChatFromResponse(response: unknown): Message {
  const choices = isRecord(response) ? response['choices'] : undefined;
  const first: unknown = Array.isArray(choices) ? (choices[0] as unknown) : undefined;
  const message = isRecord(first) ? first['message'] : response;
  if (!isRecord(message) || message['role'] !== 'assistant')
    throw unreadable('choices[0].message', 'an assistant message');
  const { annotations: _annotations, audio, ...rest } = message;
  const request = isRecord(audio) && typeof audio['id'] === 'string' ? { ...rest, audio: { id: audio['id'] } } : rest;
  const read = readAssistant(request, 'choices[0].message', new Map());
  if (read === undefined) throw unreadable('choices[0].message', 'a message with content or tool calls');
  return read;
}
