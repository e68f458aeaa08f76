/**
 * A session's title — what `list` shows — in one rule: the caller's `metadata.title` when it sets
 * one; otherwise the title the session already has; otherwise the text of its first user message.
 * So a title, once set, stays until the caller changes it: compaction may drop the message it came
 * from, and a later save keeps it.
 * @module
 */
import { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';

/** Longest title kept in the index. */
export const TITLE_CHARS = 120;

/** `text` as a title: whitespace collapsed, shortened to `TITLE_CHARS`; `undefined` when blank. */
function asTitle(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length === 0) return undefined;
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** The title a message gives its session: the text of a user dialog message, shortened. */
export function titleOf(message: Message): string | undefined {
  if (message.role !== 'user' || message.category !== 'dialog') return undefined;
  return asTitle(Message.text(message));
}

/** The title the caller chose: a non-blank string `metadata.title`, shortened. */
export function metadataTitle(metadata: JsonObject | undefined): string | undefined {
  const title = metadata === undefined || !Object.hasOwn(metadata, 'title') ? undefined : metadata.title;
  return typeof title === 'string' ? asTitle(title) : undefined;
}

/**
 * The title a save gives a session: `metadata.title` when it is a non-blank string, else `stored`
 * (the title the session has in the store, decoded), else the first user message's among `messages`.
 */
export function sessionTitle(
  metadata: JsonObject,
  stored: string | undefined,
  messages: Iterable<Message>,
): string | undefined {
  const chosen = metadataTitle(metadata) ?? stored;
  if (chosen !== undefined) return chosen;
  for (const message of messages) {
    const title = titleOf(message);
    if (title !== undefined) return title;
  }
  return undefined;
}
