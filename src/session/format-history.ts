/**
 * A readable transcript of a history (Magent's session summary): one `[ROLE] text` line each.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { ContentPart } from '../message/schema.js';

/** Options of `formatHistory`. */
export interface FormatHistoryOptions {
  /** Longest text shown per line before it is cut with "…". @default 500 */
  maxChars?: number;
  /** Show system-category messages. @default true */
  includeSystem?: boolean;
}

/** A content part as one line of a transcript: its text, or a short placeholder for what is not text. */
export function describePart(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'reasoning':
      return `(reasoning) ${part.text}`;
    case 'image':
      return '[image]';
    case 'file':
      return `[file${part.filename === undefined ? '' : ` ${part.filename}`}]`;
    case 'raw':
      return `[${part.provider} part]`;
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

function clip(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxChars) return flat;
  let end = maxChars - 1;
  // Never cut between the two halves of a surrogate pair (an emoji would become a lone surrogate).
  const code = flat.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${flat.slice(0, end)}…`;
}

/** One line per message (and one per tool call), oldest first. */
export function formatHistory(messages: readonly Message[], options: FormatHistoryOptions = {}): string {
  const maxChars = options.maxChars ?? 500;
  // A zero or negative limit used to slice from the end and print almost the whole text.
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `formatHistory: maxChars must be a positive integer, got ${String(maxChars)}`,
    );
  }
  const includeSystem = options.includeSystem ?? true;
  const toolNames = new Map<string, string>();
  const lines: string[] = [];
  for (const message of messages) {
    if (!includeSystem && message.category === 'system') continue;
    const text = typeof message.content === 'string' ? message.content : message.content.map(describePart).join(' ');
    if (message.role === 'tool') {
      const name = message.name ?? toolNames.get(message.toolCallId ?? '') ?? 'unknown';
      lines.push(`[TOOL] tool_result (${name}): ${clip(text, maxChars)}`);
      continue;
    }
    const label = message.category === 'context' ? 'CONTEXT' : message.role.toUpperCase();
    if (text.trim().length > 0) lines.push(`[${label}] ${clip(text, maxChars)}`);
    for (const call of message.toolCalls ?? []) {
      toolNames.set(call.id, call.name);
      lines.push(`[TOOL] tool_use: ${call.name} ${clip(call.arguments, maxChars)}`);
    }
  }
  return lines.join('\n');
}
