/**
 * The provider-independent half of every `to`: split off the leading system preamble and put the
 * history in an order every provider accepts — each tool result right after the call it answers,
 * no orphan results, no call without a result. Formats then only map shapes.
 * @module
 */
import { Message } from '../message/message.js';
import type { FormatWarning } from './types.js';

/** A history ready to be mapped onto a provider's shapes. */
export interface PreparedHistory {
  /** Leading system-role messages (the provider's system slot). */
  readonly system: readonly Message[];
  /** Everything else, tool exchanges made contiguous and complete. */
  readonly body: readonly Message[];
  readonly warnings: FormatWarning[];
}

/** Content of a result synthesized for a call that never got one (the provider demands one). */
export const MISSING_RESULT_TEXT = 'Error: no result was recorded for this tool call.';

/** Splits off the leading system messages and repairs tool exchanges, reporting every change as a warning. */
export function prepareHistory(messages: readonly Message[]): PreparedHistory {
  const warnings: FormatWarning[] = [];
  let start = 0;
  while (start < messages.length && messages[start]?.role === 'system') start += 1;
  const system = messages.slice(0, start);

  // Each result belongs to the nearest call with its id before it: a model that reuses ids turn
  // after turn (`call_0` every time) still gets each result paired with its own call.
  const callsById = new Map<string, number>(); // call id -> index of the latest message making it
  const resultsOf = new Map<string, number[]>(); // `${message index}:${call id}` -> result indexes
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Message;
    for (const call of message.toolCalls ?? []) callsById.set(call.id, i);
    if (message.role !== 'tool' || message.toolCallId === undefined) continue;
    const owner = callsById.get(message.toolCallId);
    if (owner === undefined) continue;
    const key = `${owner}:${message.toolCallId}`;
    const at = resultsOf.get(key);
    if (at === undefined) resultsOf.set(key, [i]);
    else at.push(i);
  }
  const usedIds = new Set<string>();
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Message;
    for (const call of message.toolCalls ?? []) usedIds.add(call.id);
    if (message.toolCallId !== undefined) usedIds.add(message.toolCallId);
  }
  /** A fresh id for a reuse of `id`: providers want every call id once per request. */
  const renamed = (id: string): string => {
    let n = 2;
    while (usedIds.has(`${id}_${n}`)) n += 1;
    usedIds.add(`${id}_${n}`);
    return `${id}_${n}`;
  };

  const body: Message[] = [];
  const emitted = new Set<number>();
  const seenCalls = new Set<string>();
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === 'tool') {
      if (emitted.has(i)) continue;
      const id = message.toolCallId ?? '';
      const reason = seenCalls.has(id) ? 'duplicates an earlier result' : 'has no matching tool call before it';
      warnings.push({
        code: 'orphan_tool_result',
        message: `Dropped tool result for ${id}: it ${reason}`,
        messageId: message.id,
      });
      continue;
    }
    const calls = message.toolCalls;
    if (calls === undefined || calls.length === 0) {
      body.push(message);
      continue;
    }
    const results: Message[] = [];
    const wireCalls = calls.map((call) => {
      const index = resultsOf.get(`${i}:${call.id}`)?.find((at) => !emitted.has(at));
      if (index !== undefined) emitted.add(index);
      const id = seenCalls.has(call.id) ? renamed(call.id) : call.id;
      seenCalls.add(call.id);
      if (id !== call.id)
        warnings.push({
          code: 'renamed_tool_call',
          message: `Tool call id ${call.id} was used before: sent as ${id}, with its result`,
          messageId: message.id,
        });
      if (index !== undefined) {
        const result = messages[index] as Message;
        results.push(id === call.id ? result : Message.with(result, { toolCallId: id }));
      } else {
        warnings.push({
          code: 'missing_tool_result',
          message: `Tool call ${call.id} (${call.name}) has no result; an error result was added`,
          messageId: message.id,
        });
        results.push(Message.tool(id, MISSING_RESULT_TEXT, { name: call.name, metadata: { synthesized: true } }));
      }
      return id === call.id ? call : { ...call, id };
    });
    const changed = wireCalls.some((call, index) => call !== calls[index]);
    body.push(changed ? Message.with(message, { toolCalls: wireCalls }) : message, ...results);
  }
  // Dropping orphan results can leave system messages at the front of the body: they lead the
  // history now, as they will when the written history is read back and written again.
  let lead = 0;
  while (lead < body.length && body[lead]?.role === 'system') lead += 1;
  if (lead > 0) system.push(...body.splice(0, lead));
  return { system, body, warnings };
}
