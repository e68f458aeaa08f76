/**
 * The compaction step of a turn's end (goaitools: after a final answer only, never inside a tool
 * loop), shared by the `SessionManager` and `chatWithState`. A failing compactor never fails the
 * turn: the history stays as it is and the report carries the error.
 * @module
 */
import type { CompactionInput, CompactionResult, Compactor, Strategy } from '../compaction/types.js';
import { ChatstateError, CollaboratorError, errorMessage } from '../errors.js';
import { traced } from '../internal/tracing.js';
import type { Message } from '../message/message.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/counter.js';

/** A report saying `messages` were left unchanged because of `error`. */
export function unchangedBy(messages: readonly Message[], strategy: string, error: unknown): CompactionResult {
  const failure = ChatstateError.isInstance(error)
    ? error
    : new CollaboratorError('INTERNAL', `Compaction failed: ${errorMessage(error)}`, { cause: error });
  return {
    messages,
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

/** True when the newest message is a final answer: an assistant message that calls no tool. */
function endsWithFinalAnswer(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return last !== undefined && last.role === 'assistant' && last.toolCalls === undefined;
}

/**
 * Runs `compactor` (its trigger first) on a history that ends with a final answer; `undefined`
 * when it does not, or when the trigger says no. Never throws: a failure is the report's `error`.
 */
export async function compactAfterAnswer(
  compactor: Compactor | Strategy,
  input: CompactionInput,
): Promise<CompactionResult | undefined> {
  if (!endsWithFinalAnswer(input.messages)) return undefined;
  try {
    const trigger = (compactor as Partial<Compactor>).shouldCompact;
    if (typeof trigger === 'function' && !trigger.call(compactor, input)) return undefined;
  } catch (error) {
    return unchangedBy(input.messages, compactor.name, error);
  }
  return traced(
    'chatstate.compaction',
    {
      attributes: () => ({
        'chatstate.compaction.strategy': compactor.name,
        'chatstate.compaction.messages_before': input.messages.length,
      }),
    },
    async (span) => {
      let result: CompactionResult;
      try {
        result = await compactor.compact(input);
      } catch (error) {
        result = unchangedBy(input.messages, compactor.name, error);
      }
      // A custom strategy's result is checked by the caller, not here: a malformed one must reach it as is.
      const failure = typeof result === 'object' && result !== null ? result.error : undefined;
      if (ChatstateError.isInstance(failure)) span.fail(failure.code, failure.message);
      span.set(() => compactionAttributes(result));
      return result;
    },
  );
}

/** What a compaction span tells: counts only, never the messages. */
function compactionAttributes(result: CompactionResult): Record<string, string | number | boolean> {
  return {
    'chatstate.compaction.strategy': result.strategy,
    'chatstate.compaction.compacted': result.compacted,
    'chatstate.compaction.tokens_before': result.tokensBefore,
    'chatstate.compaction.tokens_after': result.tokensAfter,
    'chatstate.compaction.messages_after': result.messages.length,
    'chatstate.compaction.removed_messages': result.removed.count,
  };
}

/** `compactAfterAnswer` on a session: the session with the compacted history (itself when nothing changed) and the report. */
export async function compactSession(
  session: Session,
  compactor: Compactor | Strategy,
  options: { readonly counter: TokenCounter; readonly signal?: AbortSignal | undefined },
): Promise<{ session: Session; result: CompactionResult | undefined }> {
  const result = await compactAfterAnswer(compactor, {
    messages: session.messages,
    counter: options.counter,
    ...(session.lastUsage === undefined ? {} : { lastUsage: session.lastUsage }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (result?.compacted !== true) return { session, result };
  try {
    // `withCompaction` validates what a custom strategy returned, keeps the measured usage only while
    // the prefix it measured is intact, and logs the compaction in the session's metadata.
    return { session: session.withCompaction(result, options.counter), result };
  } catch (error) {
    return { session, result: unchangedBy(session.messages, result.strategy, error) };
  }
}
