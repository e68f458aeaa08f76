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

/** True when a message says something besides its tool calls. */
function hasContent(message: Message): boolean {
  if (typeof message.content === 'string') return message.content.trim().length > 0;
  return message.content.some((part) => part.type !== 'text' || part.text.trim().length > 0);
}

/** Splits off the leading system messages and repairs tool exchanges, reporting every change as a warning. */
export function prepareHistory(messages: readonly Message[]): PreparedHistory {
  const warnings: FormatWarning[] = [];
  let start = 0;
  while (start < messages.length && messages[start]?.role === 'system') start += 1;
  const system = messages.slice(0, start);

  // Where the results of each call id are, so each call can take the first one that follows it.
  const resultsByCall = new Map<string, number[]>();
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role !== 'tool' || message.toolCallId === undefined) continue;
    const at = resultsByCall.get(message.toolCallId);
    if (at === undefined) resultsByCall.set(message.toolCallId, [i]);
    else at.push(i);
  }

  const body: Message[] = [];
  const emitted = new Set<number>();
  const seenCalls = new Set<string>();
  for (let i = start; i < messages.length; i++) {
    let message = messages[i] as Message;
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
    if (calls !== undefined && calls.some((call) => seenCalls.has(call.id))) {
      // A call id used twice would make its result ambiguous: keep the first use only.
      warnings.push({
        code: 'duplicate_tool_call',
        message: 'Removed tool calls whose ids were already used',
        messageId: message.id,
      });
      const unique = calls.filter((call) => !seenCalls.has(call.id));
      if (unique.length === 0 && !hasContent(message)) continue;
      message = Message.with(message, { toolCalls: unique });
    }
    body.push(message);
    for (const call of message.toolCalls ?? []) {
      seenCalls.add(call.id);
      const index = resultsByCall.get(call.id)?.find((at) => at > i);
      if (index !== undefined) {
        body.push(messages[index] as Message);
        emitted.add(index);
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
  // Dropping orphan results can leave system messages at the front of the body: they lead the
  // history now, as they will when the written history is read back and written again.
  let lead = 0;
  while (lead < body.length && body[lead]?.role === 'system') lead += 1;
  if (lead > 0) system.push(...body.splice(0, lead));
  return { system, body, warnings };
}
