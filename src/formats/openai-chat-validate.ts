/**
 * Structural checks of a Chat Completions `messages` list: the problems the API would reject.
 * Never throws, whatever it is given.
 * @module
 */
import { checkToolPairing, type PairingEvent } from './check-tool-pairing.js';
import type { WireProblem } from './types.js';
import { checkPartList, isBlankWireContent, isRecord, problem, neverThrows } from './wire-json.js';

// The part types each role accepts. A type in none of these lists is newer than this code: it is
// let through (and written back verbatim) rather than rejected.
const PART_TYPES: Readonly<Record<string, ReadonlySet<string>>> = {
  system: new Set(['text']),
  developer: new Set(['text']),
  tool: new Set(['text']),
  user: new Set(['text', 'image_url', 'input_audio', 'file']),
  assistant: new Set(['text', 'refusal']),
};
const KNOWN_PARTS: ReadonlySet<string> = new Set(Object.values(PART_TYPES).flatMap((types) => [...types]));

/** False when Chat Completions rejects a part of `type` in a `role` message (a known type in the wrong place). */
export function chatAcceptsPart(role: string, type: string): boolean {
  return !KNOWN_PARTS.has(type) || (PART_TYPES[role]?.has(type) ?? false);
}

function checkParts(role: string, content: unknown, path: string, problems: WireProblem[]): void {
  if (typeof content === 'string' || content === null || content === undefined) return;
  checkPartList(
    content,
    path,
    (type) => chatAcceptsPart(role, type),
    (type) => `${role} messages do not accept ${type} parts`,
    problems,
  );
}

function checkToolCalls(calls: unknown, path: string, events: PairingEvent[], problems: WireProblem[]): void {
  if (calls === undefined || calls === null) return;
  if (!Array.isArray(calls)) {
    problems.push(problem('invalid_message', path, 'tool_calls must be an array'));
    return;
  }
  calls.forEach((call: unknown, index) => {
    const where = `${path}[${index}]`;
    const id = isRecord(call) ? call['id'] : undefined;
    const body = isRecord(call) ? call[call['type'] === 'custom' ? 'custom' : 'function'] : undefined;
    if (typeof id !== 'string' || id.length === 0 || !isRecord(body) || typeof body['name'] !== 'string') {
      problems.push(problem('invalid_message', where, 'a tool call needs an id, a type and a function name'));
      return;
    }
    events.push({ kind: 'call', id, path: where });
  });
}

function checkMessage(item: unknown, path: string, events: PairingEvent[], problems: WireProblem[]): void {
  if (!isRecord(item)) {
    problems.push(problem('invalid_message', path, 'a message must be an object'));
    return;
  }
  const role = item['role'];
  const content = item['content'];
  switch (role) {
    case 'system':
    case 'developer':
    case 'user':
      events.push({ kind: 'boundary', path });
      if (content === null || content === undefined)
        problems.push(problem('invalid_message', `${path}.content`, `a ${role} message needs content`));
      else if (role === 'user' && isBlankWireContent(content))
        problems.push(problem('empty_content', `${path}.content`, 'a user message needs non-empty content'));
      checkParts(role, content, `${path}.content`, problems);
      return;
    case 'assistant': {
      events.push({ kind: 'boundary', path });
      const calls = item['tool_calls'];
      const hasCalls = Array.isArray(calls) && calls.length > 0;
      const hasOther =
        item['function_call'] != null ||
        item['audio'] != null ||
        (typeof item['refusal'] === 'string' && item['refusal'].length > 0);
      if (!hasCalls && !hasOther && isBlankWireContent(content)) {
        problems.push(
          problem('empty_content', `${path}.content`, 'an assistant message needs content unless it calls tools'),
        );
      }
      checkParts(role, content, `${path}.content`, problems);
      checkToolCalls(calls, `${path}.tool_calls`, events, problems);
      return;
    }
    case 'tool': {
      const id = item['tool_call_id'];
      if (typeof id !== 'string' || id.length === 0) {
        problems.push(problem('invalid_message', `${path}.tool_call_id`, 'a tool message needs tool_call_id'));
        events.push({ kind: 'boundary', path });
      } else {
        events.push({ kind: 'result', id, path });
      }
      if (typeof content !== 'string' && !Array.isArray(content))
        problems.push(problem('invalid_message', `${path}.content`, 'a tool message needs content'));
      checkParts(role, content, `${path}.content`, problems);
      return;
    }
    case 'function':
      events.push({ kind: 'boundary', path });
      return;
    default:
      problems.push(problem('invalid_role', `${path}.role`, `unknown role ${JSON.stringify(role) ?? 'undefined'}`));
      events.push({ kind: 'boundary', path });
  }
}

/** Structural problems of a Chat Completions request's `messages` (empty when the API would accept them). */
export const validateOpenaiChat = neverThrows((wire: unknown): WireProblem[] => {
  if (!isRecord(wire)) return [problem('invalid_wire', '', 'expected an object with messages')];
  const messages = wire['messages'];
  if (!Array.isArray(messages)) return [problem('invalid_wire', 'messages', 'messages must be an array')];
  // The API answers `empty_array` to `messages: []`.
  if (messages.length === 0)
    return [problem('empty_conversation', 'messages', 'messages must hold at least one message')];
  const problems: WireProblem[] = [];
  const events: PairingEvent[] = [];
  messages.forEach((item: unknown, index) => checkMessage(item, `messages[${index}]`, events, problems));
  return [...problems, ...checkToolPairing(events, 'adjacent')];
});
