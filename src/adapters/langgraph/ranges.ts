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

/** How many messages `ranges` name. */
export function countOf(ranges: MessageRef['ranges']): number {
  let count = 0;
  for (const [first, last] of ranges) count += last - first + 1;
  return count;
}

/** The ranges of the last `count` messages `ranges` name, in list order. */
export function lastOf(ranges: MessageRef['ranges'], count: number): Array<[number, number]> {
  const kept: Array<[number, number]> = [];
  let left = count;
  for (let index = ranges.length - 1; index >= 0 && left > 0; index--) {
    const [first, last] = ranges[index] as readonly [number, number];
    const start = Math.max(first, last - left + 1);
    kept.unshift([start, last]);
    left -= last - start + 1;
  }
  return kept;
}

/** The sequence numbers from 1 to `lastSeq` that `ranges` do not name, as inclusive ranges in increasing order. */
export function gapsOf(ranges: MessageRef['ranges'], lastSeq: number): Array<[number, number]> {
  // A list may name its ranges out of order (a summary before the messages it kept): sort a copy.
  const sorted = ranges.map((range) => [range[0], range[1]] as [number, number]).sort((a, b) => a[0] - b[0]);
  const gaps: Array<[number, number]> = [];
  let next = 1;
  for (const [first, last] of sorted) {
    if (first > next) gaps.push([next, Math.min(first - 1, lastSeq)]);
    next = Math.max(next, last + 1);
    if (next > lastSeq) break;
  }
  if (next <= lastSeq) gaps.push([next, lastSeq]);
  return gaps.filter(([first, last]) => first <= last);
}
