/**
 * Structural checks of an Anthropic `{ system, messages }` value, as the Messages API would reject
 * it. Reads `unknown` defensively: garbage yields problems, never an exception.
 *
 * Problem codes: `invalid_wire`, `invalid_message`, `invalid_role`, `invalid_block`,
 * `empty_conversation`, `first_not_user`, `alternation`, `empty_content`, `empty_text`, `misplaced_block`,
 * `tool_result_order`, `missing_tool_result`, `orphan_tool_result`, `duplicate_tool_call`,
 * `duplicate_tool_result`.
 * @module
 */
import { ASSISTANT_ONLY_BLOCKS, USER_ONLY_BLOCKS } from './anthropic-content.js';
import type { WireProblem } from './types.js';
import { collectProblems, hasText, isRecord, type Report } from './wire-json.js';

function checkTextBlock(block: Record<string, unknown>, path: string, report: Report): void {
  if (typeof block['text'] !== 'string') report('invalid_block', 'A text block needs a string `text`', path);
  else if (!hasText(block['text'])) report('empty_text', 'Text blocks must contain non-whitespace text', path);
}

function checkSystem(system: unknown, report: Report): void {
  if (system === undefined || typeof system === 'string') return;
  if (!Array.isArray(system))
    return report('invalid_wire', '`system` must be a string or an array of text blocks', 'system');
  system.forEach((block: unknown, index) => {
    const path = `system[${index}]`;
    if (!isRecord(block) || block['type'] !== 'text')
      report('invalid_block', 'The system prompt takes text blocks only', path);
    else checkTextBlock(block, path, report);
  });
}

function checkToolResultContent(content: unknown, path: string, report: Report): void {
  if (content === undefined) return;
  if (typeof content === 'string') {
    if (!hasText(content))
      report('empty_text', 'A tool result string must contain non-whitespace text (or be omitted)', path);
    return;
  }
  if (!Array.isArray(content))
    return report('invalid_block', 'Tool result content must be a string or an array of blocks', path);
  content.forEach((inner: unknown, index) => {
    const innerPath = `${path}[${index}]`;
    if (!isRecord(inner) || typeof inner['type'] !== 'string')
      report('invalid_block', 'Not a content block', innerPath);
    else if (inner['type'] === 'text') checkTextBlock(inner, innerPath, report);
  });
}

/** What one message says about tool calls, for the pairing checks with its neighbour. */
interface Turn {
  readonly role: 'user' | 'assistant';
  /** Tool-use id → path of the block, for assistant turns. */
  readonly calls: Map<string, string>;
}

/** Checks each block; records the message's tool uses in `calls` and returns its tool results as [id, path]. */
function checkBlocks(
  role: Turn['role'],
  content: readonly unknown[],
  path: string,
  calls: Map<string, string>,
  report: Report,
): Array<[string, string]> {
  const results: Array<[string, string]> = [];
  let seenOther = false;
  content.forEach((block: unknown, index) => {
    const blockPath = `${path}.content[${index}]`;
    if (!isRecord(block) || typeof block['type'] !== 'string') {
      return report('invalid_block', 'Not a content block (an object with a string `type`)', blockPath);
    }
    const type = block['type'];
    if ((role === 'assistant' && USER_ONLY_BLOCKS.has(type)) || (role === 'user' && ASSISTANT_ONLY_BLOCKS.has(type))) {
      report('misplaced_block', `A ${type} block is not allowed in a ${role} message`, blockPath);
    }
    if (type !== 'tool_result') seenOther = true;
    if (type === 'text') checkTextBlock(block, blockPath, report);
    else if (type === 'image' || type === 'document') {
      if (!isRecord(block['source'])) report('invalid_block', `A ${type} block needs a \`source\` object`, blockPath);
    } else if (type === 'tool_use') {
      const { id, name, input } = block;
      if (!hasText(id) || !hasText(name) || !isRecord(input)) {
        report('invalid_block', 'A tool_use block needs string `id` and `name` and an object `input`', blockPath);
      } else if (calls.has(id))
        report('duplicate_tool_call', `Tool use id ${id} appears twice in one message`, blockPath);
      else if (role === 'assistant') calls.set(id, blockPath);
    } else if (type === 'tool_result') {
      if (seenOther)
        report(
          'tool_result_order',
          'tool_result blocks must come before any other block of the user message',
          blockPath,
        );
      if (!hasText(block['tool_use_id']))
        report('invalid_block', 'A tool_result block needs a string `tool_use_id`', blockPath);
      else if (role === 'user') results.push([block['tool_use_id'], blockPath]);
      checkToolResultContent(block['content'], `${blockPath}.content`, report);
    }
  });
  return results;
}

/** Pairs the tool results of a user message with the calls of the assistant message right before it. */
function checkPairing(previous: Turn | undefined, results: Array<[string, string]>, report: Report): void {
  const open = new Map(previous?.role === 'assistant' ? previous.calls : []);
  const answered = new Set<string>();
  for (const [id, path] of results) {
    if (answered.has(id)) report('duplicate_tool_result', `Tool use ${id} has more than one result`, path);
    else if (!open.has(id))
      report('orphan_tool_result', `No tool_use ${id} in the assistant message right before`, path);
    answered.add(id);
    open.delete(id);
  }
  for (const [id, path] of open)
    report('missing_tool_result', `Tool use ${id} has no tool_result in the next user message`, path);
}

function checkMessages(messages: readonly unknown[], report: Report): void {
  let previous: Turn | undefined;
  messages.forEach((message: unknown, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message)) {
      report('invalid_message', 'Not a message object', path);
      previous = undefined;
      return;
    }
    const { role, content } = message;
    if (role !== 'user' && role !== 'assistant') {
      report(
        'invalid_role',
        `Role ${JSON.stringify(role)} is not allowed: messages alternate user and assistant`,
        `${path}.role`,
      );
      previous = undefined;
      return;
    }
    if (index === 0 && role !== 'user') report('first_not_user', 'The first message must be a user message', path);
    if (previous?.role === role) report('alternation', `Two ${role} messages in a row: roles must alternate`, path);
    const calls = new Map<string, string>();
    let results: Array<[string, string]> = [];
    if (typeof content === 'string') {
      if (!hasText(content)) report('empty_content', 'Message content must not be empty', `${path}.content`);
    } else if (!Array.isArray(content)) {
      report('invalid_message', '`content` must be a string or an array of blocks', `${path}.content`);
    } else if (content.length === 0) {
      report('empty_content', 'Message content must not be an empty array', `${path}.content`);
    } else {
      results = checkBlocks(role, content, path, calls, report);
    }
    // Calls left open by an assistant message followed by another assistant message are missing too.
    if (role === 'user' || previous?.role === 'assistant') checkPairing(previous, results, report);
    previous = { role, calls };
  });
  if (previous?.role === 'assistant') checkPairing(previous, [], report);
}

/** Structural problems of an Anthropic wire value (empty when the API would accept its structure). */
export function validateAnthropic(wire: unknown): WireProblem[] {
  return collectProblems((report) => {
    if (!isRecord(wire)) return report('invalid_wire', 'Expected an object with `messages`', '');
    checkSystem(wire['system'], report);
    if (!Array.isArray(wire['messages'])) report('invalid_wire', '`messages` must be an array', 'messages');
    // The Messages API needs at least one message: a system prompt alone is not a conversation.
    else if (wire['messages'].length === 0)
      report('empty_conversation', '`messages` must hold at least one message', 'messages');
    else checkMessages(wire['messages'], report);
  });
}
