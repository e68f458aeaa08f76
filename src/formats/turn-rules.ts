/**
 * Turn rules shared by the converters. Writing (Anthropic and Gemini): the first turn comes from
 * the user, there is no system role mid-conversation, tool arguments are a JSON object, and what
 * cannot be carried is dropped with a warning. Reading back (every format): a message's content
 * and when it is empty, and messages that fail validation.
 * @module
 */
import { ChatstateError } from '../errors.js';
import { Message, type MessageInput } from '../message/message.js';
import type { Content, ContentPart, JsonObject, ToolCall } from '../message/schema.js';
import type { FormatWarning } from './types.js';
import { hasText, isRecord, parseJson } from './wire-json.js';

/**
 * Text of the user turn inserted when a history starts with an assistant turn: Anthropic and
 * Gemini both reject a conversation whose first turn is not the user's.
 */
export const FIRST_TURN_PLACEHOLDER = '(earlier conversation omitted)';

/**
 * The warning of a history that leaves nothing to send (no messages, only system messages, or
 * every message dropped): every provider refuses an empty conversation, so `to` sends one
 * `FIRST_TURN_PLACEHOLDER` user turn instead and says so.
 */
export function emptyConversation(provider: string): FormatWarning {
  return {
    code: 'empty_conversation',
    message: `Nothing in the history can be sent to ${provider} as a conversation, which it rejects when empty; a placeholder user turn was sent instead`,
  };
}

/** Collects the warnings of one message's conversion. */
export interface PartContext {
  readonly warnings: FormatWarning[];
  readonly messageId: string;
}

/** Records why content of the message in `context` was dropped; returns undefined, for `return drop(…)`. */
export function drop(context: PartContext, code: string, message: string): undefined {
  context.warnings.push({ code, message, messageId: context.messageId });
  return undefined;
}

/**
 * A mid-conversation system or context message as user text: `<system>\n…\n</system>` for category
 * `system`, `<context>\n…\n</context>` for category `context` (empty when it has no text). Neither
 * provider has a system role inside the conversation, and the tags keep the instruction apart from
 * what the user typed. Reading back never turns tagged user text into a system message: that would
 * let a user forge instructions by typing the tags.
 */
export function instructionText(message: Message): string {
  const text = Message.text(message);
  if (!hasText(text)) return '';
  const tag = message.category === 'context' ? 'context' : 'system';
  return `<${tag}>\n${text}\n</${tag}>`;
}

/**
 * A tool call's arguments as the JSON object Anthropic and Gemini require. Blank text is `{}`.
 * Text that is not a JSON object is sent as `{ _raw: text }` (with an `invalid_tool_arguments`
 * warning) rather than `{}`, so the model still sees what it produced and can correct itself.
 */
export function parseToolArguments(call: ToolCall, context: PartContext): JsonObject {
  if (!hasText(call.arguments)) return {};
  const parsed = parseJson(call.arguments);
  if (parsed.ok && isRecord(parsed.value)) return parsed.value as JsonObject;
  const problem = parsed.ok ? 'is not a JSON object' : 'is not valid JSON';
  context.warnings.push({
    code: 'invalid_tool_arguments',
    message: `Arguments of tool call ${call.id} ${problem}; sent as { _raw: text }`,
    messageId: context.messageId,
  });
  return { _raw: call.arguments };
}

/** True for content with nothing but whitespace text: a message read back from it is skipped. */
export function isBlankContent(content: Content): boolean {
  if (typeof content === 'string') return !hasText(content);
  return content.every((part) => part.type === 'text' && !hasText(part.text));
}

/** Content for a message read back: `''` for no parts, a plain string when one plain text part is all there is. */
export function contentOf<Parts extends readonly ContentPart[]>(parts: Parts): string | Parts {
  if (parts.length === 0) return '';
  const [only] = parts;
  return parts.length === 1 && only?.type === 'text' && only.providerOptions === undefined ? only.text : parts;
}

/** Creates a message, turning a validation failure into a warning: `from` reads data it did not write. */
export function tryCreate(input: MessageInput, warnings: FormatWarning[], where: string): Message | undefined {
  try {
    return Message.create(input);
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    warnings.push({ code: 'invalid_message', message: `Skipped ${where}: ${error.message}` });
    return undefined;
  }
}
