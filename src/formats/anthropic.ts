/**
 * The Anthropic Messages API format.
 *
 * `to` rules, in order:
 * - Leading system messages become `system`: one text block per text part (cache breakpoints kept),
 *   other parts dropped with `unsupported_part`.
 * - Mid-conversation system and context messages become user text, wrapped as
 *   `<system>…</system>` or `<context>…</context>` (see `instructionText`); their media stay media.
 * - Tool results (`role: 'tool'`) become `tool_result` blocks opening the user turn that follows
 *   their assistant turn — all results of one turn in one user message, before any user text.
 *   `metadata.isError` (or a synthesized result) sets `is_error`.
 * - Assistant tool calls become `tool_use` blocks after the message's other blocks; arguments that
 *   are not a JSON object are sent as `{ _raw: text }` with `invalid_tool_arguments`.
 * - Consecutive turns of the same role are merged; blank text is skipped; a message left with no
 *   block is dropped with `empty_message`; a history starting with the assistant gets a
 *   `FIRST_TURN_PLACEHOLDER` user turn first, with `inserted_user_turn`; a history that leaves no
 *   message at all (only system messages, or everything dropped) is sent as that user turn alone,
 *   with `empty_conversation` (the API rejects an empty `messages`).
 * - Signed Anthropic reasoning becomes `thinking`; other reasoning is dropped (`dropped_reasoning`).
 *   Raw Anthropic parts are written verbatim; other providers' raw parts are dropped (`foreign_raw_part`).
 *
 * Not carried back by `from`: message ids, names, timestamps, metadata (except `isError`),
 * categories, image `detail`, non-plain text media types, the boundaries between merged messages,
 * and where tool calls sat among the other blocks of an assistant turn.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ContentPart, ToolCall } from '../message/schema.js';
import {
  blockToPart,
  cacheControlOf,
  cacheOptions,
  partToBlock,
  rawPart,
  textBlock,
  type BlockPlace,
} from './anthropic-content.js';
import { validateAnthropic } from './anthropic-validate.js';
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolResultContent,
  AnthropicToolUseBlock,
  AnthropicWire,
} from './anthropic-wire.js';
import { prepareHistory } from './prepare.js';
import type { FormatWarning, FromResult, ProviderFormat } from './types.js';
import {
  FIRST_TURN_PLACEHOLDER,
  contentOf,
  emptyConversation,
  instructionText,
  parseToolArguments,
  tryCreate,
  type PartContext,
} from './turn-rules.js';
import { hasText, isRecord, jsonText, skipUnreadable } from './wire-json.js';

function blocksOf(message: Message, place: BlockPlace, context: PartContext): AnthropicContentBlock[] {
  if (typeof message.content === 'string') {
    const block = textBlock(message.content);
    return block === undefined ? [] : [block];
  }
  const blocks: AnthropicContentBlock[] = [];
  for (const part of message.content) {
    const block = partToBlock(part, place, context);
    if (block !== undefined) blocks.push(block);
  }
  return blocks;
}

function systemBlocks(messages: readonly Message[], warnings: FormatWarning[]): AnthropicTextBlock[] {
  const blocks: AnthropicTextBlock[] = [];
  for (const message of messages) {
    for (const block of blocksOf(message, 'system', { warnings, messageId: message.id })) {
      if (block.type === 'text') blocks.push(block);
      else {
        const text = `Dropped a ${block.type} block: the system prompt is text only`;
        warnings.push({ code: 'unsupported_part', message: text, messageId: message.id });
      }
    }
  }
  return blocks;
}

function instructionBlocks(message: Message, context: PartContext): AnthropicContentBlock[] {
  const text = textBlock(instructionText(message));
  const others = typeof message.content === 'string' ? [] : message.content.filter((part) => part.type !== 'text');
  const blocks = others.flatMap((part) => partToBlock(part, 'user', context) ?? []);
  return text === undefined ? blocks : [text, ...blocks];
}

function toolUseBlock(call: ToolCall, context: PartContext): AnthropicToolUseBlock {
  const control = cacheControlOf(call.providerOptions);
  const block: AnthropicToolUseBlock = {
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: parseToolArguments(call, context),
  };
  return control === undefined ? block : { ...block, cache_control: control };
}

function toolResultBlock(message: Message, context: PartContext): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: message.toolCallId ?? '' };
  if (typeof message.content === 'string') {
    // A blank result is sent without content: the API rejects blank text.
    if (hasText(message.content)) block.content = message.content;
  } else {
    // Raw Anthropic parts pass through verbatim; whatever their type, Anthropic produced them.
    const content = blocksOf(message, 'tool_result', context) as AnthropicToolResultContent[];
    if (content.length > 0) block.content = content;
  }
  if (message.metadata['isError'] === true || message.metadata['synthesized'] === true) block.is_error = true;
  return block;
}

function to(messages: readonly Message[]): AnthropicWire & { readonly warnings: FormatWarning[] } {
  const prepared = prepareHistory(messages);
  const warnings = [...prepared.warnings];
  const system = systemBlocks(prepared.system, warnings);
  const turns: Array<AnthropicMessage & { content: AnthropicContentBlock[] }> = [];
  const push = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[], message: Message): void => {
    if (blocks.length === 0) {
      const text = `Dropped a ${message.role} message with nothing Anthropic can carry`;
      warnings.push({ code: 'empty_message', message: text, messageId: message.id });
      return;
    }
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of prepared.body) {
    const context: PartContext = { warnings, messageId: message.id };
    switch (message.role) {
      case 'user':
        push('user', blocksOf(message, 'user', context), message);
        break;
      case 'system':
        push('user', instructionBlocks(message, context), message);
        break;
      case 'assistant': {
        // Tool uses go last, after any thinking and text, as Anthropic itself returns them.
        const blocks = blocksOf(message, 'assistant', context);
        push(
          'assistant',
          [...blocks, ...(message.toolCalls ?? []).map((call) => toolUseBlock(call, context))],
          message,
        );
        break;
      }
      case 'tool':
        // prepareHistory put every result right after its assistant turn, so results open the user turn.
        push('user', [toolResultBlock(message, context)], message);
        break;
      default: {
        const unreachable: never = message.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
  }
  if (turns.length === 0) {
    turns.push({ role: 'user', content: [{ type: 'text', text: FIRST_TURN_PLACEHOLDER }] });
    warnings.push(emptyConversation('Anthropic'));
  } else if (turns[0]?.role === 'assistant') {
    turns.unshift({ role: 'user', content: [{ type: 'text', text: FIRST_TURN_PLACEHOLDER }] });
    const text = 'The history starts with the assistant; a placeholder user turn was inserted first';
    warnings.push({ code: 'inserted_user_turn', message: text });
  }
  return { ...(system.length > 0 ? { system } : {}), messages: turns, warnings };
}

function readSystem(system: AnthropicWire['system'], out: Message[], warnings: FormatWarning[]): void {
  if (typeof system === 'string') {
    const message = hasText(system) ? tryCreate({ role: 'system', content: system }, warnings, 'system') : undefined;
    if (message !== undefined) out.push(message);
    return;
  }
  const blocks: readonly unknown[] = Array.isArray(system) ? system : [];
  blocks.forEach((block, index) => {
    const text = isRecord(block) && block['type'] === 'text' ? block['text'] : undefined;
    if (typeof text === 'string' && !hasText(text)) return; // blank: nothing is lost
    skipUnreadable(warnings, 'invalid_block', `system[${index}]`, () => {
      const part = typeof text === 'string' ? blockToPart(block as AnthropicTextBlock) : undefined;
      if (part?.type !== 'text') {
        const reason = `Skipped system[${index}]: only plain text blocks are read from the system prompt`;
        warnings.push({ code: 'unsupported_part', message: reason });
        return;
      }
      const message = tryCreate({ role: 'system', content: contentOf([part]) }, warnings, `system[${index}]`);
      if (message !== undefined) out.push(message);
    });
  });
}

function readToolResult(
  block: AnthropicToolResultBlock,
  name: string | undefined,
  warnings: FormatWarning[],
  where: string,
): Message | undefined {
  const inner: readonly AnthropicContentBlock[] = Array.isArray(block.content) ? block.content : [];
  const content =
    typeof block.content === 'string' ? block.content : inner.flatMap((innerBlock) => blockToPart(innerBlock) ?? []);
  // A tool message has no place for it; breakpoints are usually set per request anyway.
  if (block.cache_control !== undefined)
    warnings.push({ code: 'unsupported_field', message: `Ignored cache_control on ${where}` });
  return tryCreate(
    {
      role: 'tool',
      toolCallId: block.tool_use_id,
      content,
      ...(name === undefined ? {} : { name }),
      ...(block.is_error === true ? { metadata: { isError: true } } : {}),
    },
    warnings,
    where,
  );
}

function from(wire: AnthropicWire): FromResult {
  const warnings: FormatWarning[] = [];
  const out: Message[] = [];
  readSystem(wire.system, out, warnings);
  const callNames = new Map<string, string>();
  const messages: readonly unknown[] = Array.isArray(wire.messages) ? wire.messages : [];
  messages.forEach((entry, index) => {
    const where = `messages[${index}]`;
    if (!isRecord(entry) || (entry['role'] !== 'user' && entry['role'] !== 'assistant')) {
      warnings.push({ code: 'invalid_message', message: `Skipped ${where}: not a user or assistant message` });
      return;
    }
    const { role, content } = entry as unknown as AnthropicMessage;
    const blocks: readonly unknown[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    let parts: ContentPart[] = [];
    const toolCalls: ToolCall[] = [];
    const before = out.length;
    const flush = (): void => {
      if (role === 'user' && parts.length > 0) {
        const message = tryCreate({ role, content: contentOf(parts) }, warnings, where);
        if (message !== undefined) out.push(message);
      }
      parts = [];
    };
    blocks.forEach((block, blockIndex) => {
      if (!isRecord(block) || typeof block['type'] !== 'string') {
        warnings.push({
          code: 'invalid_block',
          message: `Skipped ${where}.content[${blockIndex}]: not a content block`,
        });
        return;
      }
      const typed = block as unknown as AnthropicContentBlock;
      // A block holding what no JSON can (a cycle, nesting past MAX_JSON_DEPTH) is skipped, not fatal.
      skipUnreadable(warnings, 'invalid_block', `${where}.content[${blockIndex}]`, () => {
        if (
          role === 'assistant' &&
          typed.type === 'tool_use' &&
          typeof typed.id === 'string' &&
          typeof typed.name === 'string'
        ) {
          const call = {
            id: typed.id,
            name: typed.name,
            arguments: jsonText(typed.input ?? {}),
            ...cacheOptions(typed),
          };
          callNames.set(typed.id, typed.name);
          toolCalls.push(call);
        } else if (role === 'user' && typed.type === 'tool_result' && typeof typed.tool_use_id === 'string') {
          flush();
          const message = readToolResult(
            typed,
            callNames.get(typed.tool_use_id),
            warnings,
            `${where}.content[${blockIndex}]`,
          );
          if (message !== undefined) out.push(message);
        } else {
          const part = typed.type === 'tool_use' || typed.type === 'tool_result' ? rawPart(typed) : blockToPart(typed);
          if (part !== undefined) parts.push(part);
        }
      });
    });
    if (role === 'user') flush();
    if (role === 'user' || (parts.length === 0 && toolCalls.length === 0)) {
      if (out.length === before) warnings.push({ code: 'empty_message', message: `Skipped ${where}: no content` });
      return;
    }
    const calls = toolCalls.length > 0 ? { toolCalls } : {};
    const message = tryCreate({ role, content: contentOf(parts), ...calls }, warnings, where);
    if (message !== undefined) out.push(message);
  });
  return { messages: out, warnings };
}

/** The Anthropic Messages API format (`system` + `messages`); the rules are in this module's header. */
export const anthropic: ProviderFormat<AnthropicWire> = Object.freeze({
  provider: 'anthropic',
  to,
  from,
  validate: validateAnthropic,
});
