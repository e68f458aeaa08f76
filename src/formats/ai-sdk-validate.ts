/**
 * Structural checks of AI SDK `system` and `messages`: what `generateText` rejects (a tool call
 * without a result is `AI_MissingToolResultsError`) and what the providers behind it reject (a
 * result that does not follow its call, empty user content). Never throws, whatever it is given.
 * @module
 */
import { checkToolPairing, type PairingEvent } from './check-tool-pairing.js';
import type { WireProblem } from './types.js';
import { isBlankWireContent, isRecord, problem, neverThrows } from './wire-json.js';

// The part types each role accepts. A type in none of these lists is newer than this code: it is
// let through (and written back verbatim) rather than rejected.
const PART_TYPES: Readonly<Record<string, ReadonlySet<string>>> = {
  user: new Set(['text', 'image', 'file']),
  assistant: new Set(['text', 'file', 'reasoning', 'tool-call', 'tool-result', 'tool-approval-request']),
  tool: new Set(['tool-result', 'tool-approval-response']),
};
const KNOWN_PARTS: ReadonlySet<string> = new Set(Object.values(PART_TYPES).flatMap((types) => [...types]));

/** False when the AI SDK rejects a part of `type` in a `role` message (a known type in the wrong place). */
export function aiSdkAcceptsPart(role: 'user' | 'assistant' | 'tool', type: string): boolean {
  return !KNOWN_PARTS.has(type) || PART_TYPES[role]?.has(type) === true;
}

function checkSystem(system: unknown, problems: WireProblem[]): void {
  if (system === undefined || typeof system === 'string') return;
  const list: unknown[] = Array.isArray(system) ? system : [system];
  list.forEach((item, index) => {
    if (!isRecord(item) || item['role'] !== 'system' || typeof item['content'] !== 'string') {
      problems.push(
        problem(
          'invalid_wire',
          Array.isArray(system) ? `system[${index}]` : 'system',
          'system must be a string or system messages',
        ),
      );
    }
  });
}

function checkPart(
  part: unknown,
  role: 'user' | 'assistant' | 'tool',
  path: string,
  events: PairingEvent[],
  problems: WireProblem[],
): void {
  const type = isRecord(part) ? part['type'] : undefined;
  if (!isRecord(part) || typeof type !== 'string') {
    problems.push(problem('invalid_part', path, 'a content part needs a type'));
    return;
  }
  if (!aiSdkAcceptsPart(role, type)) {
    problems.push(problem('misplaced_part', path, `${role} messages do not accept ${type} parts`));
    return;
  }
  const id = part['toolCallId'];
  if (type === 'tool-call' && part['providerExecuted'] !== true) {
    if (typeof id !== 'string' || id.length === 0 || typeof part['toolName'] !== 'string')
      problems.push(problem('invalid_part', path, 'a tool call needs toolCallId and toolName'));
    else events.push({ kind: 'call', id, path });
  }
  if (type === 'tool-result' && role === 'tool') {
    if (typeof id !== 'string' || id.length === 0 || !isRecord(part['output']))
      problems.push(problem('invalid_part', path, 'a tool result needs toolCallId and output'));
    else events.push({ kind: 'result', id, path });
  }
}

function checkMessage(item: unknown, path: string, events: PairingEvent[], problems: WireProblem[]): void {
  if (!isRecord(item)) {
    problems.push(problem('invalid_message', path, 'a message must be an object'));
    return;
  }
  const { role, content } = item;
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
    problems.push(problem('invalid_role', `${path}.role`, `unknown role ${JSON.stringify(role) ?? 'undefined'}`));
    events.push({ kind: 'boundary', path });
    return;
  }
  if (role !== 'tool') events.push({ kind: 'boundary', path });
  if (role === 'system') {
    if (typeof content !== 'string')
      problems.push(problem('invalid_message', `${path}.content`, 'system content must be a string'));
    return;
  }
  if (role === 'tool' ? !Array.isArray(content) : typeof content !== 'string' && !Array.isArray(content)) {
    problems.push(
      problem(
        'invalid_message',
        `${path}.content`,
        role === 'tool' ? 'tool content must be an array' : 'content must be a string or an array of parts',
      ),
    );
    return;
  }
  if (role !== 'tool' && isBlankWireContent(content))
    problems.push(problem('empty_content', `${path}.content`, `a ${role} message needs non-empty content`));
  if (Array.isArray(content))
    content.forEach((part: unknown, index) => checkPart(part, role, `${path}.content[${index}]`, events, problems));
}

/** Structural problems of AI SDK `system` and `messages` (empty when `generateText` and the provider would accept them). */
export const validateAiSdk = neverThrows((wire: unknown): WireProblem[] => {
  if (!isRecord(wire)) return [problem('invalid_wire', '', 'expected an object with messages')];
  const messages = wire['messages'];
  if (!Array.isArray(messages)) return [problem('invalid_wire', 'messages', 'messages must be an array')];
  const problems: WireProblem[] = [];
  checkSystem(wire['system'], problems);
  // `generateText` throws "messages must not be empty": `system` alone is not a prompt.
  if (messages.length === 0)
    problems.push(problem('empty_conversation', 'messages', 'messages must hold at least one message'));
  const events: PairingEvent[] = [];
  messages.forEach((item: unknown, index) => checkMessage(item, `messages[${index}]`, events, problems));
  return [...problems, ...checkToolPairing(events, 'adjacent')];
});
