/**
 * `messageLimit` (goaitools' MessageLimitCompactor, fixed): keep at most `maxMessages` messages
 * besides the system ones, dropping whole turns from the oldest. goaitools cut at a message count
 * and then advanced to the next user message, which emptied the history when the latest turn was
 * longer than the limit; here the latest turn is always kept, and `reachedTarget` says it overflows.
 * @module
 */
import { optionsObject, positiveInteger } from './options.js';
import { cutAt, firstCutDropping, prepareTurns, unchanged } from './report.js';
import { countDroppable } from './turns.js';
import type { CompactionInput, CompactionResult, SyncCompactor } from './types.js';

/** Options of `messageLimit`. */
export interface MessageLimitOptions {
  /** Most messages kept, not counting the pinned ones (system category and the leading preamble). */
  maxMessages: number;
}

/** Keeps the most recent whole turns holding at most `maxMessages` non-system messages. */
export function messageLimit(options: MessageLimitOptions): SyncCompactor {
  const name = 'messageLimit';
  optionsObject(name, options);
  const max = positiveInteger(name, 'maxMessages', options.maxMessages);
  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => countDroppable(input.messages) > max,
    compact(input: CompactionInput): CompactionResult {
      const { prepared, turns } = prepareTurns(input);
      const droppable = prepared.messages.length - turns.pinnedCount;
      if (droppable <= max) return unchanged(prepared.messages, name, prepared.total, true);
      if (turns.cuts.length === 0) return unchanged(prepared.messages, name, prepared.total, false);
      const k = firstCutDropping(turns.cutMessages, droppable - max);
      if (k >= 0) return cutAt(prepared, turns, k, name, true);
      return cutAt(prepared, turns, turns.cuts.length - 1, name, false);
    },
  });
}
