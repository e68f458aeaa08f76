/**
 * The rules of a message beyond its schema — size limit, default categories, what counts as empty
 * content — shared by `Message.create` and the stored-message fast path so that both decide alike.
 * @module
 */
import type { Message } from './message.js';
import { jsonSize } from './json-value.js';
import type { Category, Content, Role, ToolCall } from './schema.js';

/**
 * Largest message, in characters of its JSON text as stored (about 32 MiB): the whole message —
 * content, tool calls and their arguments, metadata, raw parts, token counts — measured by
 * `messageSize`.
 */
export const MAX_MESSAGE_CHARS = 32 * 1024 * 1024;

/**
 * The fields a message is written with (`seq` aside: a store gives it, and keeps it beside the
 * record). A stored record with any other field was written by a newer version.
 */
export const MESSAGE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'role',
  'category',
  'content',
  'toolCalls',
  'toolCallId',
  'name',
  'timestamp',
  'metadata',
  'tokens',
]);

/** The category a message gets from its role when none is given. */
export const DEFAULT_CATEGORY: Readonly<Record<Role, Category>> = {
  system: 'system',
  user: 'dialog',
  assistant: 'dialog',
  tool: 'tool_output',
};

// `"key":` and the comma before it: what a field costs beside its value (the first field's comma
// is paid by the closing brace, which `messageSize` leaves out).
function field(key: string, valueSize: number): number {
  return key.length + 4 + valueSize;
}

// The fields every message has, with their keys, quotes and commas, and the braces.
const FIXED =
  1 +
  field('id', 2) +
  field('role', 2) +
  field('category', 2) +
  field('content', 0) +
  field('timestamp', 2) +
  field('metadata', 0);

/** The size of content as `messageSize` counts it. */
export function contentSize(content: Content): number {
  return typeof content === 'string' ? content.length + 2 : jsonSize(content);
}

/**
 * `messageSize` from the fields of a message and the sizes of its JSON values (`jsonSize`, or the
 * size `readJson` measured while it copied them): the one formula, which the stored-message fast
 * path feeds from what it has just read instead of reading the message again.
 */
export function messageSizeOf(
  fields: Pick<Message, 'id' | 'role' | 'category' | 'timestamp' | 'toolCalls' | 'toolCallId' | 'name'>,
  contentChars: number,
  metadataChars: number,
  tokensChars: number | undefined,
): number {
  const { toolCalls, toolCallId, name } = fields;
  let size =
    FIXED +
    fields.id.length +
    fields.role.length +
    fields.category.length +
    fields.timestamp.length +
    contentChars +
    metadataChars;
  if (toolCalls !== undefined) {
    // Brackets and commas, then each call as its JSON object.
    let calls = toolCalls.length === 0 ? 2 : toolCalls.length + 1;
    for (let index = 0; index < toolCalls.length; index++) {
      const call = toolCalls[index] as ToolCall;
      calls +=
        1 +
        field('id', call.id.length + 2) +
        field('name', call.name.length + 2) +
        field('arguments', call.arguments.length + 2);
      if (call.providerOptions !== undefined) calls += field('providerOptions', jsonSize(call.providerOptions));
    }
    size += field('toolCalls', calls);
  }
  if (toolCallId !== undefined) size += field('toolCallId', toolCallId.length + 2);
  if (name !== undefined) size += field('name', name.length + 2);
  if (tokensChars !== undefined) size += field('tokens', tokensChars);
  return size;
}

/**
 * The size `MAX_MESSAGE_CHARS` limits: the length of the message's JSON text without `seq` (which a
 * store gives), each string counted as its characters and two quotes (escapes aside) — what
 * `JSON.stringify` writes for a message whose strings need no escaping. `Message.create` and the
 * stored-message fast path both measure the message they built, so both decide alike, and a
 * message that was accepted once is accepted when it is read back.
 */
export function messageSize(message: Omit<Message, 'seq'> & { readonly seq?: number }): number {
  return messageSizeOf(
    message,
    contentSize(message.content),
    jsonSize(message.metadata),
    message.tokens === undefined ? undefined : jsonSize(message.tokens),
  );
}

/** True when content says nothing: blank text, or only blank text parts. */
export function isEmptyContent(content: Content): boolean {
  if (typeof content === 'string') return content.trim().length === 0;
  return content.every((part) => part.type === 'text' && part.text.trim().length === 0);
}
