/**
 * Finish reasons, one rule for every adapter: `tool_calls` exactly when the answer has calls to
 * run (a forced tool ends with `stop` at OpenAI; `tool_use` may come without calls), else the
 * provider's reason through the adapter's table, else `other` (reasons added to an API later).
 * @module
 */
import type { Message } from '../message/message.js';
import type { FinishReason } from './types.js';

/** A provider's finish reasons and ours; unlisted reasons become `other`. */
export type FinishReasonTable = Readonly<Record<string, Exclude<FinishReason, 'tool_calls'>>>;

/** Our finish reason for `message`, which the provider ended with `reason`. */
export function finishReasonOf(message: Message, reason: unknown, table: FinishReasonTable): FinishReason {
  if (message.toolCalls !== undefined && message.toolCalls.length > 0) return 'tool_calls';
  return typeof reason === 'string' && Object.hasOwn(table, reason) ? (table[reason] as FinishReason) : 'other';
}
