/**
 * History statistics: messages by role and category, tokens by category, tool calls by name.
 * @module
 */
import type { Message } from '../message/message.js';
import type { Category, Role } from '../message/schema.js';
import type { TokenCounter } from '../tokens/counter.js';

/** Statistics of a history. */
export interface HistoryStats {
  readonly messages: number;
  readonly byRole: Readonly<Record<Role, number>>;
  readonly byCategory: Readonly<Record<Category, number>>;
  readonly tokens: {
    readonly total: number;
    readonly byCategory: Readonly<Record<Category, number>>;
    readonly counter: string;
  };
  readonly toolCalls: { readonly total: number; readonly byName: Readonly<Record<string, number>> };
  readonly toolResults: number;
}

/** Computes statistics of `messages`, counting tokens with `counter`. */
export function historyStats(messages: readonly Message[], counter: TokenCounter): HistoryStats {
  const byRole: Record<Role, number> = { system: 0, user: 0, assistant: 0, tool: 0 };
  const byCategory: Record<Category, number> = { system: 0, context: 0, dialog: 0, tool_output: 0 };
  const tokensByCategory: Record<Category, number> = { system: 0, context: 0, dialog: 0, tool_output: 0 };
  // A null-prototype map: tool names come from models and may be "__proto__".
  const byName: Record<string, number> = Object.create(null) as Record<string, number>;
  let total = 0;
  let calls = 0;
  for (const message of messages) {
    byRole[message.role] += 1;
    byCategory[message.category] += 1;
    const count = counter.countMessage(message);
    tokensByCategory[message.category] += count;
    total += count;
    for (const call of message.toolCalls ?? []) {
      calls += 1;
      byName[call.name] = (byName[call.name] ?? 0) + 1;
    }
  }
  return {
    messages: messages.length,
    byRole,
    byCategory,
    tokens: { total, byCategory: tokensByCategory, counter: counter.name },
    toolCalls: { total: calls, byName: { ...byName } },
    toolResults: byRole.tool,
  };
}
