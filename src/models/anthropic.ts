/**
 * A `ChatModel` over the official `@anthropic-ai/sdk` client's Messages API
 * (`client.messages.create`). Messages go through `formats.anthropic`; the answer is read back with
 * `anthropic.from`, so thinking blocks keep their signatures, `redacted_thinking` and server-tool
 * blocks become raw parts, and the next call sends all of them back unchanged.
 * @module
 */
import { anthropic } from '../formats/anthropic.js';
import type { AnthropicContentBlock } from '../formats/anthropic-wire.js';
import type { FormatWarning } from '../formats/types.js';
import { isRecord } from '../formats/wire-json.js';
import type { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { withAnthropicBreakpoints, type CachePolicy } from './cache-breakpoints.js';
import type {
  AnthropicClientLike,
  AnthropicRequestBody,
  AnthropicTool,
  AnthropicToolChoice,
} from './anthropic-client.js';
import { finishReasonOf, type FinishReasonTable } from './finish-reason.js';
import { toModelError, unreadableAnswer } from './model-error.js';
import { checkExtraBody, checkSettings, invalidRequest, promptMessages } from './request.js';
import { checkTools, type CheckedTool, type CheckedToolChoice } from './tools.js';
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';
import { tokenCount, usageOf } from './usage.js';

const PROVIDER = 'anthropic';

// Fields the adapter writes from the request: `extraBody` setting one would silently win or clash.
const OWNED_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'max_tokens', 'temperature', 'stream'];

/** Options of `anthropicModel`: the client, the model, and defaults every call starts from. */
export interface AnthropicModelOptions {
  /**
   * A client the caller created, e.g. `new Anthropic({ apiKey })`; its retries and timeout apply.
   * The SDK refuses a non-streaming `max_tokens` above about 21,000 unless the client has a `timeout`.
   */
  readonly client: AnthropicClientLike;
  /** Model id, e.g. `claude-sonnet-4-6`. */
  readonly model: string;
  /** Default output token limit, sent as `max_tokens` (required by the API; a request's `maxOutputTokens` wins). */
  readonly maxTokens: number;
  /** Default sampling temperature (a request's own value wins). */
  readonly temperature?: number;
  /** Other request fields sent as given, e.g. `{ thinking: { type: 'enabled', budget_tokens: 2048 }, top_k: 5 }`. */
  readonly extraBody?: JsonObject;
  /** Called with what `formats.anthropic.to` could not carry exactly (foreign reasoning, media in the wrong role). */
  readonly onWarning?: (warning: FormatWarning) => void;
  /**
   * `auto` places prompt-cache breakpoints (`cache_control`) on the stable prefix of every request:
   * the end of the system prompt, the end of the last message, and the end of the previous turn,
   * never more than Anthropic's 4 counting the caller's own markers (which are kept). `off` sends
   * only the caller's markers.
   * @default 'auto'
   */
  readonly cache?: CachePolicy;
}

function toolOf(tool: CheckedTool): AnthropicTool {
  // checkTools guarantees an object root, which is what Anthropic requires of `input_schema`.
  const schema = tool.parameters as AnthropicTool['input_schema'];
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: schema,
  };
}

function toolChoiceOf(choice: CheckedToolChoice): AnthropicToolChoice {
  switch (choice.type) {
    case 'auto':
    case 'none':
      return { type: choice.type };
    case 'required':
      return { type: 'any' };
    case 'tool':
      return { type: 'tool', name: choice.name };
    default: {
      const unreachable: never = choice;
      throw new Error(`unknown tool choice ${JSON.stringify(unreachable)}`);
    }
  }
}

// `pause_turn` (a server tool paused the turn) and `tool_use` without calls are `other`.
const FINISH_REASONS: FinishReasonTable = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

/**
 * One response block as `anthropic.from` should read it: a text block's `citations: null` (how the
 * API says "none") is dropped so the block reads as plain text instead of a raw part.
 */
function responseBlock(block: unknown, index: number): AnthropicContentBlock {
  if (!isRecord(block) || typeof block['type'] !== 'string')
    throw unreadableAnswer(PROVIDER, `content[${index}] is not a content block`);
  if (block['type'] === 'tool_use') {
    const { id, name, input } = block;
    if (typeof id !== 'string' || typeof name !== 'string' || !isRecord(input)) {
      throw unreadableAnswer(
        PROVIDER,
        `content[${index}] is a tool_use block without a string id, a string name and an input object`,
      );
    }
  }
  if (block['type'] === 'text' && block['citations'] === null) {
    const { citations: _none, ...text } = block;
    return text as unknown as AnthropicContentBlock;
  }
  return block as unknown as AnthropicContentBlock;
}

/** The answer's content as one assistant message. */
function answerMessage(content: readonly unknown[], stopReason: unknown): Message {
  const blocks = content.map(responseBlock);
  const { messages, warnings } = anthropic.from({ messages: [{ role: 'assistant', content: blocks }] });
  const [message] = messages;
  if (message === undefined) {
    // An assistant message cannot be empty, and an empty answer cannot be sent back either.
    const why =
      warnings.find((warning) => warning.code !== 'empty_message')?.message ??
      `the answer has no content (stop_reason ${JSON.stringify(stopReason)})`;
    throw unreadableAnswer(PROVIDER, why);
  }
  // Anything `from` skipped would be lost from the conversation.
  const lost = warnings[0];
  if (lost !== undefined || messages.length > 1)
    throw unreadableAnswer(PROVIDER, lost?.message ?? 'the content did not read as one message');
  return message;
}

/** Reads a Messages answer into a `ChatResponse`; throws `unreadableAnswer` when it cannot. */
function readAnswer(answer: unknown): ChatResponse {
  if (!isRecord(answer) || !Array.isArray(answer['content']))
    throw unreadableAnswer(PROVIDER, 'the answer has no content array');
  const message = answerMessage(answer['content'], answer['stop_reason']);
  // Anthropic counts cache reads and writes apart from `input_tokens`; the prompt is all three.
  const uncached = tokenCount(answer, 'usage', 'input_tokens');
  const cacheRead = tokenCount(answer, 'usage', 'cache_read_input_tokens');
  const cacheWrite = tokenCount(answer, 'usage', 'cache_creation_input_tokens');
  const input = uncached === undefined ? undefined : uncached + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const usage = usageOf(input, tokenCount(answer, 'usage', 'output_tokens'), cacheRead, cacheWrite);
  const modelId = answer['model'];
  return {
    message,
    finishReason: finishReasonOf(message, answer['stop_reason'], FINISH_REASONS),
    ...(usage === undefined ? {} : { usage }),
    ...(typeof modelId === 'string' && modelId.length > 0 ? { modelId } : {}),
  };
}

/** True for an error the client threw because the body was not JSON: the answer, not the call, failed. */
function isUnparsableBody(error: unknown): boolean {
  return error instanceof SyntaxError;
}

/**
 * A `ChatModel` speaking the Anthropic Messages API through the caller's `@anthropic-ai/sdk` client.
 * The adapter adds no retry of its own: the client's `maxRetries` (2 by default) applies to
 * 408/409/429/5xx/529 and connection errors, and what still fails is thrown as `ModelError`
 * (`RATE_LIMITED`, `MODEL_FAILED`, `ABORTED` for `request.signal`).
 */
export function anthropicModel(options: AnthropicModelOptions): ChatModel {
  const { client, model, maxTokens, onWarning } = options;
  if (typeof client?.messages?.create !== 'function')
    throw invalidRequest(PROVIDER, 'client must have messages.create (an Anthropic client)');
  if (typeof model !== 'string' || model.length === 0)
    throw invalidRequest(PROVIDER, 'model must be a non-empty string');
  if (!(typeof maxTokens === 'number' && Number.isSafeInteger(maxTokens) && maxTokens > 0)) {
    throw invalidRequest(
      PROVIDER,
      `maxTokens must be a positive integer (the Messages API needs max_tokens on every call), got ${String(maxTokens)}`,
    );
  }
  const extraBody = checkExtraBody(options.extraBody, OWNED_FIELDS, PROVIDER);
  const defaults = checkSettings({ maxOutputTokens: maxTokens, temperature: options.temperature }, {}, PROVIDER);
  const cache = options.cache ?? 'auto';
  if (cache !== 'auto' && cache !== 'off') throw invalidRequest(PROVIDER, "cache must be 'auto' or 'off'");
  // A top-level cache_control (Anthropic's own automatic breakpoint) takes one of the 4.
  const breakpointsElsewhere = extraBody['cache_control'] === undefined || extraBody['cache_control'] === null ? 0 : 1;

  async function complete(request: ChatRequest): Promise<ChatResponse> {
    const prompt = promptMessages(request, PROVIDER);
    const { tools, choice } = checkTools(request.tools, request.toolChoice, PROVIDER);
    const settings = checkSettings(request, defaults, PROVIDER);
    const wire = anthropic.to(prompt);
    for (const warning of wire.warnings) onWarning?.(warning);
    // `to` stands a placeholder turn in for an empty conversation; a model call refuses it instead.
    if (wire.warnings.some((warning) => warning.code === 'empty_conversation'))
      throw invalidRequest(PROVIDER, 'the request has only system messages: Anthropic needs at least one user turn');
    const { system, messages } = cache === 'auto' ? withAnthropicBreakpoints(wire, breakpointsElsewhere) : wire;
    const body: AnthropicRequestBody = {
      ...extraBody,
      model,
      max_tokens: settings.maxOutputTokens ?? maxTokens,
      ...(system === undefined ? {} : { system }),
      messages,
      ...(tools.length > 0 ? { tools: tools.map(toolOf) } : {}),
      ...(choice === undefined ? {} : { tool_choice: toolChoiceOf(choice) }),
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    };
    let answer: unknown;
    try {
      answer = await client.messages.create(
        body,
        request.signal === undefined ? undefined : { signal: request.signal },
      );
    } catch (error) {
      if (isUnparsableBody(error)) throw unreadableAnswer(PROVIDER, 'the body is not JSON', error);
      throw toModelError(error, PROVIDER, request.signal);
    }
    return readAnswer(answer);
  }

  return Object.freeze({ provider: PROVIDER, model, complete });
}
