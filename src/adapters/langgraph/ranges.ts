/**
 * Sequence ranges: how a checkpoint's message list points into its conversation.
 * @module
 */
import { Message } from '../../message/message.js';
import type { Entry } from './message-list.js';
import type { MessageRef } from './records.js';

/** Adds the inclusive range `first`–`last` to `ranges`, joining the last one when they touch. */
export function withTailInPlace(ranges: Array<[number, number]>, first: number, last: number): void {
  const end = ranges.at(-1);
  if (end !== undefined && first === end[1] + 1) end[1] = last;
  else ranges.push([first, last]);
}

/**
 * How many ranges `ranges` followed by `items` span at most: a run of stored messages with
 * consecutive numbers is one, a run of new ones is one (they are appended together).
 */
export function rangesOf(ranges: MessageRef['ranges'], items: ReadonlyArray<Entry | Message>): number {
  let count = ranges.length;
  let last = ranges.at(-1)?.[1];
  let inNew = false;
  for (const item of items) {
    if (Message.is(item)) {
      if (!inNew) count += 1;
      inNew = true;
      last = undefined;
    } else {
      if (last === undefined || item.seq !== last + 1) count += 1;
      last = item.seq;
      inNew = false;
    }
  }
  return count;
}

/** `ranges` with `first`–`last` added at the end. */
export function withTail(ranges: MessageRef['ranges'], first: number, last: number): Array<[number, number]> {
  const copy = ranges.map((range) => [range[0], range[1]] as [number, number]);
  withTailInPlace(copy, first, last);
  return copy;
}
