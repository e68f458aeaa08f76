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

/** Bit flags of one message in a scan. */
const PINNED = 1;
const USER_TURN = 2;
/** A token count not taken yet. */
const UNCOUNTED = -1;

/**
 * Per-message facts of histories that extend one another, in typed arrays shared the way
 * `MessageLog` shares its backing array: a scan sees the first `length` entries, and only the
 * newest scan over them (whose length is `filled`) may write past that. The window's walk then
 * reads two typed arrays instead of visiting each message object (cache misses, not arithmetic,
 * were most of a windowed turn's runtime). Token counts are kept for one counter, the first that
 * asks, and taken lazily.
 */
interface Facts {
  flags: Uint8Array;
  counts: Int32Array;
  filled: number;
  counter: TokenCounter | undefined;
}

/** What a scan of a history knows, and what it carries over to the messages after it. */
interface HistoryScan {
  readonly facts: Facts;
  readonly length: number;
  /** Indices of the pinned messages (never left out of a window), ascending. */
  readonly pinned: readonly number[];
  /** True when every message so far is in the leading system preamble. */
  readonly inPreamble: boolean;
  /** Ids of calls made by pinned messages: their results are pinned with them. */
  readonly pinnedCalls: ReadonlySet<string>;
  /** Where a stepped window's replay got to over this history (`stepStart`), carried to the histories that extend it. */
  steps?: StepReplay;
}

/** A stepped window's replay over the first `length` messages, for one counter and pair of marks. */
interface StepReplay {
  readonly counter: TokenCounter;
  readonly high: number;
  readonly low: number;
  length: number;
  droppable: number;
  start: number;
  startTokens: number;
  /** Turn boundaries so far, and the droppable tokens before each. */
  readonly boundaries: number[];
  readonly before: number[];
}

/** The running state of a scan; `pinned` holds what it found itself. */
interface ScanState {
  inPreamble: boolean;
  readonly pinnedCalls: Set<string>;
  readonly pinned: number[];
}

// A session's history is a frozen value shared by every model call of a turn: scanned once.
const scans = new WeakMap<MessageSequence, HistoryScan>();

function newFacts(capacity: number, counter?: TokenCounter): Facts {
  return { flags: new Uint8Array(capacity), counts: new Int32Array(capacity).fill(UNCOUNTED), filled: 0, counter };
}

/** Makes room for `length` entries, keeping the facts object (older scans hold it too). */
function reserve(facts: Facts, length: number): void {
  if (facts.flags.length >= length) return;
  const capacity = Math.max(length, facts.flags.length * 2, 64);
  const flags = new Uint8Array(capacity);
  flags.set(facts.flags.subarray(0, facts.filled));
  const counts = new Int32Array(capacity).fill(UNCOUNTED);
  counts.set(facts.counts.subarray(0, facts.filled));
  facts.flags = flags;
  facts.counts = counts;
}

/** Writes the flags of messages `[from, messages.length)` into `flags`, advancing `state`. */
function mark(messages: MessageSequence, from: number, flags: Uint8Array, state: ScanState): void {
  for (let i = from; i < messages.length; i++) {
    const message = messages.at(i) as Message;
    if (state.inPreamble && !isPreambleMessage(message)) state.inPreamble = false;
    const pinned =
      state.inPreamble ||
      message.category === 'system' ||
      (message.role === 'tool' && state.pinnedCalls.has(message.toolCallId as string));
    let bits = isUserTurn(message) ? USER_TURN : 0;
    if (pinned) {
      bits |= PINNED;
      state.pinned.push(i);
      if (message.toolCalls !== undefined) for (const call of message.toolCalls) state.pinnedCalls.add(call.id);
    }
    flags[i] = bits;
  }
}

function startState(carry: HistoryScan | undefined): ScanState {
  return { inPreamble: carry?.inPreamble ?? true, pinnedCalls: new Set(carry?.pinnedCalls), pinned: [] };
}

/**
 * Scans `history`. With `carry`, the scan of an earlier history that `history` extends, only the
 * messages after it are read, into `carry`'s facts when it is the newest over them (else a copy).
 */
function scan(history: MessageSequence, carry?: HistoryScan): HistoryScan {
  const reuse = carry?.length ?? 0;
  let facts: Facts;
  if (carry === undefined) {
    facts = newFacts(history.length);
  } else if (carry.facts.filled === reuse) {
    facts = carry.facts;
  } else {
    // Another history already extended `carry` differently: branch off with a copy of the prefix.
    facts = newFacts(history.length, carry.facts.counter);
    facts.flags.set(carry.facts.flags.subarray(0, reuse));
    facts.counts.set(carry.facts.counts.subarray(0, reuse));
  }
  reserve(facts, history.length);
  const state = startState(carry);
  facts.counts.fill(UNCOUNTED, reuse, history.length);
  mark(history, reuse, facts.flags, state);
  facts.filled = history.length;
  const pinned = carry === undefined ? state.pinned : carry.pinned.concat(state.pinned);
  return { facts, length: history.length, pinned, inPreamble: state.inPreamble, pinnedCalls: state.pinnedCalls };
}

function remember(history: MessageSequence, result: HistoryScan): HistoryScan {
  // Only a frozen array (or log) is sure to hold the same messages next time.
  if (Object.isFrozen(history)) scans.set(history, result);
  return result;
}

function scanHistory(history: MessageSequence): HistoryScan {
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
  const extended = scan(later, known);
  // The replay goes on from where the earlier history's stopped, handed over rather than copied (a
  // long session has a boundary per turn): the earlier history, if asked again, replays afresh.
  extended.steps = known.steps;
  known.steps = undefined;
  remember(later, extended);
}

function isUserTurn(message: Message): boolean {
  return message.role === 'user' && message.category === 'dialog';
}

/** The token count of history message `i` by `counter`, from the facts when they keep this counter's. */
function countAt(facts: Facts, history: MessageSequence, i: number, counter: TokenCounter): number {
  facts.counter ??= counter;
  if (facts.counter !== counter) return counter.countMessage(history.at(i) as Message);
  let count = facts.counts[i] as number;
  if (count === UNCOUNTED) {
    count = counter.countMessage(history.at(i) as Message);
    facts.counts[i] = count;
  }
  return count;
}

/**
 * The messages to send for `history` followed by `added` (the turn so far) within `budget` tokens
 * by `counter`: every pinned message (the leading system preamble, `system`-category messages and
 * their tool results), then the newest whole turns that fit. The latest turn is always kept whole,
 * even past the budget. `full` is true when nothing had to be left out.
 */
export function contextWindow(
  history: MessageSequence,
  added: readonly Message[],
  budget: number,
  counter: TokenCounter,
): ContextView {
  const h = history.length;
  const n = h + added.length;
  const at = (i: number): Message => (i < h ? history.at(i) : added[i - h]) as Message;
  const head = scanHistory(history);
  const { facts } = head;
  // The turn so far is scanned on its own each call: it is short, and not part of the history.
  const tail = startState(head);
  const tailFlags = new Uint8Array(added.length);
  mark(added, 0, tailFlags, tail);
  const flagsAt = (i: number): number => (i < h ? facts.flags[i] : tailFlags[i - h]) as number;
  const tokensAt = (i: number): number =>
    i < h ? countAt(facts, history, i, counter) : counter.countMessage(added[i - h] as Message);
  let pinnedTokens = 0;
  for (const i of head.pinned) pinnedTokens += tokensAt(i);
  for (const i of tail.pinned) pinnedTokens += tokensAt(h + i);
  // Walk back from the newest message while the droppable ones fit beside the pinned ones.
  const room = budget - pinnedTokens;
  let used = 0;
  let start = 0;
  let lastUser = -1;
  for (let i = n - 1; i >= 0; i--) {
    const bits = flagsAt(i);
    if (lastUser < 0 && (bits & USER_TURN) !== 0) lastUser = i;
    if ((bits & PINNED) !== 0) continue;
    const count = tokensAt(i);
    if (used + count > room) {
      start = i + 1;
      break;
    }
    used += count;
  }
  if (start === 0) return { messages: concatSequence(history, added), full: true };
  // The latest turn is kept whole: its user message may lie before where the budget ran out.
  for (let i = start - 1; lastUser < 0 && i >= 0; i--) if ((flagsAt(i) & USER_TURN) !== 0) lastUser = i;
  if (lastUser >= 0 && lastUser < start) start = lastUser;
  const candidate: Message[] = [];
  for (const i of head.pinned) if (i < start) candidate.push(at(i));
  for (const i of tail.pinned) if (h + i < start) candidate.push(at(h + i));
  const pinnedBefore = candidate.length;
  for (let i = start; i < n; i++) candidate.push(at(i));
  // From the first whole turn on: a tool result whose call was left out is left out with it.
  const view = advanceToFirstUserMessage(candidate);
  // A history without a usable turn start (no user message) is sent whole rather than emptied.
  if (view.length <= pinnedBefore) return { messages: concatSequence(history, added), full: true };
  return { messages: view, full: false };
}

/**
 * Where a window that cuts in steps starts in `history`: a turn boundary (or 0), the same for
 * every request until the next cut, so the prompt's prefix stays byte-identical and the
 * provider's prompt cache keeps hitting. It is replayed from the start of the history, turn by
 * turn: when the messages since the start plus one more turn the size of the last one would pass
 * `high` tokens, the start moves to the first turn from which at most `low` remain. The replay
 * depends on nothing but the history, so every process (and every server) cuts in the same place.
 */
function stepStart(
  history: MessageSequence,
  head: HistoryScan,
  counter: TokenCounter,
  high: number,
  low: number,
): number {
  const { facts } = head;
  let replay = head.steps;
  if (
    replay === undefined ||
    replay.counter !== counter ||
    replay.high !== high ||
    replay.low !== low ||
    replay.length > history.length
  ) {
    replay = { counter, high, low, length: 0, droppable: 0, start: 0, startTokens: 0, boundaries: [], before: [] };
  }
  for (let i = replay.length; i < history.length; i++) {
    const bits = facts.flags[i] as number;
    if ((bits & USER_TURN) !== 0) turnStarts(replay, i);
    if ((bits & PINNED) === 0) replay.droppable += countAt(facts, history, i, counter);
  }
  replay.length = history.length;
  head.steps = replay;
  // The turn in flight starts where the history ends; the next turn's replay takes the same decision there.
  // Checked on a copy of the position (the arrays get one entry more, taken back after).
  const inFlight = { ...replay };
  turnStarts(inFlight, history.length);
  replay.boundaries.pop();
  replay.before.pop();
  return inFlight.start;
}

/**
 * A turn starts at message `i`: the replay cuts when what the window holds plus one more turn the
 * size of the last would pass `high`, to the first boundary from which at most `low` remain.
 */
function turnStarts(replay: StepReplay, i: number): void {
  const { boundaries, before } = replay;
  const lastTokens = before.length === 0 ? 0 : replay.droppable - (before[before.length - 1] as number);
  boundaries.push(i);
  before.push(replay.droppable);
  if (replay.droppable - replay.startTokens + lastTokens <= replay.high) return;
  let lo = 0;
  let hi = boundaries.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((before[mid] as number) < replay.startTokens || replay.droppable - (before[mid] as number) > replay.low)
      lo = mid + 1;
    else hi = mid;
  }
  replay.start = boundaries[lo] as number;
  replay.startTokens = before[lo] as number;
}

/** The marks of a window that cuts in steps: it holds up to `high` tokens, and a cut leaves at most `low`. */
export interface WindowMarks {
  readonly high: number;
  readonly low: number;
}

/**
 * Like `contextWindow`, but cut in steps (`stepStart`): between cuts the request starts at the
 * same message, so consecutive turns share their prefix. Falls back to the tightest window when
 * the turn in flight outgrows `high` before the next cut.
 */
export function steppedWindow(
  history: MessageSequence,
  added: readonly Message[],
  marks: WindowMarks,
  counter: TokenCounter,
): ContextView {
  const head = scanHistory(history);
  const start = stepStart(history, head, counter, marks.high, marks.low);
  const { facts } = head;
  let tokens = 0;
  for (const i of head.pinned) tokens += countAt(facts, history, i, counter);
  for (let i = start; i < history.length; i++)
    if (((facts.flags[i] as number) & PINNED) === 0) tokens += countAt(facts, history, i, counter);
  for (const message of added) tokens += counter.countMessage(message);
  if (tokens > marks.high) return contextWindow(history, added, marks.high, counter);
  if (start === 0) return { messages: concatSequence(history, added), full: true };
  const candidate: Message[] = [];
  for (const i of head.pinned) if (i < start) candidate.push(history.at(i) as Message);
  const pinnedBefore = candidate.length;
  for (let i = start; i < history.length; i++) candidate.push(history.at(i) as Message);
  candidate.push(...added);
  // The same rule as the tight window: whole tool exchanges, from a turn's start.
  const view = advanceToFirstUserMessage(candidate);
  if (view.length <= pinnedBefore) return { messages: concatSequence(history, added), full: true };
  return { messages: view, full: false };
}
