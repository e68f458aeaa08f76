/**
 * Tool pairing repair for imported histories. Other systems store tool exchanges loosely: a result
 * whose call was trimmed away, a call whose result never came, a result written twice. A chatstate
 * session keeps each call with its results, so the importer repairs — and never drops text: an
 * orphaned or duplicated result becomes a context message holding its content, and a call without
 * a result gets one saying so. Every change is reported.
 * @module
 */
import { Message } from '../message/message.js';
import type { ImportRepair } from './types.js';

/** Content of the result added for a call that has none in the source. */
export const IMPORTED_MISSING_RESULT = 'No result was recorded for this tool call in the imported history.';

/** A tool result the session cannot pair with a call, kept as context: its text and where it came from. */
function keptAsContext(message: Message, why: string): Message {
  return Message.context(message.content, {
    id: message.id,
    timestamp: message.timestamp,
    metadata: {
      ...message.metadata,
      imported: {
        was: 'tool',
        why,
        ...(message.toolCallId === undefined ? {} : { toolCallId: message.toolCallId }),
        ...(message.name === undefined ? {} : { name: message.name }),
      },
    },
  });
}

/** `messages` with every tool result paired with an earlier call and every call answered; what changed is in `repairs`. */
export function repairToolPairs(messages: readonly Message[]): { messages: Message[]; repairs: ImportRepair[] } {
  const repairs: ImportRepair[] = [];
  const out: Message[] = [];
  // Call id → the tool's name and the id, position and time of the message that made the call, until its first result.
  const open = new Map<string, { name: string; caller: Message; index: number }>();
  const answered = new Set<string>();
  // Results kept as context while calls are still open wait until those calls are answered: a
  // message between a call and its results would make the history invalid for a provider.
  const kept: Message[] = [];
  const closeOpenCalls = () => {
    for (const [id, { name, caller, index }] of open) {
      // Derived from the call, not random: importing the same source twice gives the same session.
      const result = Message.tool(id, IMPORTED_MISSING_RESULT, {
        id: `${caller.id.slice(0, 120)}.r${index}`,
        timestamp: caller.timestamp,
        name,
        metadata: { imported: { synthesized: true } },
      });
      out.push(result);
      answered.add(id);
      repairs.push({
        kind: 'missing_tool_result',
        message: `Added a result for tool call ${id} (${name}), which had none`,
        messageId: result.id,
      });
    }
    open.clear();
    out.push(...kept.splice(0));
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const id = message.toolCallId ?? '';
      if (open.has(id)) {
        open.delete(id);
        answered.add(id);
        out.push(message);
        continue;
      }
      const why = answered.has(id) ? 'duplicate_tool_result' : 'orphan_tool_result';
      (open.size > 0 ? kept : out).push(keptAsContext(message, why));
      repairs.push({
        kind: why,
        message: `Kept tool result ${message.id} for call ${JSON.stringify(id)} as a context message: ${why === 'duplicate_tool_result' ? 'the call already had a result' : 'no call before it asked for it'}`,
        messageId: message.id,
      });
      continue;
    }
    // A call's results come before the next non-tool message: past that point they are missing.
    closeOpenCalls();
    out.push(message);
    for (const [index, call] of (message.toolCalls ?? []).entries()) {
      if (!answered.has(call.id)) open.set(call.id, { name: call.name, caller: message, index });
    }
  }
  closeOpenCalls();
  return { messages: out, repairs };
}
