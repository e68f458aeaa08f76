/**
 * The shared analysis every compaction strategy builds on: per-message token counts and the turn
 * structure of a history — which messages are pinned (category `system`, never dropped) and where a
 * history may be cut (a user turn starts and no tool exchange spans the cut). Both are computed in
 * one linear pass each, into typed arrays, so compacting 100k messages costs a few milliseconds.
 * @module
 */
import { copyRange } from '../freeze.js';
import type { Message } from '../message/message.js';
import type { ToolCall } from '../message/schema.js';
import type { TokenCounter } from '../tokens/counter.js';

/** Token counts of a history, one per message, by one counter. */
export interface HistoryCounts {
  /** `counts[i]` is `counter.countMessage(messages[i])`. */
  readonly counts: Float64Array;
  /** Sum of `counts`. */
  readonly total: number;
}

/** The turn structure of a history. */
export interface Turns {
  /**
   * `pinned[i]` is 1 when message `i` must never be dropped: category `system`, the leading
   * system-role preamble (context messages before the first user or assistant message), or a
   * result of a pinned call.
   */
  readonly pinned: Uint8Array;
  /** Number of pinned messages. */
  readonly pinnedCount: number;
  /**
   * Valid cut points, ascending: index `c` where a turn starts (a user dialog message, together with
   * the context and system messages right before it) and no tool exchange spans `c`. Keeping the
   * pinned messages before `c` plus `messages.slice(c)` is always tool-safe.
   */
  readonly cuts: Int32Array;
  /** `cutTokens[k]`: tokens of the droppable (unpinned) messages before `cuts[k]`. */
  readonly cutTokens: Float64Array;
  /** `cutMessages[k]`: number of droppable messages before `cuts[k]`. */
  readonly cutMessages: Int32Array;
  /** Tokens of all droppable messages. */
  readonly droppableTokens: number;
  /** Tokens of all messages. */
  readonly total: number;
  /** Index of the last user dialog message, or -1. */
  readonly lastUser: number;
}

// Counts of frozen histories (a Session's messages) are remembered, so a trigger and the strategy
// that follows it read the counter once between them. Only frozen arrays: a mutable array could
// change between the two calls and make the remembered counts lie.
const remembered = new WeakMap<readonly Message[], { counter: TokenCounter; counts: HistoryCounts }>();

/** The counts remembered for a frozen `messages` by `counter`, if any. */
function recall(messages: readonly Message[], counter: TokenCounter): HistoryCounts | undefined {
  if (!Object.isFrozen(messages)) return undefined;
  const known = remembered.get(messages);
  return known !== undefined && known.counter === counter ? known.counts : undefined;
}

function remember(messages: readonly Message[], counter: TokenCounter, counts: HistoryCounts): void {
  if (Object.isFrozen(messages)) remembered.set(messages, { counter, counts });
}

/** Counts every message once (the counter's per-message cache makes re-counting an old message free). */
export function countMessages(messages: readonly Message[], counter: TokenCounter): HistoryCounts {
  const known = recall(messages, counter);
  if (known !== undefined) return known;
  const n = messages.length;
  const counts = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const count = counter.countMessage(messages[i] as Message);
    counts[i] = count;
    total += count;
  }
  const result: HistoryCounts = { counts, total };
  remember(messages, counter, result);
  return result;
}

/**
 * Counts and finds the turns together: one pass over the messages instead of two when the counts
 * are not known yet (each pass over a large history is dominated by touching every message).
 */
export function countAndFindTurns(
  messages: readonly Message[],
  counter: TokenCounter,
): { counts: HistoryCounts; turns: Turns } {
  const known = recall(messages, counter);
  if (known !== undefined) return { counts: known, turns: findTurns(messages, known.counts) };
  const counts = new Float64Array(messages.length);
  const turns = findTurns(messages, counts, counter);
  const result: HistoryCounts = { counts, total: turns.total };
  remember(messages, counter, result);
  return { counts: result, turns };
}

function hasCall(calls: readonly ToolCall[], id: string): boolean {
  for (let j = 0; j < calls.length; j++) if ((calls[j] as ToolCall).id === id) return true;
  return false;
}

function indexCalls(messages: readonly Message[], end: number): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < end; i++) {
    const calls = (messages[i] as Message).toolCalls;
    if (calls !== undefined) for (const call of calls) index.set(call.id, i);
  }
  return index;
}

/**
 * Finds the pinned messages and the valid cut points in one pass. A tool result closes the
 * exchange opened by its call: every cut candidate after the call is withdrawn (a stack pop, so the
 * pass stays linear however the results are ordered). With `counter`, `counts` is filled on the way.
 */
export function findTurns(messages: readonly Message[], counts: Float64Array, counter?: TokenCounter): Turns {
  const n = messages.length;
  const pinned = new Uint8Array(n);
  const cuts = new Int32Array(n);
  const cutTokens = new Float64Array(n);
  const cutMessages = new Int32Array(n);
  let top = 0;
  let pinnedCount = 0;
  let dropTokens = 0;
  let dropCount = 0;
  let lastUser = -1;
  // Start of the current run of context/system messages, which belongs to the turn that follows it.
  let runStart = -1;
  let runTokens = 0;
  let runCount = 0;
  // Results almost always answer the latest assistant message with calls: check it first and only
  // index every call (once) when a result answers an older one.
  let lastCallAt = -1;
  let lastCalls: readonly ToolCall[] | undefined;
  let callIndex: Map<string, number> | undefined;

  let total = 0;
  // The leading system-role messages are the preamble every format sends as the system prompt
  // (context messages included): compaction never rewrites a system prompt.
  let inPreamble = true;
  for (let i = 0; i < n; i++) {
    const message = messages[i] as Message;
    if (counter !== undefined) counts[i] = counter.countMessage(message);
    const count = counts[i] as number;
    total += count;
    const category = message.category;
    if (inPreamble && !isPreambleMessage(message)) inPreamble = false;
    let isPinned = category === 'system' || inPreamble;
    if (message.role === 'tool') {
      const id = message.toolCallId as string;
      let callAt = -1;
      if (lastCalls !== undefined && hasCall(lastCalls, id)) callAt = lastCallAt;
      else {
        callIndex ??= indexCalls(messages, i);
        callAt = callIndex.get(id) ?? -1;
      }
      if (callAt >= 0) {
        while (top > 0 && (cuts[top - 1] as number) > callAt) top -= 1;
        // A pinned message that calls tools keeps its results with it.
        if (pinned[callAt] === 1) isPinned = true;
      }
    }
    const calls = message.toolCalls;
    if (calls !== undefined) {
      lastCallAt = i;
      lastCalls = calls;
      if (callIndex !== undefined) for (const call of calls) callIndex.set(call.id, i);
    }
    if (isPinned) {
      pinned[i] = 1;
      pinnedCount += 1;
      if (runStart < 0) {
        runStart = i;
        runTokens = dropTokens;
        runCount = dropCount;
      }
      continue;
    }
    if (category === 'context') {
      if (runStart < 0) {
        runStart = i;
        runTokens = dropTokens;
        runCount = dropCount;
      }
    } else if (category === 'dialog' && message.role === 'user') {
      if (runStart >= 0) {
        cuts[top] = runStart;
        cutTokens[top] = runTokens;
        cutMessages[top] = runCount;
      } else {
        cuts[top] = i;
        cutTokens[top] = dropTokens;
        cutMessages[top] = dropCount;
      }
      top += 1;
      lastUser = i;
      runStart = -1;
    } else {
      runStart = -1;
    }
    dropTokens += count;
    dropCount += 1;
  }
  return {
    pinned,
    pinnedCount,
    cuts: cuts.subarray(0, top),
    cutTokens: cutTokens.subarray(0, top),
    cutMessages: cutMessages.subarray(0, top),
    droppableTokens: dropTokens,
    total,
    lastUser,
  };
}

/**
 * True for a message that can belong to the preamble: a system-role message that is not a summary
 * (a summary stands for dropped history and is rolled into the next one).
 */
export function isPreambleMessage(message: Message): boolean {
  return message.role === 'system' && message.metadata.summary !== true;
}

/** Messages compaction may drop: all but the system-category ones and the leading preamble. */
export function countDroppable(messages: readonly Message[]): number {
  let count = 0;
  let inPreamble = true;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (inPreamble && !isPreambleMessage(message)) inPreamble = false;
    if (!inPreamble && message.category !== 'system') count += 1;
  }
  return count;
}

/** What keeping the suffix from one cut point removes. */
export interface Cut {
  /** The new history: the pinned messages before the cut, then everything from the cut. */
  readonly messages: Message[];
  /** Messages removed. */
  readonly count: number;
  /** Id of the oldest removed message. */
  readonly firstId: string | undefined;
  /** Id of the newest removed message. */
  readonly lastId: string | undefined;
}

/** Keeps the pinned messages before `cut` (in order) and every message from `cut` on. */
export function keepFrom(messages: readonly Message[], pinned: Uint8Array, cut: number, removedCount: number): Cut {
  const pinnedBefore = cut - removedCount;
  // One copy of the suffix, widened by the pinned count, whose head is then overwritten by the
  // pinned messages: no second copy of a 100k-message suffix.
  const out = copyRange(messages, cut - pinnedBefore);
  let first = -1;
  let last = -1;
  if (pinnedBefore === 0) {
    if (cut > 0) {
      first = 0;
      last = cut - 1;
    }
  } else {
    let j = 0;
    for (let i = 0; i < cut; i++) {
      if (pinned[i] === 1) {
        out[j] = messages[i] as Message;
        j += 1;
      } else {
        if (first < 0) first = i;
        last = i;
      }
    }
  }
  return {
    messages: out,
    count: removedCount,
    firstId: first < 0 ? undefined : (messages[first] as Message).id,
    lastId: last < 0 ? undefined : (messages[last] as Message).id,
  };
}

/**
 * goaitools' `AdvanceToFirstUserMessage`: the history from its first turn on (the first user
 * message, with the context right before it), keeping every system-category message. Tool
 * exchanges are never split. With no user message at all only the system messages remain.
 */
export function advanceToFirstUserMessage(messages: readonly Message[]): readonly Message[] {
  const n = messages.length;
  // Counts are irrelevant here; zeros keep the pass allocation-light.
  const turns = findTurns(messages, new Float64Array(n));
  if (turns.cuts.length === 0) {
    if (turns.pinnedCount === n) return messages;
    return messages.filter((_, i) => turns.pinned[i] === 1);
  }
  const removed = turns.cutMessages[0] as number;
  if (removed === 0) return messages;
  return keepFrom(messages, turns.pinned, turns.cuts[0] as number, removed).messages;
}
