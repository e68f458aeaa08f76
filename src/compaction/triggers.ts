/**
 * Built-in triggers (goaitools' CompactionTrigger), to pair with any strategy through `split`, and
 * the `any` / `all` combinators.
 * @module
 */
import { invalidOption, nonNegativeInteger } from './options.js';
import { countDroppable } from './turns.js';
import { aboveTokens } from './token-limit.js';
import type { CompactionInput, Trigger } from './types.js';

/** Checks a trigger option. */
export function checkTrigger(factory: string, option: string, trigger: unknown): Trigger {
  if (typeof trigger !== 'object' || trigger === null || typeof (trigger as Trigger).shouldCompact !== 'function') {
    throw invalidOption(factory, option, 'an object with shouldCompact(input)', trigger);
  }
  return trigger as Trigger;
}

function checkTriggers(factory: string, list: readonly Trigger[]): readonly Trigger[] {
  return Object.freeze(list.map((trigger, index) => checkTrigger(factory, `trigger ${index}`, trigger)));
}

/** Fires when the history holds more than `max` droppable messages (pinned ones are not counted). */
export function messageCount(max: number): Trigger {
  const limit = nonNegativeInteger('triggers.messageCount', 'max', max);
  return Object.freeze({ shouldCompact: (input: CompactionInput): boolean => countDroppable(input.messages) > limit });
}

/** Fires when the history is above `max` tokens (measured usage first, then the counter). */
export function tokenCount(max: number): Trigger {
  const limit = nonNegativeInteger('triggers.tokenCount', 'max', max);
  return Object.freeze({ shouldCompact: (input: CompactionInput): boolean => aboveTokens(input, limit) });
}

/** Fires when at least one of `list` fires (never, for an empty list). */
export function any(...list: Trigger[]): Trigger {
  const checked = checkTriggers('triggers.any', list);
  return Object.freeze({
    shouldCompact: (input: CompactionInput): boolean => checked.some((trigger) => trigger.shouldCompact(input)),
  });
}

/** Fires when every one of `list` fires (always, for an empty list). */
export function all(...list: Trigger[]): Trigger {
  const checked = checkTriggers('triggers.all', list);
  return Object.freeze({
    shouldCompact: (input: CompactionInput): boolean => checked.every((trigger) => trigger.shouldCompact(input)),
  });
}

/** Always fires. */
export const always: Trigger = Object.freeze({ shouldCompact: (): boolean => true });

/** Never fires. */
export const never: Trigger = Object.freeze({ shouldCompact: (): boolean => false });

/** The built-in triggers. */
export const triggers = Object.freeze({ messageCount, tokenCount, any, all, always, never });
