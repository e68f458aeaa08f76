/**
 * Message and tool call ids for imported histories, beside `build.ts`'s session and message ids:
 * ids derived from a source's positions (deterministic, so a second import matches the first), tool
 * call ids checked, and ids made unique within a session (stores treat a repeated id as one message).
 * @module
 */
import { Message } from '../message/message.js';
import { TOOL_CALL_ID_PATTERN } from '../message/schema.js';
import type { ImportRepair } from './types.js';

/** `candidate` when it is a valid tool call id (printable ASCII, 1–256), else undefined. */
export function validToolCallId(candidate: unknown): string | undefined {
  return typeof candidate === 'string' && candidate.length <= 256 && TOOL_CALL_ID_PATTERN.test(candidate)
    ? candidate
    : undefined;
}

/** A message id made of `parts` (each reduced to valid characters), for a message whose source has none. */
export function derivedMessageId(...parts: readonly (string | number)[]): string {
  const joined = parts
    .map((part) => String(part).replace(/[^A-Za-z0-9._-]+/g, '-'))
    .join(':')
    .replace(/^[^A-Za-z0-9]+/, '');
  return (joined.length > 0 ? joined : 'imported').slice(0, 256);
}

/**
 * `messages` with every id unique in the session (stores treat a repeated id as the same message):
 * a repeat gets a suffix, and each change is reported.
 */
export function uniqueMessageIds(messages: readonly Message[]): { messages: Message[]; repairs: ImportRepair[] } {
  const seen = new Set<string>();
  const repairs: ImportRepair[] = [];
  const out = messages.map((message) => {
    if (!seen.has(message.id)) {
      seen.add(message.id);
      return message;
    }
    let n = 2;
    let id = `${message.id.slice(0, 240)}.dup${n}`;
    while (seen.has(id)) id = `${message.id.slice(0, 240)}.dup${++n}`;
    seen.add(id);
    repairs.push({
      kind: 'duplicate_message_id',
      message: `Renamed the repeated message id ${message.id} to ${id}`,
      messageId: id,
    });
    return Message.with(message, { id });
  });
  return { messages: out, repairs };
}
