/**
 * A messages channel as chatstate messages: which stored messages a list is made of (sequence
 * ranges), the new ones a list adds against its parent, and the list read back as LangChain
 * messages. Unchanged messages are recognized by identity (the very objects the saver read or
 * wrote) or, failing that, by their serialized JSON; a changed message (same LangChain id, new
 * content) is a new chatstate message with an id of its own.
 * @module
 */
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { DataError } from '../../errors.js';
import { newId } from '../../ids.js';
import { canonicalJson } from '../../internal/canonical-json.js';
import type { Message } from '../../message/message.js';
import { fromLangChainSerialized, toLangChainSerialized } from '../../interchange/langgraph/messages.js';
import type { MessageRef } from './records.js';

/** One message of a stored list: its sequence number in the conversation and the stored message. */
export interface Entry {
  readonly seq: number;
  readonly message: Message;
}

/** How far past the expected place a message of the parent is looked for when it is not the same object. */
const LOOK_AHEAD = 8;

/** Inclusive runs of consecutive sequence numbers. */
export function toRanges(seqs: readonly number[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const seq of seqs) {
    const last = ranges.at(-1);
    if (last !== undefined && seq === last[1] + 1) last[1] = seq;
    else ranges.push([seq, seq]);
  }
  return ranges;
}

/** The JSON `serde` writes for `value`, or undefined when it writes no JSON for it. */
export async function serializedJson(serde: SerializerProtocol, value: unknown): Promise<unknown> {
  const [type, bytes] = await serde.dumpsTyped(value);
  if (type !== 'json') return undefined;
  return JSON.parse(typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes)) as unknown;
}

/** A checkpoint's message list as stored: its entries, their ranges, and the LangChain objects it was put or read as (when known). */
export interface StoredList {
  readonly entries: readonly Entry[];
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  /** The list's message objects, same order: a child's list that starts with them is unchanged there. */
  readonly objects?: readonly unknown[];
}

/** What the saver remembers of a message object it read or wrote: where it is stored. */
export interface Known {
  readonly conversation: string;
  readonly entry: Entry;
}

/** The new list against its parent: each item an entry to reuse or a message to append. */
export interface Delta {
  readonly items: ReadonlyArray<{ readonly reuse: Entry } | { readonly add: Message }>;
  readonly added: readonly Message[];
}

/**
 * Which messages of `list` are stored already (in `conversation`) and which are new. `parent` is
 * the parent checkpoint's list; `known` remembers message objects by identity.
 */
export async function deltaOf(
  list: readonly unknown[],
  parent: readonly Entry[],
  conversation: string,
  known: WeakMap<object, Known>,
  serde: SerializerProtocol,
  where: string,
): Promise<Delta> {
  const items: Array<{ reuse: Entry } | { add: Message }> = [];
  const added: Message[] = [];
  const parentIndex = new Map<number, number>();
  parent.forEach((entry, index) => parentIndex.set(entry.seq, index));
  const prints = new Map<number, string>();
  const printOf = (index: number): string => {
    let print = prints.get(index);
    if (print === undefined) {
      print = canonicalJson(toLangChainSerialized((parent[index] as Entry).message));
      prints.set(index, print);
    }
    return print;
  };
  let next = 0;
  for (const [position, item] of list.entries()) {
    const remembered = typeof item === 'object' && item !== null ? known.get(item) : undefined;
    if (remembered !== undefined && remembered.conversation === conversation) {
      items.push({ reuse: remembered.entry });
      const index = parentIndex.get(remembered.entry.seq);
      if (index !== undefined) next = index + 1;
      continue;
    }
    const serialized = await serializedJson(serde, item);
    const print = canonicalJson(serialized);
    // The parent's next message, or one a little further (the reducer replaced or removed some).
    let found = -1;
    for (let index = next; index < Math.min(parent.length, next + LOOK_AHEAD); index++)
      if (printOf(index) === print) {
        found = index;
        break;
      }
    if (found >= 0) {
      items.push({ reuse: parent[found] as Entry });
      next = found + 1;
      continue;
    }
    const message = fromLangChainSerialized(serialized, { id: newId('lg'), where: `${where}[${position}]` });
    items.push({ add: message });
    added.push(message);
  }
  return { items, added };
}

/** The stored messages of `ref`, in order. */
export async function readList(
  ref: MessageRef,
  read: (afterSeq: number, beforeSeq: number) => Promise<readonly Message[]>,
): Promise<Entry[]> {
  const parts = await Promise.all(ref.ranges.map(([first, last]) => read(first - 1, last + 1)));
  const entries: Entry[] = [];
  ref.ranges.forEach(([first, last], index) => {
    const part = parts[index] ?? [];
    // The conversation is append-only: a range with a message missing was cut by someone else.
    if (part.length !== last - first + 1)
      throw new DataError(
        'CORRUPT',
        `LangGraph saver: messages ${first}-${last} of the conversation are gone (${part.length} of ${last - first + 1} left); was the session compacted or edited outside the saver?`,
        { details: { first, last, found: part.length } },
      );
    for (const message of part) entries.push({ seq: message.seq ?? 0, message });
  });
  return entries;
}

/** Stored messages as LangChain messages (revived by `serde`), in order. */
export async function revive(serde: SerializerProtocol, entries: readonly Entry[]): Promise<unknown[]> {
  const json = JSON.stringify(entries.map((entry) => toLangChainSerialized(entry.message)));
  const revived = await serde.loadsTyped('json', new TextEncoder().encode(json));
  return revived as unknown[];
}
