/**
 * Responses `instructions` and `input` items read back into chatstate messages. Consecutive
 * assistant-side items (reasoning, assistant text, function calls, and item types chatstate does
 * not model) form one assistant message; unmodelled items are raw `openaiResponses` parts that
 * `openaiResponses.to` writes back unchanged, at their position.
 * @module
 */
import { Message, type MessageInput } from '../message/message.js';
import type { Content, ContentPart, JsonObject, JsonValue, ToolCallInput } from '../message/schema.js';
import { UNKNOWN_MEDIA_TYPE, imageFromUrl, isImageDetail, splitDataUrl } from './media-url.js';
import type { OpenaiResponsesWireInput } from './openai-responses-wire.js';
import { contentOf, isBlankContent } from './turn-rules.js';
import type { FormatWarning, FromResult } from './types.js';
import { extraFields, hasOnlyFields, isRecord, toJsonObject, toJsonValue, unreadable } from './wire-json.js';

function raw(value: unknown, path: string): ContentPart {
  return { type: 'raw', provider: 'openaiResponses', value: toJsonValue(value, path) };
}

function readImage(part: Record<string, unknown>): ContentPart | undefined {
  const { image_url: url, detail } = part;
  if (!hasOnlyFields(part, ['type', 'image_url', 'detail']) || typeof url !== 'string' || url.length === 0)
    return undefined;
  // `original` detail and file-id images have no chatstate equivalent: left raw.
  if (detail !== undefined && !isImageDetail(detail)) return undefined;
  return imageFromUrl(url, detail);
}

function readFile(part: Record<string, unknown>): ContentPart | undefined {
  const { file_data: data, file_id: fileId, file_url: url, filename } = part;
  if (!hasOnlyFields(part, ['type', 'file_data', 'file_id', 'file_url', 'filename'])) return undefined;
  if (filename !== undefined && (typeof filename !== 'string' || filename.length === 0)) return undefined;
  const named = filename === undefined ? {} : { filename };
  const sources = [data, fileId, url].filter((source) => source !== undefined && source !== null);
  if (sources.length !== 1) return undefined;
  if (typeof fileId === 'string' && fileId.length > 0)
    return { type: 'file', fileId, mediaType: UNKNOWN_MEDIA_TYPE, ...named };
  if (typeof url === 'string' && url.length > 0 && splitDataUrl(url) === undefined)
    return { type: 'file', url, mediaType: UNKNOWN_MEDIA_TYPE, ...named };
  const inline = typeof data === 'string' ? splitDataUrl(data) : undefined;
  return inline === undefined ? undefined : { type: 'file', data: inline.data, mediaType: inline.mediaType, ...named };
}

function readInputPart(part: unknown, path: string, textOnly: boolean): ContentPart {
  if (!isRecord(part) || typeof part['type'] !== 'string') throw unreadable(path, 'a content part with a type');
  let read: ContentPart | undefined;
  if (part['type'] === 'input_text' && typeof part['text'] === 'string' && hasOnlyFields(part, ['type', 'text']))
    read = { type: 'text', text: part['text'] };
  else if (part['type'] === 'input_image' && !textOnly) read = readImage(part);
  else if (part['type'] === 'input_file' && !textOnly) read = readFile(part);
  return read ?? raw(part, path);
}

function readInputContent(content: unknown, path: string, textOnly: boolean): Content {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw unreadable(path, 'a string or an array of content parts');
  return content.map((part, index) => readInputPart(part, `${path}[${index}]`, textOnly));
}

/** `providerOptions` keeping an item's own fields (id, status, phase, …) for `to`. */
function itemOptions(
  fields: Record<string, unknown>,
  path: string,
  refusal = false,
): { providerOptions?: Record<string, JsonObject> } {
  const openaiResponses: Record<string, JsonValue> = {};
  if (Object.keys(fields).length > 0) openaiResponses['item'] = toJsonObject(fields, path);
  if (refusal) openaiResponses['refusal'] = true;
  return Object.keys(openaiResponses).length === 0 ? {} : { providerOptions: { openaiResponses } };
}

/** Text parts of an assistant message item, or undefined when a part cannot be modelled. */
function readAssistantText(item: Record<string, unknown>, path: string): ContentPart[] | undefined {
  const fields = extraFields(item, ['type', 'role', 'content']);
  const content = item['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content, ...itemOptions(fields, path) }];
  if (!Array.isArray(content)) return undefined;
  const parts: ContentPart[] = [];
  for (const entry of content as unknown[]) {
    if (!isRecord(entry)) return undefined;
    // Annotations and logprobs describe the output; the API does not read them back.
    if ((entry['type'] === 'output_text' || entry['type'] === 'input_text') && typeof entry['text'] === 'string') {
      parts.push({ type: 'text', text: entry['text'], ...itemOptions(fields, path) });
    } else if (entry['type'] === 'refusal' && typeof entry['refusal'] === 'string') {
      parts.push({ type: 'text', text: entry['refusal'], ...itemOptions(fields, path, true) });
    } else {
      return undefined;
    }
  }
  return parts;
}

function readCall(item: Record<string, unknown>, path: string): ToolCallInput {
  const { call_id: id, name, arguments: args } = item;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof args !== 'string')
    throw unreadable(path, 'a function_call with call_id, name and arguments');
  return {
    id,
    name,
    arguments: args,
    ...itemOptions(extraFields(item, ['type', 'call_id', 'name', 'arguments']), path),
  };
}

/** An assistant message being assembled from consecutive assistant-side items. */
interface AssistantRun {
  parts: ContentPart[];
  calls: ToolCallInput[];
}

/**
 * Adds one assistant-side item to `run`. Returns false when the item must start a new message:
 * content after a call would otherwise be written back before it.
 */
function addAssistantItem(run: AssistantRun, item: Record<string, unknown>, path: string): boolean {
  if (item['type'] === 'function_call') {
    run.calls.push(readCall(item, path));
    return true;
  }
  if (run.calls.length > 0) return false;
  const text = item['role'] === 'assistant' ? readAssistantText(item, path) : undefined;
  run.parts.push(...(text ?? [raw(item, path)]));
  return true;
}

/** The assistant message of `run`, or undefined when it holds nothing. */
function finishRun(run: AssistantRun): Message | undefined {
  const { parts, calls } = run;
  if (parts.length === 0 && calls.length === 0) return undefined;
  const content = contentOf(parts);
  if (isBlankContent(content) && calls.length === 0) return undefined;
  return Message.create({
    role: 'assistant',
    content: content as MessageInput['content'],
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
  });
}

function readItems(input: readonly unknown[], messages: Message[], warnings: FormatWarning[]): void {
  const callNames = new Map<string, string>();
  let run: AssistantRun = { parts: [], calls: [] };
  const flush = (): void => {
    const message = finishRun(run);
    if (message !== undefined) messages.push(message);
    else if (run.parts.length > 0)
      warnings.push({ code: 'empty_message', message: 'Skipped an assistant message with no content' });
    run = { parts: [], calls: [] };
  };
  input.forEach((item, index) => {
    const path = `input[${index}]`;
    if (!isRecord(item)) throw unreadable(path, 'an input item object');
    const { type, role } = item;
    if ((type === undefined || type === 'message') && (role === 'user' || role === 'system' || role === 'developer')) {
      flush();
      // `developer` is the newer spelling of `system`; both are read as system messages.
      const content = readInputContent(item['content'], `${path}.content`, role !== 'user');
      if (isBlankContent(content))
        warnings.push({ code: 'empty_message', message: `Skipped ${path}: it has no content` });
      else
        messages.push(
          Message.create({ role: role === 'user' ? 'user' : 'system', content: content as MessageInput['content'] }),
        );
    } else if (type === 'function_call_output') {
      flush();
      const id = item['call_id'];
      if (typeof id !== 'string') throw unreadable(`${path}.call_id`, 'a string');
      const content = readInputContent(item['output'], `${path}.output`, false);
      const name = callNames.get(id);
      messages.push(
        Message.create({
          role: 'tool',
          toolCallId: id,
          content: content as MessageInput['content'],
          ...(name === undefined ? {} : { name }),
        }),
      );
    } else if (typeof type === 'string' || role === 'assistant') {
      if (!addAssistantItem(run, item, path)) {
        flush();
        addAssistantItem(run, item, path);
      }
      for (const call of run.calls) callNames.set(call.id, call.name);
    } else {
      throw unreadable(path, 'an input item with a type or a role');
    }
  });
  flush();
}

/** Reads Responses `instructions` and `input` back into messages; throws `INVALID_ARGUMENT` when unreadable. */
export function fromOpenaiResponses(wire: OpenaiResponsesWireInput): FromResult {
  const value: unknown = wire;
  if (!isRecord(value)) throw unreadable('', 'an object with input');
  const messages: Message[] = [];
  const warnings: FormatWarning[] = [];
  const { instructions, input } = value;
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string')
    throw unreadable('instructions', 'a string');
  if (typeof instructions === 'string' && instructions.trim().length > 0) messages.push(Message.system(instructions));
  if (typeof input === 'string') {
    if (input.trim().length > 0) messages.push(Message.user(input));
  } else if (Array.isArray(input)) {
    readItems(input, messages, warnings);
  } else {
    throw unreadable('input', 'a string or an array of input items');
  }
  return { messages, warnings };
}

/**
 * The assistant message of a Responses response: its `output` items (or that array itself) as one
 * message — text, reasoning and other items as parts in order, function calls as tool calls.
 * Throws `INVALID_ARGUMENT` when there is nothing readable.
 */
export function openaiResponsesFromResponse(response: unknown): Message {
  const output = isRecord(response) ? response['output'] : response;
  if (!Array.isArray(output)) throw unreadable('output', 'an array of output items');
  const run: AssistantRun = { parts: [], calls: [] };
  output.forEach((item: unknown, index) => {
    const path = `output[${index}]`;
    if (!isRecord(item)) throw unreadable(path, 'an output item object');
    // One message for the whole response: later content is kept even when it follows a call.
    if (item['type'] === 'function_call') run.calls.push(readCall(item, path));
    else
      run.parts.push(
        ...((item['role'] === 'assistant' ? readAssistantText(item, path) : undefined) ?? [raw(item, path)]),
      );
  });
  const message = finishRun(run);
  if (message === undefined) throw unreadable('output', 'at least one message or function call');
  return message;
}
