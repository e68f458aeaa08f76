/**
 * Automatic Anthropic prompt-cache breakpoints (`cache_control: { type: 'ephemeral' }`), placed on
 * the prefix that stays the same from call to call, for the Messages API wire and for AI SDK
 * messages sent to an Anthropic model. Anthropic caches nothing unasked: without a breakpoint every
 * call pays the full input price for the whole history.
 *
 * Where they go, most valuable first, until the request holds `MAX_CACHE_BREAKPOINTS` counting the
 * caller's own (which are kept, and win):
 * 1. the last block of the request's last message: the next call (the tool loop's next step, or
 *    the next turn) starts with everything this one sent, so it reads what this one wrote;
 * 2. the end of the system prompt: the prefix that outlives a window's or a compaction's cut;
 * 3. the last block of the message before the newest user turn (the previous turn's end), which
 *    the next turn can still find when this turn adds more blocks than Anthropic looks back over.
 *
 * Anthropic refuses `cache_control` on an empty text block and on thinking blocks
 * (`thinking`, `redacted_thinking`); a breakpoint goes on the last block of the message that can
 * carry one.
 * @module
 */
import type { AiSdkModelMessage, AiSdkProviderOptions, AiSdkSystemMessage } from '../formats/ai-sdk-wire.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicTextBlock } from '../formats/anthropic-wire.js';
import { hasText, isRecord } from '../formats/wire-json.js';

/** Most blocks with `cache_control` one Anthropic request may hold (a fifth is a 400). */
export const MAX_CACHE_BREAKPOINTS = 4;

/** Whether an adapter places cache breakpoints itself (`auto`) or sends only the caller's (`off`). */
export type CachePolicy = 'auto' | 'off';

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Where a breakpoint may go: the system prompt, or a message by index. */
type Place = 'system' | number;

/**
 * The places, most valuable first, without repeats: the last message, the system prompt, the
 * message before the newest user turn (`isUserInput` tells a user's input from tool results).
 */
function placesOf(count: number, isUserInput: (index: number) => boolean): Place[] {
  const places: Place[] = [];
  if (count > 0) places.push(count - 1);
  places.push('system');
  let newestInput = count - 1;
  while (newestInput >= 0 && !isUserInput(newestInput)) newestInput--;
  const previousEnd = newestInput - 1;
  if (previousEnd >= 0 && previousEnd !== count - 1) places.push(previousEnd);
  return places;
}

/** `value` sets a cache breakpoint (a non-null `cache_control`). */
function marked(value: unknown): boolean {
  return isRecord(value) && value['cache_control'] !== undefined && value['cache_control'] !== null;
}

// --- The Messages API wire --------------------------------------------------------------------

/** The blocks a breakpoint may go on; any other (thinking, server tools, unknown types) is passed over. */
function anthropicCacheable(block: AnthropicContentBlock): boolean {
  switch (block.type) {
    case 'text':
      return hasText(block.text);
    case 'image':
    case 'document':
    case 'tool_use':
    case 'tool_result':
      return true;
    default:
      return false;
  }
}

/** Blocks with a breakpoint among `blocks`, the content of tool results included. */
function anthropicMarks(blocks: readonly unknown[]): number {
  let count = 0;
  for (const block of blocks) {
    if (marked(block)) count++;
    const inner = isRecord(block) ? block['content'] : undefined;
    if (Array.isArray(inner)) count += anthropicMarks(inner);
  }
  return count;
}

function asBlocks(content: string | AnthropicContentBlock[]): AnthropicContentBlock[] {
  if (typeof content !== 'string') return content;
  return hasText(content) ? [{ type: 'text', text: content }] : [];
}

/**
 * `blocks` with a breakpoint on the last block that can carry one: `'kept'` when that block has
 * the caller's own, `undefined` when no block can.
 */
function markLast<T extends AnthropicContentBlock>(blocks: readonly T[]): T[] | 'kept' | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i] as T;
    if (!anthropicCacheable(block)) continue;
    if (marked(block)) return 'kept';
    const copy = [...blocks];
    copy[i] = { ...block, cache_control: { ...EPHEMERAL } };
    return copy;
  }
  return undefined;
}

/** The Messages API `system` and `messages` an Anthropic request sends. */
export interface AnthropicPrompt {
  readonly system?: string | AnthropicTextBlock[];
  readonly messages: AnthropicMessage[];
}

/**
 * `prompt` with automatic breakpoints (see the module header); `elsewhere` counts breakpoints set
 * outside `system` and `messages` (a top-level `cache_control` of `extraBody`). New arrays and
 * blocks where a breakpoint is added; `prompt` itself is not changed.
 */
export function withAnthropicBreakpoints(prompt: AnthropicPrompt, elsewhere = 0): AnthropicPrompt {
  let system = prompt.system === undefined ? undefined : (asBlocks(prompt.system) as AnthropicTextBlock[]);
  const messages = [...prompt.messages];
  let budget =
    MAX_CACHE_BREAKPOINTS -
    elsewhere -
    anthropicMarks(system ?? []) -
    messages.reduce((sum, message) => sum + anthropicMarks(asBlocks(message.content)), 0);
  const isUserInput = (index: number): boolean => {
    const message = messages[index];
    return message?.role === 'user' && asBlocks(message.content).some((block) => block.type !== 'tool_result');
  };
  let systemMarked = false;
  for (const place of placesOf(messages.length, isUserInput)) {
    if (budget <= 0) break;
    if (place === 'system') {
      const result = system === undefined ? undefined : markLast(system);
      if (Array.isArray(result)) {
        system = result;
        systemMarked = true;
        budget--;
      }
      continue;
    }
    const message = messages[place] as AnthropicMessage;
    const result = markLast(asBlocks(message.content));
    if (Array.isArray(result)) {
      messages[place] = { ...message, content: result };
      budget--;
    }
  }
  const systemOut = systemMarked ? system : prompt.system;
  return { ...(systemOut === undefined ? {} : { system: systemOut }), messages };
}

// --- AI SDK messages for an Anthropic model ---------------------------------------------------

function aiSdkMarked(options: AiSdkProviderOptions | undefined): boolean {
  const anthropic = options?.['anthropic'];
  return isRecord(anthropic) && (isRecord(anthropic['cacheControl']) || isRecord(anthropic['cache_control']));
}

function withAiSdkMark<T extends { providerOptions?: AiSdkProviderOptions }>(part: T): T {
  const options = part.providerOptions;
  return {
    ...part,
    providerOptions: { ...options, anthropic: { ...options?.['anthropic'], cacheControl: { ...EPHEMERAL } } },
  };
}

type AiSdkPart = Exclude<AiSdkModelMessage['content'], string>[number];

function aiSdkCacheable(part: AiSdkPart): boolean {
  switch (part.type) {
    case 'text':
      return hasText(part.text);
    case 'image':
    case 'file':
    case 'tool-call':
    case 'tool-result':
      return true;
    default:
      return false;
  }
}

function aiSdkParts(message: AiSdkModelMessage): AiSdkPart[] {
  if (typeof message.content !== 'string') return message.content;
  return hasText(message.content) ? [{ type: 'text', text: message.content }] : [];
}

function aiSdkMarks(message: AiSdkModelMessage): number {
  const own = aiSdkMarked(message.providerOptions) ? 1 : 0;
  if (typeof message.content === 'string') return own;
  return message.content.reduce(
    (sum, part) => sum + ('providerOptions' in part && aiSdkMarked(part.providerOptions) ? 1 : 0),
    own,
  );
}

/** `message` with a breakpoint on its last part that can carry one; `'kept'` or `undefined` as `markLast`. */
function markLastPart(message: AiSdkModelMessage): AiSdkModelMessage | 'kept' | undefined {
  if (message.role === 'system') return undefined; // a mid-conversation instruction is never a turn's end
  if (aiSdkMarked(message.providerOptions)) return 'kept';
  const parts = aiSdkParts(message);
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as AiSdkPart;
    if (!aiSdkCacheable(part)) continue;
    if ('providerOptions' in part && aiSdkMarked(part.providerOptions)) return 'kept';
    const copy = [...parts];
    copy[i] = withAiSdkMark(part as AiSdkPart & { providerOptions?: AiSdkProviderOptions });
    return { ...message, content: copy } as AiSdkModelMessage;
  }
  return undefined;
}

/** The `system` and `messages` of a `generateText` call. */
export interface AiSdkPrompt {
  readonly system?: string | AiSdkSystemMessage;
  readonly messages: AiSdkModelMessage[];
}

/**
 * `prompt` with automatic breakpoints for an Anthropic model of the AI SDK, as
 * `providerOptions.anthropic.cacheControl` on parts (which `@ai-sdk/anthropic` writes as
 * `cache_control` on their blocks); a system prompt string becomes a system message carrying one.
 */
export function withAiSdkBreakpoints(prompt: AiSdkPrompt): AiSdkPrompt {
  let system: AiSdkSystemMessage | undefined =
    typeof prompt.system === 'string' ? { role: 'system', content: prompt.system } : prompt.system;
  const messages = [...prompt.messages];
  let budget =
    MAX_CACHE_BREAKPOINTS -
    (aiSdkMarked(system?.providerOptions) ? 1 : 0) -
    messages.reduce((sum, message) => sum + aiSdkMarks(message), 0);
  let systemMarked = false;
  for (const place of placesOf(messages.length, (index) => messages[index]?.role === 'user')) {
    if (budget <= 0) break;
    if (place === 'system') {
      if (system !== undefined && hasText(system.content) && !aiSdkMarked(system.providerOptions)) {
        system = withAiSdkMark(system);
        systemMarked = true;
        budget--;
      }
      continue;
    }
    const result = markLastPart(messages[place] as AiSdkModelMessage);
    if (typeof result === 'object') {
      messages[place] = result;
      budget--;
    }
  }
  // An unmarked system prompt goes back as it came (a string stays a string).
  const systemOut = systemMarked ? system : prompt.system;
  return { ...(systemOut === undefined ? {} : { system: systemOut }), messages };
}
