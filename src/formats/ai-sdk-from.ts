/**
 * AI SDK `system` and `messages` read back into chatstate messages. Tool inputs (objects) become
 * JSON text; parts chatstate does not model (provider-executed tool calls and results, approval
 * requests, …) are raw `aiSdk` parts that `aiSdk.to` writes back unchanged. Tool approval
 * responses become a user message of raw parts, which `to` writes back as a tool message.
 * @module
 */
import { Buffer } from 'node:buffer';
import { Message, type MessageInput } from '../message/message.js';
import type { Content, ContentPart, JsonObject, ToolCallInput } from '../message/schema.js';
import { fromAiSdkOptions, readSignature, withOptions } from './ai-sdk-options.js';
import { readToolOutput } from './ai-sdk-output.js';
import type { AiSdkWireInput } from './ai-sdk-wire.js';
import { isImageDetail } from './media-url.js';
import { contentOf, isBlankContent } from './turn-rules.js';
import type { FormatWarning, FromResult } from './types.js';
import { isRecord, parseJson, toJsonValue, unreadable } from './wire-json.js';

function raw(value: unknown, path: string): ContentPart {
  return { type: 'raw', provider: 'aiSdk', value: toJsonValue(value, path) };
}

/** Media as a URL (any parseable URL, data: URLs included, as the AI SDK reads strings) or base64 data. */
function readData(value: unknown, path: string): { url: string } | { data: string } {
  if (value instanceof URL) return { url: value.href };
  if (value instanceof Uint8Array || value instanceof ArrayBuffer)
    return { data: Buffer.from(value as Uint8Array).toString('base64') };
  if (typeof value !== 'string' || value.length === 0) throw unreadable(path, 'base64 data, a URL, or bytes');
  try {
    new URL(value);
    return { url: value };
  } catch {
    return { data: value };
  }
}

/** Image detail lives in `providerOptions.openai.imageDetail` in the AI SDK: taken out into the part. */
function takeDetail(options: Record<string, JsonObject> | undefined): {
  detail?: 'auto' | 'low' | 'high';
  options?: Record<string, JsonObject>;
} {
  const detail = options?.['openai']?.['imageDetail'];
  if (options === undefined || !isImageDetail(detail)) return { ...(options === undefined ? {} : { options }) };
  const { imageDetail: _detail, ...openai } = options['openai'] ?? {};
  const rest: Record<string, JsonObject> = { ...options };
  if (Object.keys(openai).length > 0) rest['openai'] = openai;
  else delete rest['openai'];
  return { detail, ...(Object.keys(rest).length > 0 ? { options: rest } : {}) };
}

function readPart(
  part: unknown,
  path: string,
  place: 'user' | 'assistant',
  calls: ToolCallInput[],
): ContentPart | undefined {
  if (!isRecord(part) || typeof part['type'] !== 'string') throw unreadable(path, 'a content part with a type');
  const options = fromAiSdkOptions(part['providerOptions'], `${path}.providerOptions`);
  const mediaType =
    typeof part['mediaType'] === 'string' && part['mediaType'].length > 0 ? part['mediaType'] : undefined;
  switch (part['type']) {
    case 'text':
      if (typeof part['text'] !== 'string') break;
      return { type: 'text', text: part['text'], ...withOptions(options) };
    case 'image': {
      if (place !== 'user') break;
      const { detail, options: rest } = takeDetail(options);
      return {
        type: 'image',
        ...readData(part['image'], `${path}.image`),
        ...(mediaType === undefined ? {} : { mediaType }),
        ...(detail === undefined ? {} : { detail }),
        ...withOptions(rest),
      };
    }
    case 'file': {
      if (mediaType === undefined) break;
      const filename =
        typeof part['filename'] === 'string' && part['filename'].length > 0 ? { filename: part['filename'] } : {};
      return {
        type: 'file',
        ...readData(part['data'], `${path}.data`),
        mediaType,
        ...filename,
        ...withOptions(options),
      };
    }
    case 'reasoning':
      if (place !== 'assistant' || typeof part['text'] !== 'string') break;
      return { type: 'reasoning', text: part['text'], ...readSignature(options) };
    case 'tool-call': {
      // Provider-executed calls are answered by the provider, not by a tool message: kept raw.
      const { toolCallId: id, toolName: name, input } = part;
      if (
        place !== 'assistant' ||
        part['providerExecuted'] === true ||
        typeof id !== 'string' ||
        typeof name !== 'string'
      )
        break;
      // A string input that is not JSON is arguments text `to` passed through as it was.
      const args =
        typeof input === 'string' && !parseJson(input).ok
          ? input
          : JSON.stringify(toJsonValue(input === undefined ? {} : input, `${path}.input`));
      calls.push({ id, name, arguments: args, ...withOptions(options) });
      return undefined;
    }
  }
  return raw(part, path);
}

function readContent(content: unknown, path: string, place: 'user' | 'assistant', calls: ToolCallInput[]): Content {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw unreadable(path, 'a string or an array of parts');
  return content.flatMap((part, index) => readPart(part, `${path}[${index}]`, place, calls) ?? []);
}

function readTool(item: Record<string, unknown>, path: string, messages: Message[], warnings: FormatWarning[]): void {
  const content = item['content'];
  if (!Array.isArray(content)) throw unreadable(`${path}.content`, 'an array of tool results');
  const approvals: ContentPart[] = [];
  content.forEach((part: unknown, index) => {
    const where = `${path}.content[${index}]`;
    if (isRecord(part) && part['type'] === 'tool-approval-response') {
      approvals.push(raw(part, where));
      return;
    }
    if (!isRecord(part) || part['type'] !== 'tool-result' || typeof part['toolCallId'] !== 'string')
      throw unreadable(where, 'a tool-result part');
    if (part['providerOptions'] !== undefined)
      warnings.push({ code: 'unsupported_field', message: `Ignored ${where}.providerOptions` });
    const output = readToolOutput(part['output'], `${where}.output`, warnings);
    const name = typeof part['toolName'] === 'string' && part['toolName'].length > 0 ? { name: part['toolName'] } : {};
    messages.push(
      Message.create({
        role: 'tool',
        toolCallId: part['toolCallId'],
        content: output as MessageInput['content'],
        ...name,
      }),
    );
  });
  if (approvals.length > 0)
    messages.push(Message.create({ role: 'user', content: approvals as MessageInput['content'] }));
}

function readMessage(item: unknown, path: string, messages: Message[], warnings: FormatWarning[]): void {
  if (!isRecord(item)) throw unreadable(path, 'a message object');
  if (item['providerOptions'] !== undefined)
    warnings.push({
      code: 'unsupported_field',
      message: `Ignored ${path}.providerOptions: chatstate keeps options on parts`,
    });
  const role = item['role'];
  if (role === 'tool') return readTool(item, path, messages, warnings);
  if (role !== 'system' && role !== 'user' && role !== 'assistant')
    throw unreadable(`${path}.role`, 'system, user, assistant or tool');
  if (role === 'system' && typeof item['content'] !== 'string') throw unreadable(`${path}.content`, 'a string');
  const calls: ToolCallInput[] = [];
  const read = readContent(item['content'], `${path}.content`, role === 'user' ? 'user' : 'assistant', calls);
  // With tool calls, `to` writes text content as a part: one plain text part is read back as text.
  const content = calls.length === 0 || typeof read === 'string' ? read : contentOf(read);
  if (isBlankContent(content) && calls.length === 0) {
    warnings.push({ code: 'empty_message', message: `Skipped ${path}: it has no content` });
    return;
  }
  messages.push(
    Message.create({
      role,
      content: content as MessageInput['content'],
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
    }),
  );
}

function readSystem(system: unknown, messages: Message[], warnings: FormatWarning[]): void {
  if (system === undefined) return;
  if (typeof system === 'string') {
    if (system.trim().length > 0) messages.push(Message.system(system));
    return;
  }
  const list: unknown[] = Array.isArray(system) ? system : [system];
  list.forEach((item, index) => {
    if (!isRecord(item) || item['role'] !== 'system') throw unreadable(`system[${index}]`, 'a system message');
    readMessage(item, `system[${index}]`, messages, warnings);
  });
}

/** Reads AI SDK `system` and `messages` back into messages; throws `INVALID_ARGUMENT` when unreadable. */
export function fromAiSdk(wire: AiSdkWireInput): FromResult {
  const value: unknown = wire;
  if (!isRecord(value) || !Array.isArray(value['messages'])) throw unreadable('messages', 'an array of messages');
  const messages: Message[] = [];
  const warnings: FormatWarning[] = [];
  readSystem(value['system'], messages, warnings);
  value['messages'].forEach((item: unknown, index: number) =>
    readMessage(item, `messages[${index}]`, messages, warnings),
  );
  return { messages, warnings };
}

/**
 * The messages a `generateText` / `streamText` call added (`result.response.messages`: the
 * assistant message and, when tools ran, their results). Accepts the result, its `response`, or
 * the message array. Throws `INVALID_ARGUMENT` when there is none.
 */
export function aiSdkFromResponse(result: unknown): Message[] {
  const response = isRecord(result) && isRecord(result['response']) ? result['response'] : result;
  const list = isRecord(response) ? response['messages'] : response;
  if (!Array.isArray(list)) throw unreadable('response.messages', 'an array of messages');
  return fromAiSdk({ messages: list as AiSdkWireInput['messages'] }).messages;
}
