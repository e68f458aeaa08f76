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

  // Index of the first result of each call id, looked up when its call is emitted.
  const resultsByCall = new Map<string, number>();
  const callIds = new Set<string>();
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) callIds.add(call.id);
    if (message.role === 'tool' && message.toolCallId !== undefined && !resultsByCall.has(message.toolCallId)) {
      resultsByCall.set(message.toolCallId, i);
    }
  }

  const body: Message[] = [];
  const emitted = new Set<Message>();
  const seenCalls = new Set<string>();
  for (let i = start; i < messages.length; i++) {
    let message = messages[i] as Message;
    if (message.role === 'tool') {
      if (emitted.has(message)) continue;
      const id = message.toolCallId ?? '';
      const reason = !callIds.has(id) || !seenCalls.has(id) ? 'has no matching tool call before it' : 'duplicates an earlier result';
      warnings.push({ code: 'orphan_tool_result', message: `Dropped tool result for ${id}: it ${reason}`, messageId: message.id });
      continue;
    }
    const calls = message.toolCalls;
    if (calls !== undefined && calls.some((call) => seenCalls.has(call.id))) {
      // A call id used twice would make its result ambiguous: keep the first use only.
      warnings.push({ code: 'duplicate_tool_call', message: 'Removed tool calls whose ids were already used', messageId: message.id });
      const unique = calls.filter((call) => !seenCalls.has(call.id));
      message = unique.length > 0 || Message.text(message).trim().length > 0 ? Message.with(message, { toolCalls: unique }) : message;
      if (unique.length === 0 && Message.text(message).trim().length === 0) continue;
    }
    body.push(message);
    if (message.role !== 'assistant' || message.toolCalls === undefined) continue;
    for (const call of message.toolCalls) {
      seenCalls.add(call.id);
      const index = resultsByCall.get(call.id);
      const result = index !== undefined && index > i ? (messages[index] as Message) : undefined;
      if (result !== undefined) {
        body.push(result);
        emitted.add(result);
      } else {
        warnings.push({
          code: 'missing_tool_result',
          message: `Tool call ${call.id} (${call.name}) has no result; an error result was added`,
          messageId: message.id,
        });
        body.push(Message.tool(call.id, MISSING_RESULT_TEXT, { name: call.name, metadata: { synthesized: true } }));
      }
    }
  }
  return { system, body, warnings };
}
