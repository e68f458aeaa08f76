/**
 * Transcript entries in and out of chatstate messages. An entry is kept as its JSON round trip
 * (what its line in the local JSONL file holds) verbatim in `metadata.claudeAgentSdk`, so `load`
 * gives it back deep-equal; the message around it is what the entry reads as: a user prompt, an
 * assistant turn with its tool calls, a tool result, or for every other type (system notices,
 * summaries, titles, attachments, progress…) a `context` message named after the type.
 *
 * A message's id is the entry's idempotency key: `u:<uuid>` (or `h:<hash>` for a uuid that is not
 * a message id), so a retried append adds nothing; an entry without a uuid gets a fresh id `n:…`
 * and is stored once per append that carries it, as the SDK's contract asks.
 * @module
 */
import { createHash } from 'node:crypto';
import { InvalidInputError } from '../../errors.js';
import { isWellFormed, newId } from '../../ids.js';
import type { Message, MessageInput } from '../../message/message.js';
import {
  MESSAGE_ID_PATTERN,
  TOOL_CALL_ID_PATTERN,
  timestampSchema,
  type ContentPart,
  type JsonObject,
  type ToolCallInput,
} from '../../message/schema.js';
import type { ClaudeSessionEntry } from './types.js';

/** Message metadata key holding the entry verbatim. */
export const ENTRY_KEY = 'claudeAgentSdk';

/** Longest readable text of one message; the entry itself is kept whole. */
export const MAX_READABLE_CHARS = 32_768;

function invalid(index: number, why: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `claude-agent-sdk: entry ${index} ${why}`, {
    details: { index },
  });
}

/** The first string in `value` (walked without recursion) that is not well-formed Unicode, if any. */
function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') {
      if (!isWellFormed(next)) return true;
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, inner] of Object.entries(next)) {
        if (!isWellFormed(key)) return true;
        stack.push(inner);
      }
    }
  }
  return false;
}

/**
 * Checked copies of `entries`: each one's JSON round trip, which must be an object with a string
 * `type` and, when it has one, a non-empty string `uuid`; `INVALID_ARGUMENT` otherwise (nothing
 * of the batch is stored).
 */
export function checkEntries(entries: unknown): ClaudeSessionEntry[] {
  if (!Array.isArray(entries))
    throw new InvalidInputError('INVALID_ARGUMENT', 'claude-agent-sdk: append needs an array of entries');
  return entries.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid(index, 'is not an object');
    let json: string | undefined;
    try {
      json = JSON.stringify(entry);
    } catch (error) {
      throw invalid(index, `is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    // A toJSON may turn the object into anything: what the JSONL line would hold is what counts.
    const copy: unknown = json === undefined ? undefined : JSON.parse(json);
    if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) throw invalid(index, 'is not a JSON object');
    const { type, uuid } = copy as Record<string, unknown>;
    if (typeof type !== 'string' || type.length === 0) throw invalid(index, 'needs a non-empty string type');
    if (uuid !== undefined && (typeof uuid !== 'string' || uuid.length === 0))
      throw invalid(index, 'has a uuid that is not a non-empty string');
    if (hasLoneSurrogate(copy)) throw invalid(index, 'holds a string that is not well-formed Unicode');
    return copy as ClaudeSessionEntry;
  });
}

/** The message id of an entry with `uuid`: the same on every append, never one a fresh id takes. */
export function uuidMessageId(uuid: string): string {
  const id = `u:${uuid}`;
  if (id.length <= 256 && MESSAGE_ID_PATTERN.test(id)) return id;
  return `h:${createHash('sha256').update(uuid, 'utf8').digest('base64url')}`;
}

function shorten(text: string): string {
  if (text.length <= MAX_READABLE_CHARS) return text;
  return `${text.slice(0, MAX_READABLE_CHARS)}… [${text.length - MAX_READABLE_CHARS} more characters in the entry]`;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Readable text of a content block list or string (text as is, other blocks as `[type]`). */
function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      const fields = record(block);
      if (fields === undefined) return '';
      if (fields.type === 'text' && typeof fields.text === 'string') return fields.text;
      if (fields.type === 'tool_result') return toolResultText(fields);
      return `[${typeof fields.type === 'string' ? fields.type : 'block'}]`;
    })
    .filter((text) => text.length > 0)
    .join('\n');
}

function toolResultText(block: Record<string, unknown>): string {
  const text = blocksText(block.content);
  return block.is_error === true ? `[error] ${text}` : text;
}

/** A tool call id chatstate accepts, or `undefined`. */
function callId(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 256 && TOOL_CALL_ID_PATTERN.test(value) ? value : undefined;
}

/** The role, content and tool fields an entry reads as. */
type Readable = Pick<MessageInput, 'role' | 'category' | 'content' | 'toolCalls' | 'toolCallId' | 'name'>;

function userReadable(entry: ClaudeSessionEntry, message: Record<string, unknown>): Readable {
  const context = entry.isMeta === true || entry.isCompactSummary === true;
  const content = message.content;
  const blocks = Array.isArray(content) ? content.map(record).filter((block) => block !== undefined) : [];
  const results = blocks.filter((block) => block.type === 'tool_result');
  const answered = results.length > 0 && results.length === blocks.length ? callId(results[0]?.tool_use_id) : undefined;
  if (answered !== undefined)
    return { role: 'tool', toolCallId: answered, content: shorten(results.map(toolResultText).join('\n')) };
  const text = blocksText(content);
  return {
    role: 'user',
    ...(context ? { category: 'context' as const } : {}),
    content: text.trim().length > 0 ? shorten(text) : '[user]',
  };
}

function assistantReadable(message: Record<string, unknown>): Readable {
  const content = message.content;
  if (!Array.isArray(content)) {
    const text = typeof content === 'string' ? content : '';
    return { role: 'assistant', content: text.trim().length > 0 ? shorten(text) : '[assistant]' };
  }
  const parts: ContentPart[] = [];
  const toolCalls: ToolCallInput[] = [];
  const ids = new Set<string>();
  const texts: string[] = [];
  for (const block of content.map(record)) {
    if (block === undefined) continue;
    const id = callId(block.id);
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string')
      parts.push({ type: 'reasoning', text: shorten(block.thinking), provider: 'anthropic' });
    else if (block.type === 'tool_use' && id !== undefined && !ids.has(id) && typeof block.name === 'string') {
      ids.add(id);
      toolCalls.push({
        id,
        name: block.name.slice(0, 256) || 'tool',
        arguments: shorten(JSON.stringify(block.input ?? {})),
      });
    } else texts.push(`[${typeof block.type === 'string' ? block.type : 'block'}]`);
  }
  const text = texts.join('\n');
  if (text.length > 0) parts.push({ type: 'text', text: shorten(text) });
  const readable: Readable = {
    role: 'assistant',
    content: parts.length > 0 ? parts : toolCalls.length > 0 ? '' : '[assistant]',
  };
  return toolCalls.length > 0 ? { ...readable, toolCalls } : readable;
}

/** Fields whose string value tells what an entry of another type is about, in order of preference. */
const TELLING_FIELDS = ['content', 'summary', 'customTitle', 'aiTitle', 'title', 'tag', 'lastPrompt', 'text'];

/** Fields every line of a transcript may carry, which tell nothing of what an entry is about. */
const ENVELOPE = new Set(
  'type subtype uuid parentUuid logicalParentUuid sessionId cwd version gitBranch userType isSidechain isMeta timestamp agentId slug'.split(
    ' ',
  ),
);

function otherReadable(entry: ClaudeSessionEntry): Readable {
  const field = TELLING_FIELDS.find((name) => typeof entry[name] === 'string' && (entry[name] as string).length > 0);
  const rest = Object.fromEntries(Object.entries(entry).filter(([name]) => !ENVELOPE.has(name)));
  const told = field === undefined ? JSON.stringify(rest).slice(0, 300) : (entry[field] as string);
  const subtype = typeof entry.subtype === 'string' ? `:${entry.subtype}` : '';
  return {
    role: 'system',
    category: 'context',
    name: `${entry.type}${subtype}`.slice(0, 256),
    content: shorten(`[${entry.type}${subtype}] ${told}`),
  };
}

/** What `entry` reads as in chatstate. */
function readable(entry: ClaudeSessionEntry): Readable {
  const message = record(entry.message);
  if (entry.type === 'user' && message !== undefined) return userReadable(entry, message);
  if (entry.type === 'assistant' && message !== undefined) return assistantReadable(message);
  return otherReadable(entry);
}

/** The message that stores `entry` (checked by `checkEntries`): readable, with the entry verbatim. */
export function entryMessage(entry: ClaudeSessionEntry): MessageInput {
  const timestamp =
    typeof entry.timestamp === 'string' && timestampSchema.safeParse(entry.timestamp).success
      ? { timestamp: entry.timestamp }
      : {};
  return {
    id: entry.uuid === undefined ? `n:${newId('cas')}` : uuidMessageId(entry.uuid),
    ...readable(entry),
    ...timestamp,
    metadata: { [ENTRY_KEY]: entry as unknown as JsonObject },
  };
}

/**
 * A copy of the entry a stored message holds (the caller may change it; stored data is frozen);
 * `undefined` for a message another writer added.
 */
export function messageEntry(message: Message): ClaudeSessionEntry | undefined {
  const entry = record(message.metadata[ENTRY_KEY]);
  // A JSON round trip, like the entry's own: a `"__proto__"` key stays a key.
  return entry !== undefined && typeof entry.type === 'string'
    ? (JSON.parse(JSON.stringify(entry)) as ClaudeSessionEntry)
    : undefined;
}
