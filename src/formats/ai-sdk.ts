/**
 * Vercel AI SDK (`ai` 6.x): our messages as the `system` and `messages` of `generateText` /
 * `streamText`.
 *
 * - Leading system (and context) messages are joined into `system`; a mid-conversation system
 *   message stays a `system` message in place.
 * - Tool call arguments (JSON text here) become the parsed `input`; arguments that are not valid
 *   JSON are passed as the string, with a warning. Consecutive tool results form one `tool`
 *   message; a result is `json` output when its text is a canonical JSON object or array, `text`
 *   otherwise, and `content` output when it has parts.
 * - Reasoning signatures go where the AI SDK's Anthropic and Google packages read them; image
 *   detail goes to `providerOptions.openai.imageDetail`.
 * - Raw `aiSdk` parts are written back verbatim in place; raw parts of other providers are dropped
 *   with a warning.
 * - A history that leaves `messages` empty (only system messages, or everything dropped) is sent
 *   as one `FIRST_TURN_PLACEHOLDER` user message, with `empty_conversation`: `generateText` throws
 *   on empty `messages`.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ContentPart, ToolCall } from '../message/schema.js';
import { aiSdkFromResponse, fromAiSdk } from './ai-sdk-from.js';
import { reasoningOptions, toAiSdkOptions, withOptions } from './ai-sdk-options.js';
import { toolResultOutput } from './ai-sdk-output.js';
import { aiSdkAcceptsPart, validateAiSdk } from './ai-sdk-validate.js';
import type {
  AiSdkAssistantMessage,
  AiSdkModelMessage,
  AiSdkToolCallPart,
  AiSdkToolMessage,
  AiSdkUserMessage,
  AiSdkWire,
} from './ai-sdk-wire.js';
import { prepareHistory } from './prepare.js';
import { FIRST_TURN_PLACEHOLDER, emptyConversation } from './turn-rules.js';
import type { FormatWarning, ProviderFormat } from './types.js';
import { isBlankWireContent, isRecord, parseJson, rawAs, toWireJson } from './wire-json.js';

export { aiSdkFromResponse };

type UserPart = Extract<AiSdkUserMessage['content'], unknown[]>[number];
type AssistantPart = Extract<AiSdkAssistantMessage['content'], unknown[]>[number];
type ToolPart = AiSdkToolMessage['content'][number];

function warn(warnings: FormatWarning[], message: Message, code: string, text: string): undefined {
  warnings.push({ code, message: text, messageId: message.id });
  return undefined;
}

/** Which message a part goes to. */
type Place = 'user' | 'assistant' | 'tool';

/** The part for `part` in a `place` message, or undefined (warned). */
function writePart(
  part: ContentPart,
  place: Place,
  message: Message,
  warnings: FormatWarning[],
): UserPart | AssistantPart | ToolPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, ...withOptions(toAiSdkOptions(part.providerOptions)) };
    case 'image': {
      const options = toAiSdkOptions(part.providerOptions) ?? {};
      if (part.detail !== undefined) options['openai'] = { ...options['openai'], imageDetail: part.detail };
      const image = part.data ?? part.url ?? '';
      const typed = part.mediaType === undefined ? {} : { mediaType: part.mediaType };
      // Assistant content has no image part: an image there is a file of an image type.
      if (place === 'assistant')
        return { type: 'file', data: image, mediaType: part.mediaType ?? 'image/*', ...withOptions(options) };
      return { type: 'image', image, ...typed, ...withOptions(options) };
    }
    case 'file':
      if (part.fileId !== undefined)
        return warn(
          warnings,
          message,
          'unsupported_part',
          'Dropped a file given by provider file id: AI SDK prompts take file data or URLs',
        );
      return {
        type: 'file',
        data: part.data ?? part.url ?? '',
        mediaType: part.mediaType,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
        ...withOptions(toAiSdkOptions(part.providerOptions)),
      };
    case 'reasoning': {
      if (place !== 'assistant')
        return warn(
          warnings,
          message,
          'unsupported_part',
          `Dropped a reasoning part: ${message.role} messages cannot carry reasoning`,
        );
      const { options, kept } = reasoningOptions(part);
      if (!kept)
        warn(
          warnings,
          message,
          'unsupported_field',
          `Dropped the signature of ${part.provider ?? 'unattributed'} reasoning: the AI SDK has no place for it`,
        );
      return { type: 'reasoning', text: part.text, ...withOptions(options) };
    }
    case 'raw':
      if (part.provider !== 'aiSdk')
        return warn(
          warnings,
          message,
          'foreign_raw_part',
          `Dropped a raw ${part.provider} part: it is only valid for that provider`,
        );
      if (isRecord(part.value) && typeof part.value['type'] === 'string' && aiSdkAcceptsPart(place, part.value['type']))
        return rawAs<AssistantPart>(part.value);
      return warn(
        warnings,
        message,
        'unsupported_part',
        `Dropped a raw aiSdk part that a ${place} message cannot carry`,
      );
    default: {
      const unreachable: never = part;
      throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
    }
  }
}

function writeToolCall(call: ToolCall, message: Message, warnings: FormatWarning[]): AiSdkToolCallPart {
  const parsed = parseJson(call.arguments);
  if (!parsed.ok)
    warn(
      warnings,
      message,
      'invalid_tool_arguments',
      `Tool call ${call.id} has arguments that are not JSON; passed as a string input`,
    );
  const input = parsed.ok ? toWireJson(parsed.value) : call.arguments;
  return {
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.name,
    input,
    ...withOptions(toAiSdkOptions(call.providerOptions)),
  };
}

function writeParts<Part>(message: Message, place: Place, warnings: FormatWarning[]): Part[] {
  const parts: Part[] = [];
  for (const part of typeof message.content === 'string' ? [] : message.content) {
    const written = writePart(part, place, message, warnings);
    // `place` decided which part types were written, so they fit the role's part type.
    if (written !== undefined) parts.push(written as Part);
  }
  return parts;
}

/** Text of a system message (system content is a string in the AI SDK). */
function systemText(message: Message, warnings: FormatWarning[]): string {
  if (typeof message.content === 'string') return message.content;
  for (const part of message.content) {
    if (part.type !== 'text')
      warn(
        warnings,
        message,
        'unsupported_part',
        `Dropped a ${part.type} part from a system message: AI SDK system content is text`,
      );
  }
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/** A user message made only of raw AI SDK tool-approval responses (as `from` reads them) goes in a tool message. */
function isApprovalMessage(message: Message): boolean {
  return (
    message.role === 'user' &&
    typeof message.content !== 'string' &&
    message.content.every(
      (part) =>
        part.type === 'raw' &&
        part.provider === 'aiSdk' &&
        isRecord(part.value) &&
        part.value['type'] === 'tool-approval-response',
    )
  );
}

function write(
  message: Message,
  out: AiSdkModelMessage[],
  callNames: Map<string, string>,
  warnings: FormatWarning[],
): void {
  const last = out[out.length - 1];
  const toolMessage = (): AiSdkToolMessage => {
    if (last?.role === 'tool') return last;
    const created: AiSdkToolMessage = { role: 'tool', content: [] };
    out.push(created);
    return created;
  };
  if (isApprovalMessage(message)) {
    toolMessage().content.push(...writeParts<ToolPart>(message, 'tool', warnings));
    return;
  }
  switch (message.role) {
    case 'system': {
      const text = systemText(message, warnings);
      if (text.trim().length > 0) out.push({ role: 'system', content: text });
      else warn(warnings, message, 'empty_message', 'Dropped a system message: it has no text');
      return;
    }
    case 'user': {
      const content =
        typeof message.content === 'string' ? message.content : writeParts<UserPart>(message, 'user', warnings);
      if (!isBlankWireContent(content)) out.push({ role: 'user', content });
      else
        warn(warnings, message, 'empty_message', 'Dropped a user message: nothing the AI SDK accepts was left in it');
      return;
    }
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((call) => writeToolCall(call, message, warnings));
      for (const call of calls) callNames.set(call.toolCallId, call.toolName);
      if (typeof message.content === 'string' && calls.length === 0) {
        out.push({ role: 'assistant', content: message.content });
        return;
      }
      const text: AssistantPart[] =
        typeof message.content === 'string' && message.content.length > 0
          ? [{ type: 'text', text: message.content }]
          : [];
      const parts = writeParts<AssistantPart>(message, 'assistant', warnings);
      // An approval request follows the call it is about, as the AI SDK writes it.
      const approvals = parts.filter((part) => part.type === 'tool-approval-request');
      const content = [
        ...text,
        ...parts.filter((part) => part.type !== 'tool-approval-request'),
        ...calls,
        ...approvals,
      ];
      if (calls.length > 0 || !isBlankWireContent(content)) out.push({ role: 'assistant', content });
      else
        warn(
          warnings,
          message,
          'empty_message',
          'Dropped an assistant message: nothing the AI SDK accepts was left in it',
        );
      return;
    }
    case 'tool': {
      const id = message.toolCallId ?? '';
      const output = toolResultOutput(message, warnings);
      toolMessage().content.push({
        type: 'tool-result',
        toolCallId: id,
        toolName: message.name ?? callNames.get(id) ?? '',
        output,
      });
      return;
    }
    default: {
      const unreachable: never = message.role;
      throw new Error(`unknown role ${String(unreachable)}`);
    }
  }
}

function toAiSdk(messages: readonly Message[]): AiSdkWire & { warnings: FormatWarning[] } {
  const { system, body, warnings } = prepareHistory(messages);
  const text = system
    .map((message) => systemText(message, warnings))
    .filter((part) => part.trim().length > 0)
    .join('\n\n');
  const out: AiSdkModelMessage[] = [];
  const callNames = new Map<string, string>();
  for (const message of body) write(message, out, callNames, warnings);
  if (out.length === 0) {
    out.push({ role: 'user', content: FIRST_TURN_PLACEHOLDER });
    warnings.push(emptyConversation('the AI SDK'));
  }
  return text.length > 0 ? { system: text, messages: out, warnings } : { messages: out, warnings };
}

/** The Vercel AI SDK format (`system` and `messages` of `generateText` / `streamText`, `ai` 6.x). */
export const aiSdk = Object.freeze({
  provider: 'aiSdk',
  to: toAiSdk,
  from: fromAiSdk,
  validate: validateAiSdk,
} as const) satisfies ProviderFormat<AiSdkWire>;
