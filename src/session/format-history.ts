/**
 * A readable transcript of a history (Magent's session summary): one `[ROLE] text` line each.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ContentPart } from '../message/schema.js';

/** Options of `formatHistory`. */
export interface FormatHistoryOptions {
  /** Longest text shown per line before it is cut with "…". @default 500 */
  maxChars?: number;
  /** Show system-category messages. @default true */
  includeSystem?: boolean;
}

function describePart(part: ContentPart): string {
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
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/** One line per message (and one per tool call), oldest first. */
export function formatHistory(messages: readonly Message[], options: FormatHistoryOptions = {}): string {
  const maxChars = options.maxChars ?? 500;
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
