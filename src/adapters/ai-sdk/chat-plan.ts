/**
 * What a save must write, given what is stored: nothing, an append of new messages, or a rewrite
 * (a message changed under its id, or stored messages were removed, e.g. by a regenerate).
 * @module
 */
import type { Message, MessageInput } from '../../message/message.js';
import type { StoredUiMessage } from './decode.js';
import { encodeUiMessage, type EncodeContext } from './encode.js';
import { jsonEqual } from './json-equal.js';
import type { UiMessageJson } from './ui-json.js';

/** A save's plan. */
export type ChatPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'append'; readonly messages: readonly MessageInput[] }
  | {
      readonly kind: 'rewrite';
      /** How many stored UI messages the new list starts with, unchanged: their stored messages are kept as they are. */
      readonly prefix: number;
      /** What follows them: stored messages kept as they are (moved), changed and new ones encoded. */
      readonly tail: ReadonlyArray<Message | MessageInput>;
      /** UI ids of stored messages the new list leaves out. */
      readonly removed: readonly string[];
      /** UI ids of stored messages the new list changes. */
      readonly changed: readonly string[];
    };

/** The stored chat a save is planned over: its UI messages, and the same as an array of their own. */
export interface PlannedChat {
  readonly entries: readonly StoredUiMessage[];
  /** `entries[i].message`: comparing two arrays of pointers does not touch every message object. */
  readonly messages: readonly UiMessageJson[];
}

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

/**
 * The tool call ids the stored messages in `kept` use, so new messages do not reuse them: gathered
 * on the first question only (a text-only tail never asks).
 */
function callIdsOf(kept: () => Iterable<StoredUiMessage>): EncodeContext['callIds'] {
  let ids: Set<string> | undefined;
  const gathered = (): Set<string> => {
    if (ids !== undefined) return ids;
    ids = new Set();
    for (const entry of kept())
      for (const message of entry.stored) for (const call of message.toolCalls ?? []) ids.add(call.id);
    return ids;
  };
  return { has: (id) => gathered().has(id), add: (id) => void gathered().add(id) };
}

/**
 * Plans the save of `next` (the whole chat) over `stored`. Each message is compared once: the
 * common prefix in order, then the rest by id (a stored message after the prefix that comes back
 * unchanged is kept). No message after the prefix can be one of the prefix's: ids are unique.
 */
export function planSave(stored: PlannedChat, next: readonly UiMessageJson[]): ChatPlan {
  const { entries, messages } = stored;
  let prefix = 0;
  while (prefix < messages.length && prefix < next.length && messages[prefix] === next[prefix]) prefix += 1;
  while (
    prefix < messages.length &&
    prefix < next.length &&
    sameUiMessage(messages[prefix] as UiMessageJson, next[prefix] as UiMessageJson)
  )
    prefix += 1;
  if (prefix === entries.length) {
    if (prefix === next.length) return { kind: 'none' };
    const context = { callIds: callIdsOf(() => entries) };
    return { kind: 'append', messages: next.slice(prefix).flatMap((message) => encodeUiMessage(message, context)) };
  }
  const tail = entries.slice(prefix);
  const rest = next.slice(prefix);
  const byId = new Map(tail.map((entry) => [entry.message.id, entry]));
  const restIds = new Set(rest.map((message) => message.id));
  const keptTail = rest.flatMap((message) => {
    const entry = byId.get(message.id);
    return entry !== undefined && sameUiMessage(entry.message, message) ? [entry] : [];
  });
  const keptIds = new Set(keptTail.map((entry) => entry.message.id));
  const context = { callIds: callIdsOf(() => [...entries.slice(0, prefix), ...keptTail]) };
  const written = rest.flatMap((message): ReadonlyArray<Message | MessageInput> => {
    const entry = keptIds.has(message.id) ? byId.get(message.id) : undefined;
    return entry !== undefined ? entry.stored : encodeUiMessage(message, context);
  });
  return {
    kind: 'rewrite',
    prefix,
    tail: written,
    removed: tail.filter((entry) => !restIds.has(entry.message.id)).map((entry) => entry.message.id),
    changed: tail
      .filter((entry) => restIds.has(entry.message.id) && !keptIds.has(entry.message.id))
      .map((entry) => entry.message.id),
  };
}
