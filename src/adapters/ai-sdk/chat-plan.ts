/**
 * What a save must write, given what is stored: nothing, an append of new messages, or a rewrite
 * (a message changed under its id, or stored messages were removed, e.g. by a regenerate).
 * @module
 */
import type { Message, MessageInput } from '../../message/message.js';
import type { StoredUiMessage } from './decode.js';
import { encodeUiMessage } from './encode.js';
import { jsonEqual } from './json-equal.js';
import type { UiMessageJson } from './ui-json.js';

/** A save's plan. */
export type ChatPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'append'; readonly messages: readonly MessageInput[] }
  | {
      readonly kind: 'rewrite';
      /** The whole new history: stored messages kept as they are, changed and new ones encoded. */
      readonly messages: ReadonlyArray<Message | MessageInput>;
      /** How many stored UI messages the new list starts with, unchanged (a tail replace keeps them). */
      readonly prefix: number;
      /** How many stored messages those are: `messages` starts with them, the very stored objects. */
      readonly kept: number;
      /** UI ids of stored messages the new list leaves out. */
      readonly removed: readonly string[];
      /** UI ids of stored messages the new list changes. */
      readonly changed: readonly string[];
    };

/**
 * True when two UI messages are the same (key order aside). A message read from one the chat store
 * handed out is the stored one itself, so the common case is one identity check.
 */
export function sameUiMessage(a: UiMessageJson, b: UiMessageJson): boolean {
  if (a === b) return true;
  if (a.id !== b.id || a.role !== b.role) return false;
  return (
    jsonEqual(a.parts, b.parts) &&
    (a.metadata === undefined
      ? b.metadata === undefined
      : b.metadata !== undefined && jsonEqual(a.metadata, b.metadata)) &&
    (a.extra === undefined ? b.extra === undefined : b.extra !== undefined && jsonEqual(a.extra, b.extra))
  );
}

/** The tool call ids the stored messages in `kept` use, so new messages do not reuse them. */
function callIdsOf(kept: readonly StoredUiMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const entry of kept)
    for (const message of entry.stored) for (const call of message.toolCalls ?? []) ids.add(call.id);
  return ids;
}

/**
 * Plans the save of `next` (the whole chat) over `stored`. Each message is compared once: the
 * common prefix in order, then the rest by id (a stored message after the prefix that comes back
 * unchanged is kept). No message after the prefix can be one of the prefix's: ids are unique.
 */
export function planSave(stored: readonly StoredUiMessage[], next: readonly UiMessageJson[]): ChatPlan {
  let prefix = 0;
  while (
    prefix < stored.length &&
    prefix < next.length &&
    sameUiMessage((stored[prefix] as StoredUiMessage).message, next[prefix] as UiMessageJson)
  )
    prefix += 1;
  if (prefix === stored.length) {
    if (prefix === next.length) return { kind: 'none' };
    const context = { callIds: callIdsOf(stored) };
    return { kind: 'append', messages: next.slice(prefix).flatMap((message) => encodeUiMessage(message, context)) };
  }
  const head = stored.slice(0, prefix);
  const tail = stored.slice(prefix);
  const rest = next.slice(prefix);
  const byId = new Map(tail.map((entry) => [entry.message.id, entry]));
  const restIds = new Set(rest.map((message) => message.id));
  const keptTail = rest.flatMap((message) => {
    const entry = byId.get(message.id);
    return entry !== undefined && sameUiMessage(entry.message, message) ? [entry] : [];
  });
  const keptIds = new Set(keptTail.map((entry) => entry.message.id));
  const context = { callIds: callIdsOf([...head, ...keptTail]) };
  const messages: Array<Message | MessageInput> = [];
  for (const entry of head) for (const message of entry.stored) messages.push(message);
  const kept = messages.length;
  for (const message of rest) {
    const entry = keptIds.has(message.id) ? byId.get(message.id) : undefined;
    for (const item of entry !== undefined ? entry.stored : encodeUiMessage(message, context)) messages.push(item);
  }
  return {
    kind: 'rewrite',
    messages,
    prefix,
    kept,
    removed: tail.filter((entry) => !restIds.has(entry.message.id)).map((entry) => entry.message.id),
    changed: tail
      .filter((entry) => restIds.has(entry.message.id) && !keptIds.has(entry.message.id))
      .map((entry) => entry.message.id),
  };
}
