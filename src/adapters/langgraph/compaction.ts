/**
 * Compaction through the saver: on the put that ends a turn (the newest message is a final answer,
 * never inside a tool loop), the manager's `compactAfterAnswer` runs on the messages channel. The
 * checkpoint then refers to the compacted list; the conversation keeps every message it ever had,
 * plus what compaction added (a summary), and its metadata's compaction log gains an entry.
 * @module
 */
import { compactAfterAnswer } from '../../manager/compact-after-answer.js';
import { newId } from '../../ids.js';
import { Message } from '../../message/message.js';
import type { JsonObject } from '../../message/schema.js';
import { compactionEntry, withCompactionEntry } from '../../session/compaction-log.js';
import type { SessionStore, ValueOwner } from '../../store/session-store-types.js';
import { estimate } from '../../tokens/estimate.js';
import type { Entry } from './message-list.js';
import type { SaverCompaction } from './options.js';
import { keys } from './records.js';

/** A compacted list: stored entries and new messages in order, the new ones apart, and the conversation's metadata with the log entry. */
export interface CompactedList {
  readonly list: Array<Entry | Message>;
  readonly added: Message[];
  readonly metadata: JsonObject;
}

/** A copy of `message` with a new id (chatstate ids are append keys: a changed message must not share one). */
export function freshCopy(message: Message): Message {
  // A checkpoint record the original carried stays with the original.
  const { checkpoint: _record, ...metadata } = message.metadata;
  return Message.with(message, { id: newId('lg'), seq: undefined, metadata });
}

/** `logical` compacted when it ends a turn and the compactor's trigger says so; `undefined` otherwise (or when compaction failed). */
export async function compactList(
  logical: ReadonlyArray<Entry | Message>,
  compaction: SaverCompaction,
  store: SessionStore,
  owner: ValueOwner,
): Promise<CompactedList | undefined> {
  const messages = logical.map((item) => (Message.is(item) ? item : item.message));
  const counter = compaction.counter ?? estimate;
  const result = await compactAfterAnswer(compaction.compactor, { messages, counter });
  if (result === undefined || !result.compacted || result.error !== undefined) return undefined;
  const byMessage = new Map<Message, Entry | Message>();
  logical.forEach((item, index) => byMessage.set(messages[index] as Message, item));
  const added: Message[] = [];
  const list = result.messages.map((message) => {
    const item = byMessage.get(message);
    if (item !== undefined) return item;
    const copy = freshCopy(message);
    added.push(copy);
    return copy;
  });
  const base = ((await store.values.get(owner, keys.conversation)) as JsonObject | undefined) ?? {};
  const metadata = withCompactionEntry(base, compactionEntry(messages, result.messages, result.strategy, counter));
  await store.values.set(owner, { [keys.conversation]: metadata });
  return { list, added, metadata };
}
