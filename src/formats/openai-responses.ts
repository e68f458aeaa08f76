/**
 * OpenAI Responses: our messages as `instructions` and `input` items for `POST /v1/responses`.
 *
 * - Leading system (and context) messages are joined into `instructions`; a mid-conversation system
 *   message is a `system` message item in place.
 * - Assistant text is a message item per text part (an item id read by `from` is kept, because a
 *   reasoning item before it refers to it); tool calls are `function_call` items; tool results are
 *   `function_call_output` items.
 * - Raw `openaiResponses` parts are written back verbatim: in an assistant message they are whole
 *   input items (reasoning with `encrypted_content`, server tool calls, unknown item types), in
 *   other messages they are content parts. Raw parts of other providers and reasoning parts
 *   (which need an OpenAI reasoning item) are dropped with a warning.
 * - A history that leaves `input` empty (only system messages, or everything dropped) is sent as
 *   one `FIRST_TURN_PLACEHOLDER` user message, with `empty_conversation`: the API refuses a request
 *   without input (instructions alone are not one).
 * @module
 */
import type { Message } from '../message/message.js';
import type { ContentPart, JsonObject, ToolCall } from '../message/schema.js';
import { imageMediaType, splitDataUrl, toDataUrl } from './media-url.js';
import { fromOpenaiResponses } from './openai-responses-from.js';
import { responsesAccepts, validateOpenaiResponses } from './openai-responses-validate.js';
import type {
  OpenaiResponsesWire,
  ResponsesEasyInputMessage,
  ResponsesFunctionCall,
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesOutputMessage,
} from './openai-responses-wire.js';
import { prepareHistory } from './prepare.js';
import { FIRST_TURN_PLACEHOLDER, emptyConversation } from './turn-rules.js';
import type { FormatWarning, ProviderFormat } from './types.js';
import { isBlankWireContent, isRecord, rawAs } from './wire-json.js';

export { openaiResponsesFromResponse } from './openai-responses-from.js';

/** Which parts a place accepts: everything (user), text only (system), or tool output. */
type Place = 'user' | 'text-only' | 'tool';

function warn(warnings: FormatWarning[], message: Message, code: string, text: string): void {
  warnings.push({ code, message: text, messageId: message.id });
}

function mediaPart(part: ContentPart & { type: 'image' | 'file' }): ResponsesInputContent {
  if (part.type === 'image') {
    const url =
      part.data !== undefined ? toDataUrl(part.data, imageMediaType(part.data, part.mediaType)) : (part.url ?? '');
    return { type: 'input_image', detail: part.detail ?? 'auto', image_url: url };
  }
  const named = part.filename === undefined ? {} : { filename: part.filename };
  if (part.fileId !== undefined) return { type: 'input_file', file_id: part.fileId, ...named };
  if (part.data !== undefined) return { type: 'input_file', file_data: toDataUrl(part.data, part.mediaType), ...named };
  const url = part.url ?? '';
  return splitDataUrl(url) === undefined
    ? { type: 'input_file', file_url: url, ...named }
    : { type: 'input_file', file_data: url, ...named };
}

function writeParts(message: Message, place: Place, warnings: FormatWarning[]): string | ResponsesInputContent[] {
  if (typeof message.content === 'string') return message.content;
  const parts: ResponsesInputContent[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'input_text', text: part.text });
        break;
      case 'image':
      case 'file':
        if (place === 'text-only')
          warn(
            warnings,
            message,
            'unsupported_part',
            `Dropped a ${part.type} part: Responses system messages carry text only`,
          );
        else parts.push(mediaPart(part));
        break;
      case 'reasoning':
        warn(warnings, message, 'unsupported_part', `Dropped a reasoning part in a ${message.role} message`);
        break;
      case 'raw':
        if (part.provider !== 'openaiResponses')
          warn(
            warnings,
            message,
            'foreign_raw_part',
            `Dropped a raw ${part.provider} part: it is only valid for that provider`,
          );
        else if (
          isRecord(part.value) &&
          typeof part.value['type'] === 'string' &&
          responsesAccepts('input', part.value['type'])
        )
          parts.push(rawAs<ResponsesInputContent>(part.value));
        else
          warn(
            warnings,
            message,
            'unsupported_part',
            `Dropped a raw openaiResponses part that a ${message.role} message cannot carry`,
          );
        break;
      default: {
        const unreachable: never = part;
        throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return parts;
}

/** Item fields `from` kept for a text part or tool call (`providerOptions.openaiResponses.item`). */
function itemFields(providerOptions: Readonly<Record<string, JsonObject>> | undefined): JsonObject {
  const item = providerOptions?.['openaiResponses']?.['item'];
  return isRecord(item) ? (item as JsonObject) : {};
}

function writeText(
  part: ContentPart & { type: 'text' },
  open: ResponsesOutputMessage | undefined,
  items: ResponsesInputItem[],
): ResponsesOutputMessage | undefined {
  const fields = itemFields(part.providerOptions);
  const refusal = part.providerOptions?.['openaiResponses']?.['refusal'] === true;
  const id = fields['id'];
  if (typeof id !== 'string') {
    // Blank text alone is no message (`from` skips it too).
    if (part.text.trim().length > 0)
      items.push({
        ...rawAs<Partial<ResponsesEasyInputMessage>>(fields),
        type: 'message',
        role: 'assistant',
        content: part.text,
      });
    return undefined;
  }
  const entry = refusal
    ? { type: 'refusal' as const, refusal: part.text }
    : { type: 'output_text' as const, text: part.text, annotations: [] as [] };
  // Parts read from one output message share its id: written back as that one item.
  if (open?.id === id) {
    open.content.push(entry);
    return open;
  }
  const item: ResponsesOutputMessage = {
    status: 'completed',
    ...rawAs<Partial<ResponsesOutputMessage>>(fields),
    id,
    type: 'message',
    role: 'assistant',
    content: [entry],
  };
  items.push(item);
  return item;
}

function writeToolCall(call: ToolCall): ResponsesFunctionCall {
  return {
    ...rawAs<Partial<ResponsesFunctionCall>>(itemFields(call.providerOptions)),
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
  };
}

function writeAssistant(message: Message, items: ResponsesInputItem[], warnings: FormatWarning[]): void {
  const parts: readonly ContentPart[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  let open: ResponsesOutputMessage | undefined;
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        open = writeText(part, open, items);
        continue;
      case 'image':
      case 'file':
        warn(
          warnings,
          message,
          'unsupported_part',
          `Dropped a ${part.type} part: Responses assistant messages carry text only`,
        );
        break;
      case 'reasoning':
        warn(
          warnings,
          message,
          'unsupported_part',
          'Dropped a reasoning part: Responses needs the reasoning item OpenAI returned (kept as a raw part when read)',
        );
        break;
      case 'raw':
        if (part.provider !== 'openaiResponses')
          warn(
            warnings,
            message,
            'foreign_raw_part',
            `Dropped a raw ${part.provider} part: it is only valid for that provider`,
          );
        else if (
          isRecord(part.value) &&
          typeof part.value['type'] === 'string' &&
          responsesAccepts('item', part.value['type'])
        )
          items.push(rawAs<ResponsesInputItem>(part.value));
        else
          warn(warnings, message, 'unsupported_part', 'Dropped a raw openaiResponses part that is not an input item');
        break;
      default: {
        const unreachable: never = part;
        throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
      }
    }
    open = undefined;
  }
  for (const call of message.toolCalls ?? []) items.push(writeToolCall(call));
}

function writeMessage(message: Message, items: ResponsesInputItem[], warnings: FormatWarning[]): void {
  switch (message.role) {
    case 'system':
    case 'user': {
      const content = writeParts(message, message.role === 'user' ? 'user' : 'text-only', warnings);
      if (isBlankWireContent(content))
        warn(
          warnings,
          message,
          'empty_message',
          `Dropped a ${message.role} message: nothing Responses accepts was left in it`,
        );
      else items.push({ type: 'message', role: message.role, content });
      return;
    }
    case 'assistant': {
      const before = items.length;
      writeAssistant(message, items, warnings);
      if (items.length === before)
        warn(
          warnings,
          message,
          'empty_message',
          'Dropped an assistant message: nothing Responses accepts was left in it',
        );
      return;
    }
    case 'tool': {
      const output = writeParts(message, 'tool', warnings);
      items.push({
        type: 'function_call_output',
        call_id: message.toolCallId ?? '',
        output: Array.isArray(output) && output.length === 0 ? '' : output,
      });
      return;
    }
    default: {
      const unreachable: never = message.role;
      throw new Error(`unknown role ${String(unreachable)}`);
    }
  }
}

/** The text of a leading system message for `instructions` (which carry text only). */
function instructionText(message: Message, warnings: FormatWarning[]): string {
  if (typeof message.content === 'string') return message.content;
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else
      warn(
        warnings,
        message,
        'unsupported_part',
        `Dropped a ${part.type} part from a leading system message: instructions carry text only`,
      );
  }
  return texts.join('\n');
}

function toOpenaiResponses(messages: readonly Message[]): OpenaiResponsesWire & { warnings: FormatWarning[] } {
  const { system, body, warnings } = prepareHistory(messages);
  const instructions = system
    .map((message) => instructionText(message, warnings))
    .filter((text) => text.trim().length > 0)
    .join('\n\n');
  const input: ResponsesInputItem[] = [];
  for (const message of body) writeMessage(message, input, warnings);
  if (input.length === 0) {
    input.push({ type: 'message', role: 'user', content: FIRST_TURN_PLACEHOLDER });
    warnings.push(emptyConversation('OpenAI Responses'));
  }
  return instructions.length > 0 ? { instructions, input, warnings } : { input, warnings };
}

/** The OpenAI Responses format (`instructions` and `input` of `responses.create`). */
export const openaiResponses = Object.freeze({
  provider: 'openaiResponses',
  to: toOpenaiResponses,
  from: fromOpenaiResponses,
  validate: validateOpenaiResponses,
} as const) satisfies ProviderFormat<OpenaiResponsesWire>;
