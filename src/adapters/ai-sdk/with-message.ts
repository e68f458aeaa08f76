/**
 * `withMessage`: the list a route continues from when the client sends only its last message —
 * the stored messages with that message added, or put in place of the stored one with its id
 * (a client-side tool's output arrives in the assistant message it belongs to).
 * @module
 */
import type { UIMessage } from 'ai';

/** `messages` with `message` in place of the one with its id, or added at the end. */
export function withMessage<Ui extends UIMessage>(messages: readonly Ui[], message: Ui): Ui[] {
  const index = messages.findIndex((item) => item.id === message.id);
  if (index === -1) return [...messages, message];
  return messages.map((item, at) => (at === index ? message : item));
}
