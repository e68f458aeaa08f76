/**
 * A model provider that behaves like a real one, behind the protocol server, for the official
 * `openai` client (Chat Completions, `/v1/chat/completions`) and `@anthropic-ai/sdk` (`/v1/messages`):
 *
 * - it counts the prompt with its own tokenizer (`gpt-tokenizer`, `o200k_base`) over its own
 *   rendering of the request (every message's text, tool calls' names and arguments, tool results,
 *   tool definitions, plus a per-message overhead as OpenAI's chat format has), never with
 *   chatstate's counter, so its count differs from chatstate's estimate the way a provider's does;
 * - a prompt whose count plus the requested output (`max_completion_tokens`, `max_tokens`) exceeds
 *   the model's context limit gets the provider's real overflow error (HTTP 400, the exact bodies
 *   below);
 * - it caches prompt prefixes: OpenAI's automatic prefix cache (prompts of 1,024 tokens and more,
 *   the longest prefix shared with an earlier prompt of the same `prompt_cache_key`, in 128-token
 *   steps) and Anthropic's explicit one (only up to `cache_control` breakpoints, looking back up to
 *   20 blocks before each one for a prefix an earlier request wrote);
 * - it plays a scripted agent, deterministic from a seed: for each user message it calls the first
 *   tool it is offered for 2–3 rounds (counted from the history after the last user message, so any
 *   history chatstate sends gets a sensible answer), then answers in text;
 * - it records, per request, its prompt count, cached tokens and whether it refused it for overflow.
 *
 * `documentTool` is the tool such a bench or test gives its agent: deterministic text of a
 * configurable size, optionally one huge output larger than the whole window.
 * @module
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { seededRandom } from './seeded-random.js';
import type { JsonValue } from '../../src/message/schema.js';
import type { Tool } from '../../src/runtime/types.js';
import {
  startProtocolServer,
  type ProtocolServer,
  type ReceivedRequest,
  type ReplayedResponse,
} from './protocol-server.js';

type Json = Record<string, unknown>;

/** The context limits of the simulated models, in tokens (8k and 32k as GPT-4's, 128k as GPT-4o's). */
export const SIMULATED_CONTEXT_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  'sim-8k': 8_192,
  'sim-32k': 32_768,
  'sim-128k': 128_000,
});

/** Options of `startProviderSimulator` and `providerSimulator`. */
export interface ProviderSimulatorOptions {
  /** Context limits by model id; a model not listed gets `defaultContextLimit`. @default SIMULATED_CONTEXT_LIMITS */
  readonly contextLimits?: Readonly<Record<string, number>>;
  /** The limit of a model not in `contextLimits`. @default 128_000 */
  readonly defaultContextLimit?: number;
  /** Seed of every choice the scripted agent makes (rounds, arguments, answer text). @default 22 */
  readonly seed?: number;
  /** Sequential tool rounds per user message, drawn per message between the two bounds. @default { min: 2, max: 3 } */
  readonly toolRounds?: { readonly min: number; readonly max: number };
  /** Smallest prompt prefix either cache keeps. @default 1024 */
  readonly minimumCacheTokens?: number;
  /** Blocks before an Anthropic breakpoint where an earlier write is looked for. @default 20 */
  readonly anthropicLookbackBlocks?: number;
}

/** What the simulator recorded about one request. */
export interface SimulatedRequest {
  readonly wire: 'chat' | 'anthropic';
  readonly model: string;
  /** The prompt by the simulator's own count (cached and uncached together). */
  readonly promptTokens: number;
  /** Prompt tokens read from the cache (`cached_tokens`, `cache_read_input_tokens`). */
  readonly cachedTokens: number;
  /** Prompt tokens written to the cache (Anthropic's `cache_creation_input_tokens`; 0 for OpenAI). */
  readonly cacheWriteTokens: number;
  /** The answer's tokens (0 when it was refused). */
  readonly outputTokens: number;
  /** True when it was answered with the context overflow error. */
  readonly overflow: boolean;
  /** True when the answer calls a tool. */
  readonly toolCall: boolean;
}

/** A simulator: a protocol server responder, what it recorded, and its own count. */
export interface ProviderSimulator {
  /** Answers a request (Chat Completions or Messages); `undefined` for any other path. */
  respond(request: ReceivedRequest): ReplayedResponse | undefined;
  /** Every request answered so far, in order. */
  readonly records: SimulatedRequest[];
  /** The simulator's count of a Chat Completions request body's prompt. */
  countChat(body: Json): number;
  /** The simulator's count of one Chat Completions wire message (overhead included). */
  countChatMessage(message: Json): number;
  /** The simulator's count of a Messages request body's prompt. */
  countAnthropic(body: Json): number;
  /** The context limit of `model`. */
  limitOf(model: string): number;
}

/** A simulator served by its own protocol server. */
export interface RunningProviderSimulator extends ProviderSimulator {
  readonly server: ProtocolServer;
  /** `http://127.0.0.1:<port>`: the `openai` client takes `${url}/v1`, `@anthropic-ai/sdk` takes `url`. */
  readonly url: string;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Tokens: one cached token sequence per rendered segment (a message, a block, the tool list).

/** Stands for the special tokens a chat format puts around a message (they never occur in text). */
const OVERHEAD_TOKEN = -1;
/** OpenAI's `<|start|>role<|message|>…<|end|>`: the cookbook counts 3 tokens per message. */
const MESSAGE_OVERHEAD = 3;
/** The tokens that prime the reply (`<|start|>assistant<|message|>`). */
const REPLY_PRIMING = 3;
// Text that contains "<|endoftext|>" is counted as plain text, never rejected.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** A rendered piece of a prompt: its identity in the prefix tries and its tokens. */
interface Segment {
  readonly id: number;
  readonly tokens: Int32Array;
}

// Shared by every simulator of the process: a bench's runs send the same texts again and again,
// and the tokenizer, not the HTTP or JSON work, would otherwise be most of a 128k run's time.
// Keyed by the body (a message's text as parsed, never copied into a longer key), then by the rest.
const segments = new Map<string, Map<string, Segment>>();
const MAX_SEGMENTS = 200_000;
let nextSegmentId = 1;

/** The segment rendered as `head + body + tail`, with `overhead` special tokens before it. */
function segmentOf(head: string, body: string, overhead: number, tail = ''): Segment {
  let byRest = segments.get(body);
  if (byRest === undefined) {
    if (segments.size >= MAX_SEGMENTS) segments.clear();
    byRest = new Map();
    segments.set(body, byRest);
  }
  const rest = `${overhead}\u0000${head}\u0000${tail}`;
  let found = byRest.get(rest);
  if (found === undefined) {
    const encoded = encode(head + body + tail, PLAIN_TEXT);
    const tokens = new Int32Array(overhead + encoded.length);
    tokens.fill(OVERHEAD_TOKEN, 0, overhead);
    tokens.set(encoded, overhead);
    found = { id: nextSegmentId++, tokens };
    byRest.set(rest, found);
  }
  return found;
}

/** The text of wire content: a string, or the `text` of its parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((part) => {
      if (typeof part !== 'object' || part === null) return '';
      const text = (part as Json).text;
      return typeof text === 'string' ? text : JSON.stringify(part);
    })
    .join('\n');
}

function asArray(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

// ---------------------------------------------------------------------------------------------
// Chat Completions: its rendering, in the order OpenAI caches (leading system messages, tools, the rest).

function chatMessageSegment(message: Json): Segment {
  const role = typeof message.role === 'string' ? message.role : 'user';
  const head =
    typeof message.tool_call_id === 'string'
      ? `${role} ${message.tool_call_id}\n`
      : `${role}${typeof message.name === 'string' ? ` ${message.name}` : ''}\n`;
  let tail = '';
  for (const call of asArray(message.tool_calls)) {
    const fn = (call.function ?? {}) as Json;
    tail += `\nto=functions.${String(fn.name)} id=${String(call.id)}\n${String(fn.arguments)}`;
  }
  return segmentOf(head, textOf(message.content), MESSAGE_OVERHEAD, tail);
}

function chatToolsSegment(tools: readonly Json[]): Segment | undefined {
  if (tools.length === 0) return undefined;
  const lines = ['# Tools', 'namespace functions {'];
  for (const tool of tools) {
    const fn = (tool.function ?? tool) as Json;
    if (typeof fn.description === 'string') lines.push(`// ${fn.description}`);
    lines.push(`type ${String(fn.name)} = (_: ${JSON.stringify(fn.parameters ?? {})}) => any;`);
  }
  lines.push('}');
  return segmentOf('', lines.join('\n'), MESSAGE_OVERHEAD);
}

const PRIMING = { id: 0, tokens: new Int32Array(REPLY_PRIMING).fill(OVERHEAD_TOKEN) } satisfies Segment;

function chatSegments(body: Json): Segment[] {
  const messages = asArray(body.messages);
  const out: Segment[] = [];
  let i = 0;
  for (; i < messages.length; i++) {
    const role = (messages[i] as Json).role;
    if (role !== 'system' && role !== 'developer') break;
    out.push(chatMessageSegment(messages[i] as Json));
  }
  const tools = chatToolsSegment(asArray(body.tools));
  if (tools !== undefined) out.push(tools);
  for (; i < messages.length; i++) out.push(chatMessageSegment(messages[i] as Json));
  out.push(PRIMING);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Messages: tools, then system, then messages (Anthropic's cache order), one segment per block.

/** A block and whether a `cache_control` breakpoint ends at it. */
interface Block {
  readonly segment: Segment;
  readonly breakpoint: boolean;
}

function hasBreakpoint(value: Json): boolean {
  return typeof value.cache_control === 'object' && value.cache_control !== null;
}

/** A block rendered as its head and its body (the text it carries). */
function blockParts(block: Json): { head: string; body: string } {
  switch (block.type) {
    case 'text':
      return { head: '', body: String(block.text) };
    case 'tool_use':
      return { head: `to=${String(block.name)} id=${String(block.id)}\n`, body: JSON.stringify(block.input ?? {}) };
    case 'tool_result':
      return { head: `result ${String(block.tool_use_id)}\n`, body: textOf(block.content) };
    default: {
      // Another block type counts by its JSON, without the breakpoint marker (not part of the prompt).
      const { cache_control: _marker, ...rest } = block;
      return { head: '', body: JSON.stringify(rest) };
    }
  }
}

/** The segment of a block; the first block of a message carries its role and overhead. */
function blockSegment(block: Json, role: string | undefined): Segment {
  const { head, body } = blockParts(block);
  return role === undefined ? segmentOf(head, body, 0) : segmentOf(`${role}\n${head}`, body, MESSAGE_OVERHEAD);
}

function anthropicBlocks(body: Json): Block[] {
  const out: Block[] = [];
  for (const tool of asArray(body.tools)) {
    const head = `tool ${String(tool.name)}\n${String(tool.description ?? '')}\n`;
    out.push({ segment: segmentOf(head, JSON.stringify(tool.input_schema ?? {}), 0), breakpoint: hasBreakpoint(tool) });
  }
  const system = body.system;
  if (typeof system === 'string')
    out.push({ segment: segmentOf('system\n', system, MESSAGE_OVERHEAD), breakpoint: false });
  else
    asArray(system).forEach((block, index) =>
      out.push({
        segment: blockSegment(block, index === 0 ? 'system' : undefined),
        breakpoint: hasBreakpoint(block),
      }),
    );
  for (const message of asArray(body.messages)) {
    const role = String(message.role);
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : asArray(message.content);
    content.forEach((block, index) =>
      out.push({
        segment: blockSegment(block, index === 0 ? role : undefined),
        breakpoint: hasBreakpoint(block),
      }),
    );
  }
  return out;
}

function total(list: readonly Segment[]): number {
  let sum = 0;
  for (const segment of list) sum += segment.tokens.length;
  return sum;
}

// ---------------------------------------------------------------------------------------------
// The prefix caches: a trie over segment ids of the prompts seen.

interface TrieNode {
  readonly children: Map<number, TrieNode>;
  readonly segment: Segment | undefined;
  /** Anthropic: a cache entry was written for the prefix ending here. */
  written: boolean;
}

function trieNode(segment?: Segment): TrieNode {
  return { children: new Map(), segment, written: false };
}

function commonTokens(a: Int32Array, b: Int32Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Children of a node compared token by token when the walk stops inside a segment. */
const PARTIAL_MATCH_CHILDREN = 16;

/** Tokens of `prompt` shared with the longest matching prefix in `root`, then adds `prompt` to it. */
function longestPrefixThenInsert(root: TrieNode, prompt: readonly Segment[]): number {
  let node = root;
  let shared = 0;
  let i = 0;
  for (; i < prompt.length; i++) {
    const segment = prompt[i] as Segment;
    const next = node.children.get(segment.id);
    if (next === undefined) break;
    shared += segment.tokens.length;
    node = next;
  }
  if (i < prompt.length) {
    // Token-level: the next segment may share its beginning with one an earlier prompt had there.
    const segment = prompt[i] as Segment;
    let best = 0;
    let checked = 0;
    for (const child of node.children.values()) {
      if (checked++ >= PARTIAL_MATCH_CHILDREN) break;
      best = Math.max(best, commonTokens(segment.tokens, (child.segment as Segment).tokens));
    }
    shared += best;
  }
  for (; i < prompt.length; i++) {
    const segment = prompt[i] as Segment;
    const next = trieNode(segment);
    node.children.set(segment.id, next);
    node = next;
  }
  return shared;
}

// ---------------------------------------------------------------------------------------------
// Deterministic choices.

/** FNV-1a of `text` mixed with `seed`. */
function hash(seed: number, text: string): number {
  let h = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

const WORDS = (
  'the of and to in is that for it as with was on be by this are from at or an which have not ' +
  'state session message turn model window cache token prompt history store tool result answer ' +
  'request budget limit provider client server record value offset index schema version query ' +
  'compaction summary context overflow retry error status field array object string number ' +
  'config option default reader writer buffer stream handler route parser format encode decode'
).split(' ');
const IDENTIFIERS = [
  'sessionId',
  'messageCount',
  'tokenBudget',
  'readChunk',
  'applyPatch',
  'cacheKey',
  'nextOffset',
  'parseHeader',
  'toolCallId',
  'retryAfterMs',
];

function sentence(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)] as string);
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** One line of a document: prose, code or a JSON record, as tool outputs mix them. */
function documentLine(next: () => number, index: number): string {
  const kind = next();
  const id = IDENTIFIERS[Math.floor(next() * IDENTIFIERS.length)] as string;
  if (kind < 0.45) return sentence(next, 8 + Math.floor(next() * 14));
  if (kind < 0.75)
    return `  const ${id}${index} = ${IDENTIFIERS[Math.floor(next() * IDENTIFIERS.length)]}(${Math.floor(next() * 100_000)}, "${WORDS[Math.floor(next() * WORDS.length)]}");`;
  return JSON.stringify({ id: index, [id]: Math.floor(next() * 1_000_000), note: sentence(next, 5) });
}

/** Deterministic text of at least `tokens` tokens (by `o200k_base`, a line more at most) from `seed`. */
export function documentText(seed: number, tokens: number): string {
  const next = seededRandom(seed);
  const lines: string[] = [];
  let count = 0;
  // Lines counted one by one overcount the whole text (a line break merges with what follows):
  // add lines by their own count, then check the whole, until it is long enough.
  while (count < tokens) {
    let added = 0;
    while (added < tokens - count) {
      const line = documentLine(next, lines.length + 1);
      lines.push(line);
      added += encode(line, PLAIN_TEXT).length;
    }
    count = encode(lines.join('\n'), PLAIN_TEXT).length;
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The conversation as the scripted agent reads it.

/** Where the agent is in the current user turn. */
interface TurnPosition {
  /** The text of the last user message (tool results aside); '' when there is none. */
  readonly userText: string;
  /** Answers with tool calls since that user message. */
  readonly roundsDone: number;
  /** Tool results since that user message. */
  readonly results: number;
}

function chatPosition(body: Json): TurnPosition {
  const messages = asArray(body.messages);
  let roundsDone = 0;
  let results = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Json;
    if (message.role === 'user') return { userText: textOf(message.content), roundsDone, results };
    if (message.role === 'tool') results++;
    if (message.role === 'assistant' && asArray(message.tool_calls).length > 0) roundsDone++;
  }
  return { userText: '', roundsDone, results };
}

function anthropicPosition(body: Json): TurnPosition {
  const messages = asArray(body.messages);
  let roundsDone = 0;
  let results = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Json;
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : asArray(message.content);
    if (message.role === 'assistant') {
      if (content.some((block) => block.type === 'tool_use')) roundsDone++;
      continue;
    }
    const toolResults = content.filter((block) => block.type === 'tool_result').length;
    results += toolResults;
    const text = content
      .filter((block) => block.type === 'text')
      .map((block) => String(block.text))
      .join('\n');
    if (toolResults === 0 || text !== '') return { userText: text, roundsDone, results };
  }
  return { userText: '', roundsDone, results };
}

/** The agent's next move: a tool call, or the final text. */
type Move =
  | { readonly kind: 'tool'; readonly name: string; readonly id: string; readonly args: Json }
  | { readonly kind: 'text'; readonly text: string };

function toolNames(wire: 'chat' | 'anthropic', body: Json): string[] {
  return asArray(body.tools).map((tool) => String(wire === 'chat' ? ((tool.function ?? {}) as Json).name : tool.name));
}

// ---------------------------------------------------------------------------------------------

/**
 * The provider's overflow answer, word for word as the providers send it (as quoted in public
 * reports): OpenAI's `context_length_exceeded` (e.g. github.com/crewAIInc/crewAI-examples/issues/121;
 * the "you requested … in the completion" form when an output limit is sent, e.g.
 * github.com/yakGPT/yakGPT/issues/13) and Anthropic's `prompt is too long`
 * (github.com/anthropics/claude-code/issues/12186) or, when the prompt fits but not with `max_tokens`,
 * `input length and \`max_tokens\` exceed context limit` (github.com/docker/docker-agent/issues/569).
 */
function overflowAnswer(
  wire: 'chat' | 'anthropic',
  limit: number,
  prompt: number,
  output: number | undefined,
): ReplayedResponse {
  if (wire === 'chat') {
    // OpenAI words it differently when the request names an output limit.
    const message =
      output === undefined || output === 0
        ? `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`
        : `This model's maximum context length is ${limit} tokens. However, you requested ${prompt + output} tokens (${prompt} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`;
    return {
      status: 400,
      body: { error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
    };
  }
  // Anthropic: a prompt over the limit, or a prompt that fits but not with `max_tokens` beside it.
  const message =
    prompt > limit
      ? `prompt is too long: ${prompt} tokens > ${limit} maximum`
      : `input length and \`max_tokens\` exceed context limit: ${prompt} + ${output ?? 0} > ${limit}, decrease input length or \`max_tokens\` and try again`;
  return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
}

/** The record of a request refused for overflow. */
function refused(wire: 'chat' | 'anthropic', model: string, promptTokens: number): SimulatedRequest {
  return {
    wire,
    model,
    promptTokens,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    overflow: true,
    toolCall: false,
  };
}

function outputLimitOf(body: Json): number | undefined {
  for (const field of ['max_completion_tokens', 'max_tokens']) {
    const value = body[field];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  }
  return undefined;
}

/** Makes a simulator (a responder to give a protocol server's `respondWith`). */
export function providerSimulator(options: ProviderSimulatorOptions = {}): ProviderSimulator {
  const limits = options.contextLimits ?? SIMULATED_CONTEXT_LIMITS;
  const defaultLimit = options.defaultContextLimit ?? 128_000;
  const seed = options.seed ?? 22;
  const rounds = options.toolRounds ?? { min: 2, max: 3 };
  const minimumCache = options.minimumCacheTokens ?? 1024;
  const lookback = options.anthropicLookbackBlocks ?? 20;
  const records: SimulatedRequest[] = [];
  // OpenAI: one trie per `prompt_cache_key`, and one of every prompt for requests without a key.
  const openaiTries = new Map<string, TrieNode>();
  const anyPrompt = trieNode();
  const anthropicTrie = trieNode();
  let answers = 0;

  const limitOf = (model: string): number => limits[model] ?? defaultLimit;

  function moveFor(wire: 'chat' | 'anthropic', body: Json, position: TurnPosition): Move {
    const names = toolNames(wire, body);
    const random01 = seededRandom(hash(seed, `rounds\u0000${position.userText}`));
    const wanted = rounds.min + Math.floor(random01() * (rounds.max - rounds.min + 1));
    const name = names[0];
    if (name !== undefined && position.userText !== '' && position.roundsDone < wanted) {
      const part = position.roundsDone + 1;
      const key = hash(seed, `call\u0000${position.userText}\u0000${part}`);
      return {
        kind: 'tool',
        name,
        id: `${wire === 'chat' ? 'call_' : 'toolu_'}${key.toString(36)}${hash(key, position.userText).toString(36)}`,
        // The tool is told what to read; its output's size is the tool's own business.
        args: { query: position.userText.slice(0, 80), part },
      };
    }
    const next = seededRandom(hash(seed, `answer\u0000${position.userText}\u0000${position.results}`));
    const text = `I read ${position.results} tool result${position.results === 1 ? '' : 's'}. ${sentence(next, 30 + Math.floor(next() * 60))}`;
    return { kind: 'text', text };
  }

  function openaiCached(body: Json, prompt: readonly Segment[]): number {
    const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
    let trie = anyPrompt;
    if (key !== undefined) {
      trie = openaiTries.get(key) ?? trieNode();
      openaiTries.set(key, trie);
    }
    const shared = longestPrefixThenInsert(trie, prompt);
    if (key !== undefined) longestPrefixThenInsert(anyPrompt, prompt);
    // OpenAI: prompts of 1,024 tokens and more, hits in 128-token steps.
    return shared >= minimumCache ? Math.floor(shared / 128) * 128 : 0;
  }

  function anthropicCache(blocks: readonly Block[]): { read: number; write: number } {
    const breakpoints: number[] = [];
    blocks.forEach((block, index) => {
      if (block.breakpoint) breakpoints.push(index);
    });
    const last = breakpoints.at(-1);
    if (last === undefined) return { read: 0, write: 0 };
    // The prefix sums and trie path up to the last breakpoint (nodes made as needed: a write needs them).
    const prefix: number[] = [];
    const path: TrieNode[] = [];
    let node = anthropicTrie;
    let sum = 0;
    for (let i = 0; i <= last; i++) {
      const segment = (blocks[i] as Block).segment;
      let next = node.children.get(segment.id);
      if (next === undefined) {
        next = trieNode(segment);
        node.children.set(segment.id, next);
      }
      node = next;
      sum += segment.tokens.length;
      prefix.push(sum);
      path.push(node);
    }
    // A read: the longest prefix an earlier request wrote, ending within the lookback of a breakpoint.
    let readEnd = -1;
    for (const breakpoint of breakpoints) {
      for (let j = breakpoint; j >= 0 && j >= breakpoint - lookback; j--) {
        if ((path[j] as TrieNode).written) {
          readEnd = Math.max(readEnd, j);
          break;
        }
      }
    }
    const read = readEnd < 0 ? 0 : (prefix[readEnd] as number);
    let write = 0;
    for (const breakpoint of breakpoints) {
      const tokens = prefix[breakpoint] as number;
      if (tokens < minimumCache) continue;
      (path[breakpoint] as TrieNode).written = true;
      if (breakpoint > readEnd) write = tokens - read;
    }
    return { read, write };
  }

  function chatAnswer(body: Json): ReplayedResponse {
    const model = String(body.model);
    const prompt = chatSegments(body);
    const promptTokens = total(prompt);
    const output = outputLimitOf(body);
    const limit = limitOf(model);
    if (promptTokens + (output ?? 0) > limit) {
      records.push(refused('chat', model, promptTokens));
      return overflowAnswer('chat', limit, promptTokens, output);
    }
    const cachedTokens = openaiCached(body, prompt);
    const move = moveFor('chat', body, chatPosition(body));
    answers += 1;
    const message =
      move.kind === 'tool'
        ? {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              { id: move.id, type: 'function', function: { name: move.name, arguments: JSON.stringify(move.args) } },
            ],
          }
        : { role: 'assistant', content: move.text, refusal: null, annotations: [] };
    const outputTokens = chatMessageSegment(message).tokens.length;
    records.push({
      wire: 'chat',
      model,
      promptTokens,
      cachedTokens,
      cacheWriteTokens: 0,
      outputTokens,
      overflow: false,
      toolCall: move.kind === 'tool',
    });
    return {
      body: {
        id: `chatcmpl-sim${answers}`,
        object: 'chat.completion',
        created: 1_764_374_400,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: move.kind === 'tool' ? 'tool_calls' : 'stop' }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: outputTokens,
          total_tokens: promptTokens + outputTokens,
          prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
        service_tier: 'default',
        system_fingerprint: 'fp_simulator',
      },
    };
  }

  function anthropicAnswer(body: Json): ReplayedResponse {
    const model = String(body.model);
    const blocks = anthropicBlocks(body);
    const promptTokens = total(blocks.map((block) => block.segment));
    const output = outputLimitOf(body);
    const limit = limitOf(model);
    if (promptTokens + (output ?? 0) > limit) {
      records.push(refused('anthropic', model, promptTokens));
      return overflowAnswer('anthropic', limit, promptTokens, output);
    }
    const { read, write } = anthropicCache(blocks);
    const move = moveFor('anthropic', body, anthropicPosition(body));
    answers += 1;
    const content =
      move.kind === 'tool'
        ? [{ type: 'tool_use', id: move.id, name: move.name, input: move.args }]
        : [{ type: 'text', text: move.text }];
    const outputTokens = total(
      content.map((block, index) => blockSegment(block, index === 0 ? 'assistant' : undefined)),
    );
    records.push({
      wire: 'anthropic',
      model,
      promptTokens,
      cachedTokens: read,
      cacheWriteTokens: write,
      outputTokens,
      overflow: false,
      toolCall: move.kind === 'tool',
    });
    return {
      body: {
        id: `msg_sim${answers}`,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: move.kind === 'tool' ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: promptTokens - read - write,
          cache_creation_input_tokens: write,
          cache_read_input_tokens: read,
          output_tokens: outputTokens,
        },
      },
    };
  }

  return {
    records,
    limitOf,
    respond(request: ReceivedRequest): ReplayedResponse | undefined {
      if (typeof request.body !== 'object' || request.body === null) return undefined;
      const body = request.body as Json;
      if (request.path.endsWith('/chat/completions')) return chatAnswer(body);
      if (request.path.endsWith('/messages')) return anthropicAnswer(body);
      return undefined;
    },
    countChat: (body) => total(chatSegments(body)),
    countChatMessage: (message) => chatMessageSegment(message).tokens.length,
    countAnthropic: (body) => total(anthropicBlocks(body).map((block) => block.segment)),
  };
}

/** Starts a protocol server answered by a new simulator. */
export async function startProviderSimulator(
  options: ProviderSimulatorOptions = {},
): Promise<RunningProviderSimulator> {
  const simulator = providerSimulator(options);
  const server = await startProtocolServer();
  server.respondWith((request) => simulator.respond(request));
  return { ...simulator, records: simulator.records, server, url: server.url, close: () => server.close() };
}

// ---------------------------------------------------------------------------------------------
// The tool the scripted agent calls.

/** Options of `documentTool`. */
export interface DocumentToolOptions {
  /** The tool's name. @default 'read_document' */
  readonly name?: string;
  /** Smallest output, in tokens. @default 300 */
  readonly minTokens?: number;
  /** Largest output, in tokens. @default 1300 */
  readonly maxTokens?: number;
  /** Seed of the sizes and texts. @default 22 */
  readonly seed?: number;
  /** Outputs of `tokens` tokens instead, for the calls `when` picks (e.g. one larger than the whole window). */
  readonly huge?: { readonly tokens: number; readonly when: (query: string, part: number) => boolean };
}

/** A tool whose output is deterministic text of a size drawn from its arguments (`query`, `part`). */
export function documentTool(options: DocumentToolOptions = {}): Tool {
  const { name = 'read_document', minTokens = 300, maxTokens = 1300, seed = 22, huge } = options;
  const texts = new Map<string, string>();
  return {
    name,
    description: 'Reads the part of the project documents that answers a query.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, part: { type: 'integer' } },
      required: ['query', 'part'],
    },
    execute(args: JsonValue): string {
      const { query = '', part = 1 } = (typeof args === 'object' && args !== null ? args : {}) as {
        query?: string;
        part?: number;
      };
      const key = `${query}\u0000${part}`;
      let text = texts.get(key);
      if (text === undefined) {
        const drawn = hash(seed, key);
        const tokens =
          huge !== undefined && huge.when(query, part)
            ? huge.tokens
            : minTokens + (drawn % (maxTokens - minTokens + 1));
        text = documentText(drawn, tokens);
        texts.set(key, text);
      }
      return text;
    },
  };
}
