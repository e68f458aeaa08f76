/**
 * The context window: the newest part of a long history that fits a token budget, sent to the
 * model in place of the whole history. It is a view — the stored session keeps every message —
 * cut the way compaction cuts (whole turns, system messages kept, tool calls never separated from
 * their results), and it costs what the window holds, not what the session holds: a turn on a
 * 100k-message session reads about as many messages as one on a 1k-message session.
 * @module
 */
import { advanceToFirstUserMessage, isPreambleMessage } from '../compaction/turns.js';
import type { Message } from '../message/message.js';
import { concatSequence, type MessageSequence } from '../session/message-log.js';
import type { TokenCounter } from '../tokens/counter.js';

/** What the model is sent: the messages, and whether they are the whole history. */
export interface ContextView {
  readonly messages: readonly Message[];
  readonly full: boolean;
}

/** Pinned messages of a history: never left out of a window (compaction never drops them either). */
interface PinnedScan {
  /** `flags[i]` is 1 when message `i` is pinned. */
  readonly flags: Uint8Array;
  /** Indices of the pinned messages, ascending. */
  readonly indices: readonly number[];
  /** True when every message so far is in the leading system preamble. */
  readonly inPreamble: boolean;
  /** Ids of calls made by pinned messages: their results are pinned with them. */
  readonly pinnedCalls: ReadonlySet<string>;
}

// A session's history is a frozen value shared by every model call of a turn: scanned once.
const scans = new WeakMap<MessageSequence, PinnedScan>();

/**
 * Scans `messages` for pinned ones. `carry` is the scan of what comes before them (its preamble
 * state and pinned calls); with `reuse`, the first `reuse` messages were scanned by `carry` itself
 * (an earlier history that `messages` extends) and only the rest are read.
 */
function scan(messages: MessageSequence, carry?: PinnedScan, reuse = 0): PinnedScan {
  const flags = new Uint8Array(messages.length);
  const indices: number[] = [];
  if (carry !== undefined && reuse > 0) {
    flags.set(carry.flags.subarray(0, reuse));
    indices.push(...carry.indices);
  }
  let inPreamble = carry?.inPreamble ?? true;
  const pinnedCalls = new Set(carry?.pinnedCalls);
  for (let i = reuse; i < messages.length; i++) {
    const message = messages.at(i) as Message;
    if (inPreamble && !isPreambleMessage(message)) inPreamble = false;
    const pinned = inPreamble || message.category === 'system' || (message.role === 'tool' && pinnedCalls.has(message.toolCallId as string));
    if (!pinned) continue;
    flags[i] = 1;
    indices.push(i);
    if (message.toolCalls !== undefined) for (const call of message.toolCalls) pinnedCalls.add(call.id);
  }
  return { flags, indices, inPreamble, pinnedCalls };
}

function remember(history: MessageSequence, result: PinnedScan): PinnedScan {
  // Only a frozen array is sure to hold the same messages next time.
  if (Object.isFrozen(history)) scans.set(history, result);
  return result;
}

function scanHistory(history: MessageSequence): PinnedScan {
  return scans.get(history) ?? remember(history, scan(history));
}

/**
 * Tells the window that `later` holds the messages of `earlier` followed by more (a turn's commit:
 * the caller knows it), so that its scan extends `earlier`'s: the next turn reads what the last one
 * added, not the whole session.
 */
export function continueHistory(earlier: MessageSequence, later: MessageSequence): void {
  const known = scans.get(earlier);
  if (known === undefined || later.length < earlier.length || scans.has(later)) return;
  remember(later, scan(later, known, earlier.length));
}

function isUserTurn(message: Message): boolean {
  return message.role === 'user' && message.category === 'dialog';
}

/**
 * The messages to send for `history` followed by `added` (the turn so far) within `budget` tokens
 * by `counter`: every pinned message (the leading system preamble, `system`-category messages and
 * their tool results), then the newest whole turns that fit. The latest turn is always kept whole,
 * even past the budget. `full` is true when nothing had to be left out.
 */
export function contextWindow(history: MessageSequence, added: readonly Message[], budget: number, counter: TokenCounter): ContextView {
  const h = history.length;
  const n = h + added.length;
  const at = (i: number): Message => (i < h ? history.at(i) : added[i - h]) as Message;
  const head = scanHistory(history);
  const tail = scan(added, head);
  const isPinned = (i: number): boolean => (i < h ? head.flags[i] : tail.flags[i - h]) === 1;
  let pinnedTokens = 0;
  for (const i of head.indices) pinnedTokens += counter.countMessage(at(i));
  for (const i of tail.indices) pinnedTokens += counter.countMessage(at(h + i));
  // Walk back from the newest message while the droppable ones fit beside the pinned ones.
  const room = budget - pinnedTokens;
  let used = 0;
  let start = 0;
  let lastUser = -1;
  for (let i = n - 1; i >= 0; i--) {
    const message = at(i);
    if (lastUser < 0 && isUserTurn(message)) lastUser = i;
    if (isPinned(i)) continue;
    const count = counter.countMessage(message);
    if (used + count > room) {
      start = i + 1;
      break;
    }
    used += count;
  }
  if (start === 0) return { messages: concatSequence(history, added), full: true };
  // The latest turn is kept whole: its user message may lie before where the budget ran out.
  for (let i = start - 1; lastUser < 0 && i >= 0; i--) if (isUserTurn(at(i))) lastUser = i;
  if (lastUser >= 0 && lastUser < start) start = lastUser;
  const candidate: Message[] = [];
  for (const i of head.indices) if (i < start) candidate.push(at(i));
  for (const i of tail.indices) if (h + i < start) candidate.push(at(h + i));
  const pinnedBefore = candidate.length;
  for (let i = start; i < n; i++) candidate.push(at(i));
  // From the first whole turn on: a tool result whose call was left out is left out with it.
  const view = advanceToFirstUserMessage(candidate);
  // A history without a usable turn start (no user message) is sent whole rather than emptied.
  if (view.length <= pinnedBefore) return { messages: concatSequence(history, added), full: true };
  return { messages: view, full: false };
}
