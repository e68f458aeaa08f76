/**
 * What a save must write, given what is stored: nothing, an append of new messages, or a rewrite
 * (a message changed under its id, or stored messages were removed, e.g. by a regenerate).
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type { Message, MessageInput } from '../../message/message.js';
import type { StoredUiMessage } from './decode.js';
import { encodeUiMessage } from './encode.js';
import type { UiMessageJson } from './ui-json.js';

/** A save's plan. */
export type ChatPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'append'; readonly messages: readonly MessageInput[] }
  | {
      readonly kind: 'rewrite';
      /** The whole new history: stored messages kept as they are, changed and new ones encoded. */
      readonly messages: ReadonlyArray<Message | MessageInput>;
      /** UI ids of stored messages the new list leaves out. */
      readonly removed: readonly string[];
      /** UI ids of stored messages the new list changes. */
      readonly changed: readonly string[];
    };

/** True when two UI messages are the same (key order aside). */
export function sameUiMessage(a: UiMessageJson, b: UiMessageJson): boolean {
  return isDeepStrictEqual(a, b);
}

/** The tool call ids the stored messages in `kept` use, so new messages do not reuse them. */
function callIdsOf(kept: readonly StoredUiMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const entry of kept)
    for (const message of entry.stored) for (const call of message.toolCalls ?? []) ids.add(call.id);
  return ids;
}

/** Plans the save of `next` (the whole chat) over `stored`. */
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
  const byId = new Map(stored.map((entry) => [entry.message.id, entry]));
  const nextIds = new Set(next.map((message) => message.id));
  const kept = next.flatMap((message) => {
    const entry = byId.get(message.id);
    return entry !== undefined && sameUiMessage(entry.message, message) ? [entry] : [];
  });
  const keptIds = new Set(kept.map((entry) => entry.message.id));
  const context = { callIds: callIdsOf(kept) };
  const messages = next.flatMap((message): ReadonlyArray<Message | MessageInput> => {
    const entry = keptIds.has(message.id) ? byId.get(message.id) : undefined;
    return entry !== undefined ? entry.stored : encodeUiMessage(message, context);
  });
  return {
    kind: 'rewrite',
    messages,
    removed: stored.filter((entry) => !nextIds.has(entry.message.id)).map((entry) => entry.message.id),
    changed: stored
      .filter((entry) => nextIds.has(entry.message.id) && !keptIds.has(entry.message.id))
      .map((entry) => entry.message.id),
  };
}
