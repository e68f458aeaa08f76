/**
 * Compaction after a final answer (goaitools: only then, never inside a tool loop), shared by
 * `Conversation` and `chatWithState`. A failing compactor never fails the turn: the history stays
 * as it is and the report carries the error.
 * @module
 */
import type { CompactionInput, CompactionResult } from '../compaction/types.js';
import { ChatstateError, CollaboratorError, errorMessage } from '../errors.js';
import type { TurnCompactor } from './types.js';

/** A report saying the history was left unchanged because of `error`. */
export function unchangedBy(input: Pick<CompactionInput, 'messages'>, strategy: string, error: unknown): CompactionResult {
  const failure = ChatstateError.isInstance(error) ? error : new CollaboratorError('INTERNAL', `Compaction failed: ${errorMessage(error)}`, { cause: error });
  return {
    messages: input.messages,
    compacted: false,
    strategy,
    removed: { count: 0, tokens: 0 },
    modified: { count: 0, tokensSaved: 0 },
    added: [],
    tokensBefore: 0,
    tokensAfter: 0,
    reachedTarget: false,
    error: failure,
  };
}

/** Runs `compactor` (its trigger first) on `input`; `undefined` when the trigger says no. Never throws. */
export async function compactHistory(compactor: TurnCompactor, input: CompactionInput): Promise<CompactionResult | undefined> {
  try {
    const trigger = (compactor as Partial<{ shouldCompact: (input: CompactionInput) => boolean }>).shouldCompact;
    if (typeof trigger === 'function' && !trigger.call(compactor, input)) return undefined;
    return await compactor.compact(input);
  } catch (error) {
    return unchangedBy(input, compactor.name, error);
  }
}
