/**
 * The LangChain side of the compaction benches: our messages as LangChain messages, a
 * `tokenCounter` that gives `trimMessages` exactly our per-message counts, and an orphan count
 * that works on both kinds of message.
 * @module
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { Message } from '../src/message/message.js';

/** Our messages as LangChain messages, with the same ids (`trimMessages` copies messages, ids survive). */
export function toLangChain(messages: readonly Message[]): BaseMessage[] {
  return messages.map((message): BaseMessage => {
    const content = Message.text(message);
    switch (message.role) {
      case 'system':
        return new SystemMessage({ content, id: message.id });
      case 'user':
        return new HumanMessage({ content, id: message.id });
      case 'assistant':
        return new AIMessage({
          content,
          id: message.id,
          tool_calls: (message.toolCalls ?? []).map((call) => ({
            id: call.id,
            name: call.name,
            args: JSON.parse(call.arguments) as Record<string, unknown>,
            type: 'tool_call' as const,
          })),
        });
      case 'tool':
        return new ToolMessage({ content, id: message.id, tool_call_id: message.toolCallId ?? '', name: message.name });
      default: {
        const unreachable: never = message.role;
        return unreachable;
      }
    }
  });
}

/**
 * A `trimMessages` token counter summing `count` over the original messages (found by id), so
 * both tools see identical numbers. LangChain calls it on a whole list each time.
 */
export function langChainCounter(
  messages: readonly Message[],
  count: (message: Message) => number,
): (list: BaseMessage[]) => number {
  const byId = new Map(messages.map((message) => [message.id, message]));
  return (list: BaseMessage[]): number => {
    let total = 0;
    for (const item of list) {
      const original = item.id === undefined ? undefined : byId.get(item.id);
      if (original === undefined)
        throw new Error(`trimMessages returned a message we did not give it: ${String(item.id)}`);
      total += count(original);
    }
    return total;
  };
}

/** A tool call or result, seen the same way in either message model. */
interface ToolView {
  readonly calls: readonly string[];
  readonly result?: string;
}

function viewOurs(message: Message): ToolView {
  return { calls: (message.toolCalls ?? []).map((call) => call.id), result: message.toolCallId };
}

function viewLangChain(message: BaseMessage): ToolView {
  if (AIMessage.isInstance(message))
    return { calls: (message.tool_calls ?? []).flatMap((call) => (call.id === undefined ? [] : [call.id])) };
  if (ToolMessage.isInstance(message)) return { calls: [], result: message.tool_call_id };
  return { calls: [] };
}

function orphans(views: readonly ToolView[]): number {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const view of views) {
    for (const id of view.calls) calls.add(id);
    if (view.result !== undefined) results.add(view.result);
  }
  let count = 0;
  for (const view of views) {
    // A result whose call is gone, and a call whose result is gone.
    if (view.result !== undefined && !calls.has(view.result)) count += 1;
    for (const id of view.calls) if (!results.has(id)) count += 1;
  }
  return count;
}

/** Orphaned tool calls plus orphaned tool results in our messages. */
export function countOrphans(messages: readonly Message[]): number {
  return orphans(messages.map(viewOurs));
}

/** Orphaned tool calls plus orphaned tool results in LangChain messages. */
export function countLangChainOrphans(messages: readonly BaseMessage[]): number {
  return orphans(messages.map(viewLangChain));
}
