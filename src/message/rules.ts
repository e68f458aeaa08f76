/**
 * The rules of a message beyond its schema — size limit, default categories, what counts as empty
 * content — shared by `Message.create` and the stored-message fast path so that both decide alike.
 * @module
 */
import type { Category, Content, Role } from './schema.js';

/** Largest content a single message may carry, in UTF-16 code units (about 32 MiB of text). */
export const MAX_MESSAGE_CHARS = 32 * 1024 * 1024;

/** The category a message gets from its role when none is given. */
export const DEFAULT_CATEGORY: Readonly<Record<Role, Category>> = {
  system: 'system',
  user: 'dialog',
  assistant: 'dialog',
  tool: 'tool_output',
};

/** The size `MAX_MESSAGE_CHARS` limits: text lengths, and the JSON length of other parts. */
export function contentSize(content: Content): number {
  if (typeof content === 'string') return content.length;
  let size = 0;
  for (const part of content) {
    size += part.type === 'text' || part.type === 'reasoning' ? part.text.length : JSON.stringify(part).length;
  }
  return size;
}

/** True when content says nothing: blank text, or only blank text parts. */
export function isEmptyContent(content: Content): boolean {
  if (typeof content === 'string') return content.trim().length === 0;
  return content.every((part) => part.type === 'text' && part.text.trim().length === 0);
}
