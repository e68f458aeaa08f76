/**
 * `slidingWindow` (Coreason's SLIDING_WINDOW, "the last N interactions"): keep the last `turns`
 * turns, a turn being a user message and everything up to the next one.
 * @module
 */
import type { Message } from '../message/message.js';
import { optionsObject, positiveInteger } from './options.js';
import { cutAt, prepareTurns, unchanged } from './report.js';
import type { Turns } from './turns.js';
import type { CompactionInput, CompactionResult, SyncCompactor } from './types.js';

/** Options of `slidingWindow`. */
export interface SlidingWindowOptions {
  /** Turns kept. */
  turns: number;
}

/** Index of the cut that keeps the last `keep` turns of `turns`, or -1 when there are no more. */
export function windowCut(turns: Turns, keep: number): number {
  return turns.cuts.length > keep ? turns.cuts.length - keep : -1;
}

/** True when the history may hold more than `keep` turns (a cheap count of user messages). */
export function moreTurnsThan(input: CompactionInput, keep: number): boolean {
  const messages = input.messages;
  let users = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === 'user' && message.category === 'dialog') users += 1;
  }
  // Every turn starts at a user message, but a user message inside a tool exchange starts none.
  if (users <= keep) return false;
  return prepareTurns(input).turns.cuts.length > keep;
}

/** Keeps the last `turns` turns (and every system-category message). */
export function slidingWindow(options: SlidingWindowOptions): SyncCompactor {
  const name = 'slidingWindow';
  optionsObject(name, options);
  const keep = positiveInteger(name, 'turns', options.turns);
  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => moreTurnsThan(input, keep),
    compact(input: CompactionInput): CompactionResult {
      const { prepared, turns } = prepareTurns(input);
      const k = windowCut(turns, keep);
      if (k < 0) return unchanged(prepared.messages, name, prepared.total, true);
      return cutAt(prepared, turns, k, name, true);
    },
  });
}
