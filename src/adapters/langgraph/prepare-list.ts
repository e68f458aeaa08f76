/**
 * A messages channel's list against its parent's, ready to store: which messages to append, and
 * the stored list once they have sequence numbers.
 * @module
 */
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { Message } from '../../message/message.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import type { SessionStore, ValueOwner } from '../../store/session-store-types.js';
import { compactList, freshCopy } from './compaction.js';
import { deltaOf, toRanges, type Entry, type Known, type StoredList } from './message-list.js';
import type { SaverCompaction } from './options.js';
import { rangesOf, withTailInPlace } from './ranges.js';
import type { ThreadSessions } from './thread-ids.js';

/** What `prepareList` works with: the saver's store, serializer, identity memory and options. */
export interface ListContext {
  readonly store: SessionStore;
  readonly serde: SerializerProtocol;
  readonly known: WeakMap<object, Known>;
  readonly compaction: SaverCompaction | undefined;
  readonly maxRanges: number;
  /** The values owner of the thread's log (where the conversation's compaction log is kept). */
  readonly owner: ValueOwner;
}

/** A messages channel's list, ready to store. */
export interface PreparedList {
  readonly toAppend: readonly Message[];
  readonly state?: { readonly metadata: JsonObject; readonly variables: Record<string, JsonValue> };
  /** The list's ranges before the appended messages, when the list ends with exactly them. */
  readonly tail?: ReadonlyArray<readonly [number, number]>;
  /** The stored list, once the appended messages have their sequence numbers. */
  finish(seqOf: ReadonlyMap<string, number>): StoredList;
}

/**
 * A messages channel's list against its parent's: the messages to append (and, at the end of a
 * turn, what compaction adds), and how to make the stored list once they have sequence numbers.
 * When the list starts with its parent's very objects (`kept` of them: a running graph), only the tail is looked
 * at. `tail` is set when the list is the parent's ranges plus exactly the appended messages, in
 * order, within `maxRanges`: the put can then be one write.
 */
export async function prepareList(
  context: ListContext,
  sessions: ThreadSessions,
  list: readonly object[],
  parent: StoredList | undefined,
  kept: number,
  where: string,
): Promise<PreparedList> {
  const head = kept > 0 ? (parent as StoredList) : undefined;
  const tail = head === undefined ? list : list.slice(kept);
  const delta = await deltaOf(
    tail,
    head === undefined ? (parent?.entries ?? []) : [],
    sessions.conversation,
    context.known,
    context.serde,
    where,
  );
  const tailItems: Array<Entry | Message> = delta.items.map((item) => ('reuse' in item ? item.reuse : item.add));
  const toAppend = [...delta.added];
  let compacted: Array<Entry | Message> | undefined;
  let state: PreparedList['state'];
  if (context.compaction !== undefined && tail.length > 0) {
    const logical = head === undefined ? tailItems : [...head.entries, ...tailItems];
    const result = await compactList(logical, context.compaction, context.store, context.owner);
    if (result !== undefined) {
      compacted = result.list;
      toAppend.push(...result.added);
      state = { metadata: result.metadata, variables: {} };
    }
  }
  const known = context.known;
  const conversation = sessions.conversation;
  if (compacted === undefined && rangesOf(head?.ranges ?? [], tailItems) > context.maxRanges) {
    // Too scattered (many edits, or a fork far back): one fresh copy of the whole list, appended
    // at once (so the put stays one write and the list one range).
    const all = head === undefined ? tailItems : [...head.entries, ...tailItems];
    const copies = all.map((item) => (Message.is(item) ? item : freshCopy(item.message)));
    const finishCopy = (seqOf: ReadonlyMap<string, number>): StoredList => {
      const entries = copies.map((message) => ({ seq: seqOf.get(message.id) ?? 0, message }));
      delta.items.forEach((item, index) => {
        const object = tail[index];
        const at = (head?.entries.length ?? 0) + index;
        if (object !== undefined && 'add' in item) known.set(object, { conversation, entry: entries[at] as Entry });
      });
      return { entries, ranges: toRanges(entries.map((entry) => entry.seq)) };
    };
    return { toAppend: copies, tail: [], finish: finishCopy };
  }
  const finish = (seqOf: ReadonlyMap<string, number>): StoredList => {
    const entryOf = (item: Entry | Message): Entry =>
      Message.is(item) ? { seq: seqOf.get(item.id) ?? 0, message: item } : item;
    delta.items.forEach((item, index) => {
      const object = tail[index];
      if (object !== undefined)
        known.set(object, { conversation, entry: entryOf('reuse' in item ? item.reuse : item.add) });
    });
    if (compacted !== undefined) {
      const entries = compacted.map(entryOf);
      return { entries, ranges: toRanges(entries.map((entry) => entry.seq)) };
    }
    if (head !== undefined) {
      const added = tailItems.map(entryOf);
      const ranges = head.ranges.map((range) => [range[0], range[1]] as [number, number]);
      for (const [first, last] of toRanges(added.map((entry) => entry.seq))) withTailInPlace(ranges, first, last);
      return { entries: head.entries.concat(added), ranges, objects: list.slice() };
    }
    const entries = tailItems.map(entryOf);
    return { entries, ranges: toRanges(entries.map((entry) => entry.seq)), objects: list.slice() };
  };
  // One write is possible when the appended messages are the list's end, in order, after stored ones.
  let tailRanges: Array<[number, number]> | undefined;
  if (compacted === undefined && toAppend.length > 0) {
    const firstNew = tailItems.length - toAppend.length;
    const endsWithNew = toAppend.every((message, index) => tailItems[firstNew + index] === message);
    const before = tailItems.slice(0, Math.max(firstNew, 0));
    if (firstNew >= 0 && endsWithNew && before.every((item) => !Message.is(item))) {
      const ranges = head === undefined ? [] : head.ranges.map((range) => [range[0], range[1]] as [number, number]);
      for (const [first, last] of toRanges((before as Entry[]).map((entry) => entry.seq)))
        withTailInPlace(ranges, first, last);
      if (ranges.length + 1 <= context.maxRanges) tailRanges = ranges;
    }
  }
  return {
    toAppend,
    ...(state === undefined ? {} : { state }),
    ...(tailRanges === undefined ? {} : { tail: tailRanges }),
    finish,
  };
}
