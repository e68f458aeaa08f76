/**
 * Shared support for compaction tests: a small conversation builder with predictable ids, and the
 * checker of the invariants every strategy must keep.
 */
import { expect } from 'vitest';
import type { CompactionResult } from '../../src/compaction/types.js';
import { Message } from '../../src/message/message.js';
import type { TokenCounter } from '../../src/tokens/counter.js';

/** One turn of `conversation`. */
export interface TurnSpec {
  /** Tool rounds: each entry is the number of parallel calls in that round. */
  tools?: number[];
  /** A context message right before the user message. */
  context?: boolean;
  /** A system message after the user message. */
  system?: boolean;
  /** Text of the assistant message that makes the calls (none when absent). */
  callText?: string;
  /** Length of each tool output, in repetitions of "data ". @default 3 */
  outputWords?: number;
}

/** A history with a leading system prompt and one turn per spec; ids are `t<turn>-<n>`. */
export function conversation(turns: TurnSpec[], options: { system?: boolean } = {}): Message[] {
  const messages: Message[] = [];
  if (options.system !== false) messages.push(Message.system('You are helpful.', { id: 'sys' }));
  turns.forEach((spec, t) => {
    let n = 0;
    const id = (): string => `t${t}-${(n += 1)}`;
    if (spec.context === true) messages.push(Message.context(`context of turn ${t}`, { id: id() }));
    messages.push(Message.user(`question ${t}`, { id: id() }));
    if (spec.system === true) messages.push(Message.system(`note ${t}`, { id: id() }));
    (spec.tools ?? []).forEach((calls, round) => {
      const ids = Array.from({ length: calls }, (_, c) => `call_${t}_${round}_${c}`);
      messages.push(
        Message.assistant(spec.callText ?? '', {
          id: id(),
          toolCalls: ids.map((callId) => ({ id: callId, name: 'lookup', arguments: { q: callId } })),
        }),
      );
      for (const callId of ids.slice().reverse()) {
        messages.push(Message.tool(callId, 'data '.repeat(spec.outputWords ?? 3).trim(), { id: id(), name: 'lookup' }));
      }
    });
    messages.push(Message.assistant(`answer ${t}`, { id: id() }));
  });
  return messages;
}

/** Sum of `counter.countMessage` over `messages`. */
export function tokensOf(messages: readonly Message[], counter: TokenCounter): number {
  let total = 0;
  for (const message of messages) total += counter.countMessage(message);
  return total;
}

/** Index of the last user dialog message, or -1. */
export function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role === 'user' && message.category === 'dialog') return i;
  }
  return -1;
}

/** Problems with tool exchanges: a result without an earlier call, or a call without a later result. */
export function toolProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) called.add(call.id);
    if (message.role === 'tool') {
      const id = message.toolCallId as string;
      if (!called.has(id)) problems.push(`result ${id} has no earlier call`);
      answered.add(id);
    }
  }
  for (const id of called) if (!answered.has(id)) problems.push(`call ${id} has no result`);
  return problems;
}

/** Checks every compaction invariant of `result` for `input` (a valid history). */
export function expectInvariants(
  input: readonly Message[],
  snapshot: readonly Message[],
  result: CompactionResult,
  counter: TokenCounter,
  options: { composite?: boolean } = {},
): void {
  const output = result.messages;
  // 5. The input is not mutated.
  expect(input.length).toBe(snapshot.length);
  input.forEach((message, i) => expect(message).toBe(snapshot[i]));

  // 1. System-category messages are all kept, in order, as the same values.
  const systemIn = input.filter((m) => m.category === 'system');
  const systemOut = output.filter((m) => m.category === 'system');
  expect(systemOut).toEqual(systemIn);
  systemOut.forEach((message, i) => expect(message).toBe(systemIn[i]));

  // Kept messages keep their relative order.
  const position = new Map(input.map((m, i) => [m.id, i]));
  const added = new Set(result.added.map((m) => m.id));
  let previous = -1;
  for (const message of output) {
    if (added.has(message.id)) continue;
    const at = position.get(message.id);
    expect(at, `output message ${message.id} comes from the input`).toBeDefined();
    expect(at as number).toBeGreaterThan(previous);
    previous = at as number;
  }

  // 2. No orphan call or result (the input has none).
  expect(toolProblems(input)).toEqual([]);
  expect(toolProblems(output)).toEqual([]);

  // 3. The kept dialog starts at a user message when something was dropped.
  if (result.removed.count > 0) {
    const firstDialog = output.find((m) => m.category === 'dialog' || m.category === 'tool_output');
    if (firstDialog !== undefined) expect(firstDialog.role).toBe('user');
  }

  // 4. The latest turn is kept whole and unchanged (the same values, at the end).
  const last = lastUserIndex(input);
  if (last >= 0) {
    const turn = input.slice(last);
    const tail = output.slice(output.length - turn.length);
    expect(tail.length).toBe(turn.length);
    tail.forEach((message, i) => expect(message).toBe(turn[i]));
  }

  // 6. The report adds up. A composite reports what its parts did, so a message one part added or
  // modified and a later part removed counts in both.
  if (!result.compacted) expect(output).toBe(input);
  const outputIds = new Set(output.map((m) => m.id));
  const removed = input.filter((m) => !outputIds.has(m.id));
  const lost = result.added.filter((m) => !outputIds.has(m.id));
  const modified = output.filter((m) => position.has(m.id) && !input.includes(m));
  if (options.composite === true) {
    expect(result.removed.count).toBe(removed.length + lost.length);
    expect(result.modified.count).toBeGreaterThanOrEqual(modified.length);
  } else {
    expect(lost).toEqual([]);
    expect(result.removed.count).toBe(removed.length);
    expect(result.modified.count).toBe(modified.length);
    expect(result.removed.tokens).toBe(tokensOf(removed, counter));
  }
  expect(output.length).toBe(input.length - result.removed.count + result.added.length);
  expect(result.tokensBefore).toBe(tokensOf(input, counter));
  expect(result.tokensAfter).toBe(tokensOf(output, counter));
  expect(result.tokensAfter).toBe(
    result.tokensBefore - result.removed.tokens - result.modified.tokensSaved + tokensOf(result.added, counter),
  );
  if (removed.length === 0) {
    expect(result.removed.firstId).toBeUndefined();
    expect(result.removed.lastId).toBeUndefined();
  } else if (options.composite !== true) {
    expect(result.removed.firstId).toBe(removed[0]?.id);
    expect(result.removed.lastId).toBe(removed.at(-1)?.id);
  }
  expect(Object.isFrozen(result)).toBe(true);
  expect(Object.isFrozen(output)).toBe(result.compacted ? true : Object.isFrozen(input));
}
