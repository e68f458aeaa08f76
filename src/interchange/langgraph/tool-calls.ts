/**
 * The tool calls of a LangChain AI message: `tool_calls` (`args` an object), or in older
 * serializations OpenAI's raw `additional_kwargs.tool_calls` or one legacy `function_call`, which a
 * later `FunctionMessage` of the same name answers. Calls without a usable id get a derived one.
 * @module
 */
import type { JsonValue, ToolCallInput } from '../../message/schema.js';
import { validToolCallId } from '../import-ids.js';
import { isObject } from '../json-text.js';
import type { ImportRepair } from '../types.js';
import { withoutSentinels } from './forms.js';

/** Decodes legacy function calls across messages: a `FunctionMessage` answers the last call of its name. */
export class FunctionCalls {
  private readonly byName = new Map<string, string>();
  record(name: string, id: string): void {
    this.byName.set(name, id);
  }
  take(name: string): string | undefined {
    const id = this.byName.get(name);
    this.byName.delete(name);
    return id;
  }
}

export function readToolCalls(
  kwargs: Record<string, unknown>,
  messageId: string,
  functionCalls: FunctionCalls,
  repairs: ImportRepair[],
): { calls: ToolCallInput[]; dropped: JsonValue[] } {
  const calls: ToolCallInput[] = [];
  const dropped: JsonValue[] = [];
  const seen = new Set<string>();
  const add = (id: unknown, name: unknown, args: unknown, raw: unknown, index: number): void => {
    if (typeof name !== 'string' || name.length === 0 || name.length > 256) {
      dropped.push(withoutSentinels(raw) ?? null);
      repairs.push({
        kind: 'unreadable_tool_call',
        message: `Kept tool call ${index} of ${messageId} in metadata: it has no name`,
        messageId,
      });
      return;
    }
    let callId = validToolCallId(id);
    if (callId === undefined || seen.has(callId)) {
      const made = `${messageId}-call${index}`.slice(0, 256);
      repairs.push({
        kind: callId === undefined ? 'missing_tool_call_id' : 'duplicate_tool_call_id',
        message: `Gave tool call ${index} (${name}) of ${messageId} the id ${made}: ${callId === undefined ? 'it had no usable id' : 'its id repeated an earlier call of the message'}`,
        messageId,
      });
      callId = made;
    }
    seen.add(callId);
    const argumentsText =
      typeof args === 'string' ? args : args === undefined || args === null ? '{}' : JSON.stringify(args);
    calls.push({ id: callId, name, arguments: argumentsText });
  };
  const toolCalls = kwargs['tool_calls'];
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    toolCalls.forEach((call: unknown, index) => {
      const record = isObject(call) ? call : {};
      add(record['id'], record['name'], record['args'], call, index);
    });
    return { calls, dropped };
  }
  // Older serializations carry the calls only in OpenAI's raw form, or as one legacy function call.
  const extra = isObject(kwargs['additional_kwargs']) ? kwargs['additional_kwargs'] : {};
  const raw = extra['tool_calls'];
  if (Array.isArray(raw) && raw.length > 0) {
    raw.forEach((call: unknown, index) => {
      const record = isObject(call) ? call : {};
      const fn = isObject(record['function']) ? record['function'] : {};
      add(record['id'], fn['name'], fn['arguments'], call, index);
    });
    return { calls, dropped };
  }
  const legacy = extra['function_call'];
  if (isObject(legacy) && typeof legacy['name'] === 'string') {
    const id = `${messageId}-function_call`.slice(0, 256);
    add(id, legacy['name'], legacy['arguments'], legacy, 0);
    functionCalls.record(legacy['name'], id);
  }
  return { calls, dropped };
}
