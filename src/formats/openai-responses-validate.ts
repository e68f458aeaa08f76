/**
 * Structural checks of Responses `instructions` and `input`: the problems the API would reject for
 * a full history (without `previous_response_id`, where earlier calls live on the server). Never
 * throws, whatever it is given.
 * @module
 */
import { checkToolPairing, type PairingEvent } from './check-tool-pairing.js';
import type { WireProblem } from './types.js';
import { checkPartList, isBlankWireContent, isRecord, problem, neverThrows } from './wire-json.js';

const INPUT_PARTS: ReadonlySet<string> = new Set(['input_text', 'input_image', 'input_file']);
const OUTPUT_PARTS: ReadonlySet<string> = new Set(['output_text', 'refusal']);
// Input item types of the API (other than messages): never valid inside message content.
const ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'web_search_call',
  'tool_search_call',
  'tool_search_output',
  'compaction',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'custom_tool_call',
  'custom_tool_call_output',
  'item_reference',
]);
const ROLES: ReadonlySet<unknown> = new Set(['user', 'system', 'developer', 'assistant']);

/**
 * Where a value with `type` may go: `input` (content of a user, system or developer message, or of
 * a function call's output), `assistant` (content of an assistant message; earlier output comes
 * back as output parts, input parts are accepted too) or `item` (the input list itself). A type
 * this code does not know is newer than it: accepted, so it is written back verbatim.
 */
export function responsesAccepts(place: 'input' | 'assistant' | 'item', type: string): boolean {
  const content = INPUT_PARTS.has(type) || OUTPUT_PARTS.has(type);
  switch (place) {
    case 'item':
      return !content;
    case 'input':
      return INPUT_PARTS.has(type) || (!content && !ITEM_TYPES.has(type));
    case 'assistant':
      return content || !ITEM_TYPES.has(type);
    default: {
      const unreachable: never = place;
      throw new Error(`unknown place ${String(unreachable)}`);
    }
  }
}

function checkParts(content: unknown, place: 'input' | 'assistant', path: string, problems: WireProblem[]): void {
  if (typeof content === 'string') return;
  checkPartList(
    content,
    path,
    (type) => responsesAccepts(place, type),
    (type) => `this message does not accept ${type} parts`,
    problems,
  );
}

function checkMessage(item: Record<string, unknown>, path: string, problems: WireProblem[]): void {
  const { role, content } = item;
  if (!ROLES.has(role)) {
    problems.push(problem('invalid_role', `${path}.role`, `unknown role ${JSON.stringify(role) ?? 'undefined'}`));
    return;
  }
  if (role === 'user' && isBlankWireContent(content))
    problems.push(problem('empty_content', `${path}.content`, 'a user message needs non-empty content'));
  checkParts(content, role === 'assistant' ? 'assistant' : 'input', `${path}.content`, problems);
}

function checkItem(item: unknown, path: string, events: PairingEvent[], problems: WireProblem[]): void {
  if (!isRecord(item)) {
    problems.push(problem('invalid_message', path, 'an input item must be an object'));
    return;
  }
  const type = item['type'];
  if (type === undefined || type === 'message') {
    if (item['role'] === undefined)
      problems.push(problem('invalid_message', path, 'an input item needs a type or a role'));
    else checkMessage(item, path, problems);
    return;
  }
  if (type === 'function_call') {
    const { call_id: id, name, arguments: args } = item;
    if (typeof id !== 'string' || id.length === 0 || typeof name !== 'string' || typeof args !== 'string') {
      problems.push(problem('invalid_message', path, 'a function_call needs call_id, name and arguments'));
    } else {
      events.push({ kind: 'call', id, path });
    }
    return;
  }
  if (type === 'function_call_output') {
    const { call_id: id, output } = item;
    if (typeof id !== 'string' || id.length === 0)
      problems.push(problem('invalid_message', `${path}.call_id`, 'a function_call_output needs call_id'));
    else events.push({ kind: 'result', id, path });
    if (typeof output !== 'string') checkParts(output, 'input', `${path}.output`, problems);
    return;
  }
  if (typeof type !== 'string')
    problems.push(problem('invalid_message', `${path}.type`, 'an input item type must be a string'));
  else if (!responsesAccepts('item', type))
    problems.push(problem('misplaced_part', `${path}.type`, `${type} is a content part, not an input item`));
  // Other item types (reasoning, server tool calls, …) are the API's own: passed through unchecked.
}

/** Structural problems of a Responses request's `instructions` and `input` (empty when the API would accept them). */
export const validateOpenaiResponses = neverThrows((wire: unknown): WireProblem[] => {
  if (!isRecord(wire)) return [problem('invalid_wire', '', 'expected an object with input')];
  const problems: WireProblem[] = [];
  const { instructions, input } = wire;
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string') {
    problems.push(problem('invalid_wire', 'instructions', 'instructions must be a string'));
  }
  if (typeof input === 'string') return problems;
  if (!Array.isArray(input))
    return [...problems, problem('invalid_wire', 'input', 'input must be a string or an array of items')];
  // Without input the API refuses the request (instructions alone are not one), unless it
  // continues a stored response.
  if (input.length === 0 && typeof wire['previous_response_id'] !== 'string') {
    return [
      ...problems,
      problem(
        'empty_conversation',
        'input',
        'input must hold at least one item (or the request must name a previous_response_id)',
      ),
    ];
  }
  const events: PairingEvent[] = [];
  input.forEach((item: unknown, index) => checkItem(item, `input[${index}]`, events, problems));
  return [...problems, ...checkToolPairing(events, 'after')];
});
