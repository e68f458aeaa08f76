/**
 * A `ChatModel` over the official `openai` client's Chat Completions
 * (`client.chat.completions.create`). Messages go through `formats.openaiChat`, the answer is read
 * back with `openaiChatFromResponse`, so provider-specific fields (refusals, audio ids, custom tool
 * calls) come back as raw parts that the next call sends unchanged.
 * @module
 */
import type { FormatWarning } from '../formats/types.js';
import { openaiChat, openaiChatFromResponse } from '../formats/openai-chat.js';
import type { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { finishReasonOf, type FinishReasonTable } from './finish-reason.js';
import { toModelError, unreadableAnswer } from './model-error.js';
import type {
  OpenaiChatClientLike,
  OpenaiChatFunctionTool,
  OpenaiChatRequestBody,
  OpenaiChatToolChoice,
} from './openai-client.js';
import { checkExtraBody, checkSettings, invalidRequest, promptCacheKey, promptMessages } from './request.js';
import { checkTools, toolChoiceWith, type CheckedToolChoice } from './tools.js';
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';
import { tokenCount, usageOf } from './usage.js';

const PROVIDER = 'openaiChat';

// Fields the adapter writes from the request: `extraBody` setting one would silently win or clash.
const OWNED_FIELDS = [
  'model',
  'messages',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
  'max_completion_tokens',
  'max_tokens',
  'temperature',
];

/** Options of `openaiChatModel`: the client, the model, and defaults every call starts from. */
export interface OpenaiChatModelOptions {
  /** A client the caller created, e.g. `new OpenAI({ apiKey })`; its retries and timeout apply. */
  readonly client: OpenaiChatClientLike;
  /** Model id, e.g. `gpt-4.1-mini`. */
  readonly model: string;
  /** Default sampling temperature (a request's own value wins). */
  readonly temperature?: number;
  /** Default output token limit, sent as `max_completion_tokens` (a request's own value wins). */
  readonly maxOutputTokens?: number;
  /** Sends `strict: true` on every function tool (Structured Outputs; each schema must then be strict). @default not sent */
  readonly strict?: boolean;
  /** Other request fields sent as given, e.g. `{ reasoning_effort: 'low', parallel_tool_calls: false }`. */
  readonly extraBody?: JsonObject;
  /** Called with what `formats.openaiChat.to` could not carry exactly (dropped reasoning, media in the wrong role). */
  readonly onWarning?: (warning: FormatWarning) => void;
}

function toolChoiceOf(choice: CheckedToolChoice): OpenaiChatToolChoice {
  return toolChoiceWith(choice, (name) => ({ type: 'function', function: { name } }));
}

// `function_call` (deprecated) and `tool_calls` without calls are `other`.
const FINISH_REASONS: FinishReasonTable = { stop: 'stop', length: 'length', content_filter: 'content_filter' };

function firstChoice(answer: unknown): Record<string, unknown> | undefined {
  const choices =
    typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)['choices'] : undefined;
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  return typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : undefined;
}

/** Reads a Chat Completions answer into a `ChatResponse`; throws `unreadableAnswer` when it cannot. */
function readAnswer(answer: unknown): ChatResponse {
  const choice = firstChoice(answer);
  if (choice === undefined) throw unreadableAnswer(PROVIDER, 'the answer has no choices');
  let message: Message;
  try {
    message = openaiChatFromResponse(answer);
  } catch (error) {
    // Reasoning models can spend the whole token limit thinking and return empty content.
    const why =
      choice['finish_reason'] === 'length'
        ? 'it was cut at the output token limit before any content'
        : 'choices[0].message is not a readable assistant message';
    throw unreadableAnswer(PROVIDER, why, error);
  }
  const usage = usageOf(
    tokenCount(answer, 'usage', 'prompt_tokens'),
    tokenCount(answer, 'usage', 'completion_tokens'),
    tokenCount(answer, 'usage', 'prompt_tokens_details', 'cached_tokens'),
    tokenCount(answer, 'usage', 'prompt_tokens_details', 'cache_write_tokens'),
  );
  const modelId = (answer as Record<string, unknown>)['model'];
  return {
    message,
    finishReason: finishReasonOf(message, choice['finish_reason'], FINISH_REASONS),
    ...(usage === undefined ? {} : { usage }),
    ...(typeof modelId === 'string' && modelId.length > 0 ? { modelId } : {}),
  };
}

/**
 * A `ChatModel` speaking OpenAI Chat Completions through the caller's `openai` client. The adapter
 * adds no retry of its own: the client's `maxRetries` (2 by default) applies to 408/409/429/5xx and
 * connection errors, and what still fails is thrown as `ModelError` (`RATE_LIMITED`,
 * `MODEL_FAILED`, `ABORTED` for `request.signal`).
 */
export function openaiChatModel(options: OpenaiChatModelOptions): ChatModel {
  const { client, model, strict, onWarning } = options;
  if (typeof client?.chat?.completions?.create !== 'function')
    throw invalidRequest(PROVIDER, 'client must have chat.completions.create (an OpenAI client)');
  if (typeof model !== 'string' || model.length === 0)
    throw invalidRequest(PROVIDER, 'model must be a non-empty string');
  if (strict !== undefined && typeof strict !== 'boolean') throw invalidRequest(PROVIDER, 'strict must be a boolean');
  const extraBody = checkExtraBody(options.extraBody, OWNED_FIELDS, PROVIDER);
  const defaults = checkSettings(options, {}, PROVIDER);

  async function complete(request: ChatRequest): Promise<ChatResponse> {
    const prompt = promptMessages(request, PROVIDER);
    const { tools, choice } = checkTools(request.tools, request.toolChoice, PROVIDER);
    const settings = checkSettings(request, defaults, PROVIDER);
    const cacheKey = promptCacheKey(request, PROVIDER);
    const { messages, warnings } = openaiChat.to(prompt);
    for (const warning of warnings) onWarning?.(warning);
    // `to` stands a placeholder message in for an empty conversation; a model call refuses it instead.
    if (warnings.some((warning) => warning.code === 'empty_conversation'))
      throw invalidRequest(PROVIDER, 'the request has no message Chat Completions can carry');
    const body: OpenaiChatRequestBody = {
      // Before extraBody: a prompt_cache_key the caller set on the adapter is a deliberate choice and wins.
      ...(cacheKey === undefined ? {} : { prompt_cache_key: cacheKey }),
      ...extraBody,
      model,
      messages,
      ...(tools.length > 0
        ? {
            tools: tools.map((tool): OpenaiChatFunctionTool => ({
              type: 'function',
              function: {
                name: tool.name,
                ...(tool.description === undefined ? {} : { description: tool.description }),
                parameters: tool.parameters,
                ...(strict === undefined ? {} : { strict }),
              },
            })),
          }
        : {}),
      ...(choice === undefined ? {} : { tool_choice: toolChoiceOf(choice) }),
      ...(settings.maxOutputTokens === undefined ? {} : { max_completion_tokens: settings.maxOutputTokens }),
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    };
    let answer: unknown;
    try {
      answer = await client.chat.completions.create(
        body,
        request.signal === undefined ? undefined : { signal: request.signal },
      );
    } catch (error) {
      throw toModelError(error, PROVIDER, request.signal);
    }
    return readAnswer(answer);
  }

  return Object.freeze({ provider: PROVIDER, model, complete });
}
