/**
 * A `ChatModel` over the official `openai` client's Responses API (`client.responses.create`).
 * Messages go through `formats.openaiResponses`; the answer is read with
 * `openaiResponsesFromResponse` into one assistant message whose reasoning items (with their ids
 * and `encrypted_content`), message item ids and server tool items are raw parts that the next
 * call sends back exactly as received — what reasoning models need to continue their reasoning.
 * @module
 */
import { ModelError } from '../errors.js';
import { openaiResponses, openaiResponsesFromResponse } from '../formats/openai-responses.js';
import type { FormatWarning } from '../formats/types.js';
import type { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import { finishReasonOf, type FinishReasonTable } from './finish-reason.js';
import { contextOverflowError, contextOverflowOf, toModelError, unreadableAnswer } from './model-error.js';
import type {
  OpenaiResponsesClientLike,
  OpenaiResponsesFunctionTool,
  OpenaiResponsesRequestBody,
  OpenaiResponsesToolChoice,
} from './openai-client.js';
import { checkExtraBody, checkSettings, invalidRequest, promptCacheKey, promptMessages } from './request.js';
import { checkTools, toolChoiceWith, type CheckedToolChoice } from './tools.js';
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';
import { tokenCount, usageOf } from './usage.js';

const PROVIDER = 'openaiResponses';

// Fields the adapter writes from the request. `previous_response_id` and `conversation` would make
// the server prepend a stored history to the full history we send; `background` answers before the
// model has run.
const OWNED_FIELDS = [
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
  'max_output_tokens',
  'temperature',
  'previous_response_id',
  'conversation',
  'background',
];

/** Options of `openaiResponsesModel`: the client, the model, and defaults every call starts from. */
export interface OpenaiResponsesModelOptions {
  /** A client the caller created, e.g. `new OpenAI({ apiKey })`; its retries and timeout apply. */
  readonly client: OpenaiResponsesClientLike;
  /** Model id, e.g. `gpt-5-mini`. */
  readonly model: string;
  /** Default sampling temperature (a request's own value wins; reasoning models refuse it). */
  readonly temperature?: number;
  /** Default output token limit, reasoning included, sent as `max_output_tokens` (a request's own value wins). */
  readonly maxOutputTokens?: number;
  /** `strict` of every function tool (Responses' own default is strict, which most schemas do not satisfy). @default false */
  readonly strict?: boolean;
  /**
   * Other request fields sent as given, e.g. `{ reasoning: { effort: 'low' } }`. Without server-side
   * storage use `{ store: false, include: ['reasoning.encrypted_content'] }`, so reasoning items
   * carry the encrypted content the next call must send back.
   */
  readonly extraBody?: JsonObject;
  /** Called with what `formats.openaiResponses.to` could not carry exactly (foreign raw parts, media in system messages). */
  readonly onWarning?: (warning: FormatWarning) => void;
}

function toolChoiceOf(choice: CheckedToolChoice): OpenaiResponsesToolChoice {
  return toolChoiceWith(choice, (name) => ({ type: 'function', name }));
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

// Responses ends with a status (and why it is incomplete), keyed here as `status` or `status:reason`.
const FINISH_REASONS: FinishReasonTable = {
  completed: 'stop',
  'incomplete:max_output_tokens': 'length',
  'incomplete:content_filter': 'content_filter',
};

/** The error for a response whose `status` is `failed`: the model ran and reported its own failure. */
function failedResponse(answer: unknown): ModelError {
  const error = field(answer, 'error');
  const code = field(error, 'code');
  const text = field(error, 'message');
  const detail = `${typeof code === 'string' ? code : 'unknown error'}${typeof text === 'string' ? `: ${text}` : ''}`;
  // The API also reports an overflow this way (`context_length_exceeded`), besides its 400.
  const overflow = contextOverflowOf(error);
  if (overflow !== undefined) return contextOverflowError(PROVIDER, overflow, `the response failed: ${detail}`);
  // `server_error` and `rate_limit_exceeded` are transient; every other code (invalid_prompt, bad images) repeats.
  const retryable = code === 'server_error' || code === 'rate_limit_exceeded';
  const kind = code === 'rate_limit_exceeded' ? 'RATE_LIMITED' : 'MODEL_FAILED';
  return new ModelError(kind, `${PROVIDER}: the response failed: ${detail}`, { provider: PROVIDER, retryable });
}

/** Reads a Responses answer into a `ChatResponse`; throws `ModelError` when it failed or cannot be read. */
function readAnswer(answer: unknown): ChatResponse {
  const status = field(answer, 'status');
  if (status === 'failed') throw failedResponse(answer);
  if (status === 'queued' || status === 'in_progress')
    throw unreadableAnswer(PROVIDER, `the response is still ${status} (background responses are not supported)`);
  const incompleteReason = field(field(answer, 'incomplete_details'), 'reason');
  let message: Message;
  try {
    message = openaiResponsesFromResponse(answer);
  } catch (error) {
    const why =
      incompleteReason === 'max_output_tokens'
        ? 'it was cut at the output token limit before any output'
        : 'its output holds no readable message or function call';
    throw unreadableAnswer(PROVIDER, why, error);
  }
  const usage = usageOf(
    tokenCount(answer, 'usage', 'input_tokens'),
    tokenCount(answer, 'usage', 'output_tokens'),
    tokenCount(answer, 'usage', 'input_tokens_details', 'cached_tokens'),
    tokenCount(answer, 'usage', 'input_tokens_details', 'cache_write_tokens'),
  );
  const modelId = field(answer, 'model');
  return {
    message,
    finishReason: finishReasonOf(
      message,
      status === 'incomplete' ? `incomplete:${String(incompleteReason)}` : status,
      FINISH_REASONS,
    ),
    ...(usage === undefined ? {} : { usage }),
    ...(typeof modelId === 'string' && modelId.length > 0 ? { modelId } : {}),
  };
}

/**
 * The `unreadableAnswer` for the client failing on the body itself: the `openai` client collects
 * `output_text` from `output` after parsing, and throws a plain `TypeError` when `output` is
 * missing or malformed. Its transport failures are `APIConnectionError`s, and fetch's own network
 * `TypeError` carries a `cause`, so neither is mistaken for an unreadable (never retryable) answer.
 */
function clientReadFailure(error: unknown, signal: AbortSignal | undefined): ModelError | undefined {
  if (!(error instanceof TypeError) || error.cause !== undefined || signal?.aborted === true) return undefined;
  return unreadableAnswer(
    PROVIDER,
    `the client failed on its body (${error.message}), which holds no readable message or function call`,
    error,
  );
}

/**
 * A `ChatModel` speaking the OpenAI Responses API through the caller's `openai` client, sending the
 * whole history each call (chatstate keeps the state, so no `previous_response_id`). The adapter
 * adds no retry of its own: the client's `maxRetries` (2 by default) applies to 408/409/429/5xx and
 * connection errors, and what still fails is thrown as `ModelError` (`RATE_LIMITED`,
 * `MODEL_FAILED`, `ABORTED` for `request.signal`).
 */
export function openaiResponsesModel(options: OpenaiResponsesModelOptions): ChatModel {
  const { client, model, strict = false, onWarning } = options;
  if (typeof client?.responses?.create !== 'function')
    throw invalidRequest(PROVIDER, 'client must have responses.create (an OpenAI client)');
  if (typeof model !== 'string' || model.length === 0)
    throw invalidRequest(PROVIDER, 'model must be a non-empty string');
  if (typeof strict !== 'boolean') throw invalidRequest(PROVIDER, 'strict must be a boolean');
  const extraBody = checkExtraBody(options.extraBody, OWNED_FIELDS, PROVIDER);
  const defaults = checkSettings(options, {}, PROVIDER);

  async function complete(request: ChatRequest): Promise<ChatResponse> {
    const prompt = promptMessages(request, PROVIDER);
    const { tools, choice } = checkTools(request.tools, request.toolChoice, PROVIDER);
    const settings = checkSettings(request, defaults, PROVIDER);
    const cacheKey = promptCacheKey(request, PROVIDER);
    const { instructions, input, warnings } = openaiResponses.to(prompt);
    for (const warning of warnings) onWarning?.(warning);
    // `to` stands a placeholder item in for an empty input; a model call refuses it instead (the API would).
    if (warnings.some((warning) => warning.code === 'empty_conversation'))
      throw invalidRequest(PROVIDER, 'the request has only system messages: Responses needs at least one input item');
    const body: OpenaiResponsesRequestBody = {
      // Before extraBody: a prompt_cache_key the caller set on the adapter is a deliberate choice and wins.
      ...(cacheKey === undefined ? {} : { prompt_cache_key: cacheKey }),
      ...extraBody,
      model,
      ...(instructions === undefined ? {} : { instructions }),
      input,
      ...(tools.length > 0
        ? {
            tools: tools.map((tool): OpenaiResponsesFunctionTool => ({
              type: 'function',
              name: tool.name,
              ...(tool.description === undefined ? {} : { description: tool.description }),
              parameters: tool.parameters,
              strict,
            })),
          }
        : {}),
      ...(choice === undefined ? {} : { tool_choice: toolChoiceOf(choice) }),
      ...(settings.maxOutputTokens === undefined ? {} : { max_output_tokens: settings.maxOutputTokens }),
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    };
    let answer: unknown;
    try {
      answer = await client.responses.create(
        body,
        request.signal === undefined ? undefined : { signal: request.signal },
      );
    } catch (error) {
      throw clientReadFailure(error, request.signal) ?? toModelError(error, PROVIDER, request.signal);
    }
    return readAnswer(answer);
  }

  return Object.freeze({ provider: PROVIDER, model, complete });
}
