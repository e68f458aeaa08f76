/**
 * OpenAI Chat Completions: our messages as `messages` for `POST /v1/chat/completions`.
 *
 * - Leading system messages (and context messages) stay first, as `system` messages; a
 *   mid-conversation system message is a `system` message in place.
 * - Reasoning parts are not accepted by the API and are dropped with a warning, as is media where
 *   a role cannot carry it (images only in user messages).
 * - Raw parts of `openaiChat` are written back verbatim in place: a value with a `type` is a content
 *   part, a value without one is a set of message fields (`refusal`, `audio`, or a whole
 *   deprecated `function` message) merged over the message. Raw parts of other providers are
 *   dropped with a warning.
 * - A tool call whose `providerOptions.openaiChat.type` is `custom` is a custom tool call.
 * - An empty history (or one whose every message was dropped) is sent as one
 *   `FIRST_TURN_PLACEHOLDER` user message, with `empty_conversation`: the API rejects `messages: []`.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ContentPart, ToolCall } from '../message/schema.js';
import { fromOpenaiChat } from './openai-chat-from.js';
import { chatAcceptsPart, validateOpenaiChat } from './openai-chat-validate.js';
import type {
  ChatAssistantContentPart,
  ChatAssistantMessage,
  ChatMessageParam,
  ChatTextPart,
  ChatToolCall,
  ChatUserContentPart,
  OpenaiChatWire,
} from './openai-chat-wire.js';
import { imageMediaType, splitDataUrl, toDataUrl } from './media-url.js';
import { prepareHistory } from './prepare.js';
import { FIRST_TURN_PLACEHOLDER, emptyConversation } from './turn-rules.js';
import type { FormatWarning, ProviderFormat } from './types.js';
import { isBlankWireContent, isRecord, rawAs, type WireJsonObject } from './wire-json.js';

export { openaiChatFromResponse } from './openai-chat-from.js';

/** Which parts a role's content accepts. */
type Place = 'user' | 'assistant' | 'text-only';

// The wire role whose part rules apply to a place.
const ROLE_OF: Record<Place, string> = { user: 'user', assistant: 'assistant', 'text-only': 'system' };

/** One message's parts written for Chat Completions, plus raw message fields to merge over it. */
interface WrittenContent<Part> {
  parts: Part[];
  fields: WireJsonObject;
}

function drop(warnings: FormatWarning[], message: Message, code: string, text: string): void {
  warnings.push({ code, message: text, messageId: message.id });
}

function writePart(
  part: ContentPart,
  place: Place,
  message: Message,
  out: WrittenContent<ChatUserContentPart | ChatAssistantContentPart>,
  warnings: FormatWarning[],
): void {
  switch (part.type) {
    case 'text':
      out.parts.push({ type: 'text', text: part.text });
      return;
    case 'image': {
      if (place !== 'user')
        return drop(
          warnings,
          message,
          'unsupported_part',
          `Dropped an image: Chat Completions accepts images only in user messages (${message.role})`,
        );
      const url =
        part.data !== undefined ? toDataUrl(part.data, imageMediaType(part.data, part.mediaType)) : (part.url ?? '');
      out.parts.push({
        type: 'image_url',
        image_url: part.detail === undefined ? { url } : { url, detail: part.detail },
      });
      return;
    }
    case 'file': {
      if (place !== 'user')
        return drop(
          warnings,
          message,
          'unsupported_part',
          `Dropped a file: Chat Completions accepts files only in user messages (${message.role})`,
        );
      const named = part.filename === undefined ? {} : { filename: part.filename };
      if (part.fileId !== undefined) out.parts.push({ type: 'file', file: { file_id: part.fileId, ...named } });
      else if (part.data !== undefined)
        out.parts.push({ type: 'file', file: { file_data: toDataUrl(part.data, part.mediaType), ...named } });
      else if (part.url !== undefined && splitDataUrl(part.url) !== undefined)
        out.parts.push({ type: 'file', file: { file_data: part.url, ...named } });
      else
        drop(
          warnings,
          message,
          'unsupported_part',
          'Dropped a file given by URL: Chat Completions takes files only inline or by file id',
        );
      return;
    }
    case 'reasoning':
      return drop(
        warnings,
        message,
        'unsupported_part',
        'Dropped a reasoning part: Chat Completions does not accept reasoning in its input',
      );
    case 'raw':
      if (part.provider !== 'openaiChat') {
        return drop(
          warnings,
          message,
          'foreign_raw_part',
          `Dropped a raw ${part.provider} part: it is only valid for that provider`,
        );
      }
      if (!isRecord(part.value))
        return drop(
          warnings,
          message,
          'unsupported_part',
          'Dropped a raw openaiChat part that is neither a content part nor message fields',
        );
      if (typeof part.value['type'] !== 'string') Object.assign(out.fields, rawAs<WireJsonObject>(part.value));
      else if (chatAcceptsPart(ROLE_OF[place], part.value['type']))
        out.parts.push(rawAs<ChatUserContentPart>(part.value));
      else
        drop(
          warnings,
          message,
          'unsupported_part',
          `Dropped a raw ${part.value['type']} part: Chat Completions does not accept it in ${message.role} messages`,
        );
      return;
    default: {
      const unreachable: never = part;
      throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
    }
  }
}

function writeContent<Part>(message: Message, place: Place, warnings: FormatWarning[]): WrittenContent<Part> {
  const out: WrittenContent<ChatUserContentPart | ChatAssistantContentPart> = { parts: [], fields: {} };
  if (typeof message.content === 'string') {
    if (message.content.length > 0) out.parts.push({ type: 'text', text: message.content });
  } else {
    for (const part of message.content) writePart(part, place, message, out, warnings);
  }
  // `place` decided which part types were written, so the parts fit the role's part type.
  return out as WrittenContent<Part>;
}

/** Plain text stays a string, as it was; parts stay parts. */
function contentValue<Part>(message: Message, parts: Part[]): string | Part[] {
  return typeof message.content === 'string' ? message.content : parts;
}

function writeToolCall(call: ToolCall): ChatToolCall {
  if (call.providerOptions?.['openaiChat']?.['type'] === 'custom') {
    return { id: call.id, type: 'custom', custom: { name: call.name, input: call.arguments } };
  }
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

function named(message: Message): { name?: string } {
  return message.name === undefined ? {} : { name: message.name };
}

/** A message as written, the raw fields to merge over it, and whether nothing accepted is left. */
interface Built {
  written: ChatMessageParam;
  fields: WireJsonObject;
  empty: boolean;
}

function build(message: Message, warnings: FormatWarning[]): Built {
  switch (message.role) {
    case 'system': {
      const out = writeContent<ChatTextPart>(message, 'text-only', warnings);
      const content = contentValue(message, out.parts);
      return {
        written: { role: 'system', content, ...named(message) },
        fields: out.fields,
        empty: isBlankWireContent(content),
      };
    }
    case 'user': {
      const out = writeContent<ChatUserContentPart>(message, 'user', warnings);
      const content = contentValue(message, out.parts);
      return {
        written: { role: 'user', content, ...named(message) },
        fields: out.fields,
        empty: isBlankWireContent(content),
      };
    }
    case 'assistant': {
      const out = writeContent<ChatAssistantContentPart>(message, 'assistant', warnings);
      const content = out.parts.length === 0 ? null : contentValue(message, out.parts);
      const written: ChatAssistantMessage = { role: 'assistant', content, ...named(message) };
      if (message.toolCalls !== undefined) written.tool_calls = message.toolCalls.map(writeToolCall);
      return { written, fields: out.fields, empty: isBlankWireContent(content) && written.tool_calls === undefined };
    }
    case 'tool': {
      const out = writeContent<ChatTextPart>(message, 'text-only', warnings);
      // Written even when every part was dropped: its call needs an answer.
      const content = typeof message.content === 'string' ? message.content : out.parts.length > 0 ? out.parts : '';
      return {
        written: { role: 'tool', tool_call_id: message.toolCallId ?? '', content },
        fields: out.fields,
        empty: false,
      };
    }
    default: {
      const unreachable: never = message.role;
      throw new Error(`unknown role ${String(unreachable)}`);
    }
  }
}

/** The message written, or undefined (with a warning) when nothing the API accepts is left in it. */
function writeMessage(message: Message, warnings: FormatWarning[]): ChatMessageParam | undefined {
  const { written, fields, empty } = build(message, warnings);
  if (empty && Object.keys(fields).length === 0) {
    drop(
      warnings,
      message,
      'empty_message',
      `Dropped a ${message.role} message: nothing Chat Completions accepts was left in it`,
    );
    return undefined;
  }
  // Raw fields were read from this provider's own messages: merged verbatim, they win.
  return Object.keys(fields).length === 0 ? written : ({ ...written, ...fields } as ChatMessageParam);
}

function toOpenaiChat(messages: readonly Message[]): OpenaiChatWire & { warnings: FormatWarning[] } {
  const { system, body, warnings } = prepareHistory(messages);
  const out: ChatMessageParam[] = [];
  for (const message of [...system, ...body]) {
    const written = writeMessage(message, warnings);
    if (written !== undefined) out.push(written);
  }
  if (out.length === 0) {
    out.push({ role: 'user', content: FIRST_TURN_PLACEHOLDER });
    warnings.push(emptyConversation('OpenAI Chat Completions'));
  }
  return { messages: out, warnings };
}

/** The OpenAI Chat Completions format (`messages` of `chat.completions.create`). */
export const openaiChat = Object.freeze({
  provider: 'openaiChat',
  to: toOpenaiChat,
  from: fromOpenaiChat,
  validate: validateOpenaiChat,
} as const) satisfies ProviderFormat<OpenaiChatWire>;
