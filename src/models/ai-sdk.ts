/**
 * A `ChatModel` over the `ai` package (6.x): the caller's `generateText` and language model.
 * Messages go through `formats.aiSdk`; the answer is read back with `aiSdkFromResponse`, so
 * provider options on parts (reasoning signatures, cache markers) come back and the next call sends
 * them unchanged. Tools are passed without `execute` and the call stops after one step, so
 * `generateText` makes exactly one model call and returns the tool calls for the runtime to run.
 * @module
 */
import { ModelError } from '../errors.js';
import { aiSdk, aiSdkFromResponse } from '../formats/ai-sdk.js';
import type { AiSdkProviderOptions } from '../formats/ai-sdk-wire.js';
import type { FormatWarning } from '../formats/types.js';
import { isRecord, toWireObject } from '../formats/wire-json.js';
import { Message } from '../message/message.js';
import type { JsonObject } from '../message/schema.js';
import type {
  AiSdkGenerateText,
  AiSdkGenerateTextOptions,
  AiSdkGenerateTextResult,
  AiSdkLanguageModel,
  AiSdkTool,
  AiSdkToolChoice,
} from './ai-sdk-client.js';
import { finishReasonOf, type FinishReasonTable } from './finish-reason.js';
import { toModelError, unreadableAnswer } from './model-error.js';
import { withAiSdkBreakpoints, type CachePolicy } from './cache-breakpoints.js';
import { checkSettings, invalidRequest, promptCacheKey, promptMessages } from './request.js';
import { checkTools, toolChoiceWith, type CheckedTool, type CheckedToolChoice } from './tools.js';
import type { ChatModel, ChatRequest, ChatResponse } from './types.js';
import { tokenCount, usageOf } from './usage.js';

const PROVIDER = 'aiSdk';

/** The global symbol `jsonSchema()` of `ai` marks its schemas with (the same in `ai` 4, 5 and 6). */
const AI_SCHEMA_MARKER = Symbol.for('vercel.ai.schema');

/** Options of `aiSdkModel`: `generateText`, the model, and defaults every call starts from. */
export interface AiSdkModelOptions<Model extends AiSdkLanguageModel = AiSdkLanguageModel> {
  /** `generateText` imported from `ai` by the caller (chatstate does not import `ai`). */
  readonly generateText: AiSdkGenerateText<Model>;
  /** A language model, e.g. `openai('gpt-4.1')` from `@ai-sdk/openai`, or a gateway id such as `'openai/gpt-4.1'`. */
  readonly model: Model;
  /** Default output token limit (a request's own value wins). */
  readonly maxOutputTokens?: number;
  /** Default sampling temperature (a request's own value wins). */
  readonly temperature?: number;
  /** `maxRetries` of `generateText` (retries of 429/5xx and connection errors). @default the `ai` default (2) */
  readonly maxRetries?: number;
  /** `providerOptions` of every call, e.g. `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } }`. */
  readonly providerOptions?: Readonly<Record<string, JsonObject>>;
  /** Called with what `formats.aiSdk.to` could not carry exactly (foreign raw parts, dropped signatures). */
  readonly onWarning?: (warning: FormatWarning) => void;
  /**
   * For an Anthropic model (`@ai-sdk/anthropic`, or a gateway id `anthropic/…`): `auto` places
   * prompt-cache breakpoints (`providerOptions.anthropic.cacheControl`) on the stable prefix as
   * `anthropicModel` does; `off` sends only the caller's. Other providers are not affected.
   * @default 'auto'
   */
  readonly cache?: CachePolicy;
}

/** What `jsonSchema(parameters)` of `ai` returns, without a validator: the model's arguments pass through unchecked. */
function inputSchemaOf(parameters: JsonObject): never {
  const schema = {
    [AI_SCHEMA_MARKER]: true,
    _type: undefined,
    jsonSchema: toWireObject(parameters),
    validate: undefined,
  };
  // `never` is how AiSdkTool types a value only `ai` can name (see AiSdkTool).
  return schema as never;
}

function toolsOf(tools: readonly CheckedTool[]): Record<string, AiSdkTool> {
  // Object.fromEntries defines own properties, so a tool named "__proto__" stays a tool.
  return Object.fromEntries(
    tools.map((tool): [string, AiSdkTool] => [
      tool.name,
      {
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: inputSchemaOf(tool.parameters),
      },
    ]),
  );
}

function toolChoiceOf(choice: CheckedToolChoice): AiSdkToolChoice {
  return toolChoiceWith(choice, (toolName) => ({ type: 'tool', toolName }));
}

// `tool-calls` without calls, `error` and `other` are `other`.
const FINISH_REASONS: FinishReasonTable = { stop: 'stop', length: 'length', 'content-filter': 'content_filter' };

/**
 * `ai` replaces the input of a tool call whose arguments are not JSON with `{}` in
 * `response.messages`; `content` keeps the text the model wrote. The call keeps that text, so the
 * runtime reports the bad arguments to the model instead of running the tool with none.
 */
function withRawInvalidArguments(message: Message, content: readonly unknown[]): Message {
  const raw = new Map<string, string>();
  for (const part of content) {
    if (
      isRecord(part) &&
      part['type'] === 'tool-call' &&
      part['invalid'] === true &&
      typeof part['toolCallId'] === 'string' &&
      typeof part['input'] === 'string'
    ) {
      raw.set(part['toolCallId'], part['input']);
    }
  }
  if (raw.size === 0 || message.toolCalls === undefined) return message;
  return Message.with(message, {
    toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: raw.get(call.id) ?? call.arguments })),
  });
}

/** `message` with one plain text part as a string, as the other adapters answer. */
function plainText(message: Message): Message {
  if (typeof message.content === 'string' || message.content.length !== 1) return message;
  const [only] = message.content;
  return only?.type === 'text' && only.providerOptions === undefined
    ? Message.with(message, { content: only.text })
    : message;
}

/** Reads a `generateText` result into a `ChatResponse`; throws `unreadableAnswer` when it cannot. */
function readAnswer(result: AiSdkGenerateTextResult): ChatResponse {
  let messages: Message[];
  try {
    messages = aiSdkFromResponse(result);
  } catch (error) {
    throw unreadableAnswer(PROVIDER, 'response.messages is not readable', error);
  }
  // A tool message may follow: `ai` answers calls of unknown tools or with bad arguments itself.
  // The runtime answers every call, so only the assistant message is the answer.
  const answers = messages.filter((message) => message.role === 'assistant');
  const [answer] = answers;
  if (answer === undefined)
    throw unreadableAnswer(PROVIDER, `the answer has no content (finishReason ${JSON.stringify(result.finishReason)})`);
  if (answers.length > 1) throw unreadableAnswer(PROVIDER, 'the answer holds more than one model step');
  const message = withRawInvalidArguments(plainText(answer), Array.isArray(result.content) ? result.content : []);
  // The result is a class instance whose fields are getters: read `usage` itself, then its plain fields.
  const counts: unknown = result.usage;
  const cached = tokenCount(counts, 'inputTokenDetails', 'cacheReadTokens') ?? tokenCount(counts, 'cachedInputTokens');
  const usage = usageOf(
    tokenCount(counts, 'inputTokens'),
    tokenCount(counts, 'outputTokens'),
    cached,
    tokenCount(counts, 'inputTokenDetails', 'cacheWriteTokens'),
  );
  const modelId: unknown = isRecord(result.response) ? result.response['modelId'] : undefined;
  return {
    message,
    finishReason: finishReasonOf(message, result.finishReason, FINISH_REASONS),
    ...(usage === undefined ? {} : { usage }),
    ...(typeof modelId === 'string' && modelId.length > 0 ? { modelId } : {}),
  };
}

// `ai` errors that say the answer arrived but could not be read.
const UNREADABLE_ERRORS: ReadonlySet<string> = new Set([
  'AI_InvalidResponseDataError',
  'AI_TypeValidationError',
  'AI_JSONParseError',
  'AI_EmptyResponseBodyError',
  'AI_NoContentGeneratedError',
]);
// `ai` errors raised before or instead of a call, from the prompt or the setup: the same call fails again.
const SETUP_ERRORS: ReadonlySet<string> = new Set([
  'AI_InvalidArgumentError',
  'AI_InvalidPromptError',
  'AI_InvalidMessageRoleError',
  'AI_MessageConversionError',
  'AI_InvalidDataContentError',
  'AI_UnsupportedFunctionalityError',
  'AI_LoadAPIKeyError',
  'AI_LoadSettingError',
  'AI_NoSuchModelError',
  'AI_NoSuchProviderError',
]);

function field(value: unknown, name: string): unknown {
  try {
    return isRecord(value) ? value[name] : undefined;
  } catch {
    return undefined; // a hostile getter must not turn error reporting into a second failure
  }
}

/** The chatstate error for what `generateText` threw. */
function modelError(thrown: unknown, signal: AbortSignal | undefined): Error {
  // After its retries `ai` throws a RetryError; the last attempt's error has the HTTP status.
  const lastError = field(thrown, 'name') === 'AI_RetryError' ? field(thrown, 'lastError') : undefined;
  const error = lastError ?? thrown;
  const name = field(error, 'name');
  const status = field(error, 'statusCode');
  if (signal?.aborted !== true) {
    const message = field(error, 'message');
    const why = typeof message === 'string' ? message : 'unknown error';
    // A 2xx APICallError is `ai` failing to parse a successful response.
    if (
      (typeof name === 'string' && UNREADABLE_ERRORS.has(name)) ||
      (typeof status === 'number' && status >= 200 && status < 300)
    ) {
      return unreadableAnswer(PROVIDER, why, thrown);
    }
    if (typeof name === 'string' && SETUP_ERRORS.has(name)) {
      return new ModelError(
        'MODEL_FAILED',
        `${PROVIDER}: the call could not be made: ${why}`,
        { provider: PROVIDER, retryable: false },
        { cause: thrown },
      );
    }
  }
  return toModelError(error, PROVIDER, signal);
}

function checkProviderOptions(options: unknown): AiSdkProviderOptions | undefined {
  if (options === undefined) return undefined;
  if (!isRecord(options) || !Object.values(options).every(isRecord))
    throw invalidRequest(PROVIDER, 'providerOptions must be an object of objects, by provider');
  return Object.fromEntries(
    Object.entries(options as Record<string, JsonObject>).map(([key, value]) => [key, toWireObject(value)]),
  );
}

const stopAfterFirstStep = (): boolean => true;

/** The provider behind a language model: `openai` of `openai.chat`, `anthropic` of a gateway id `anthropic/claude-…`. */
function providerOf(model: AiSdkLanguageModel): string {
  const name = typeof model === 'string' ? model.split('/')[0] : field(model, 'provider');
  return typeof name === 'string' ? (name.split('.')[0] ?? '') : '';
}

/** `options` with `openai.promptCacheKey` set to `key`, unless the caller set one on the adapter. */
function withPromptCacheKey(options: AiSdkProviderOptions | undefined, key: string): AiSdkProviderOptions {
  const openai = options?.['openai'];
  if (openai?.['promptCacheKey'] !== undefined) return options as AiSdkProviderOptions;
  return { ...options, openai: { ...openai, promptCacheKey: key } };
}

/**
 * A `ChatModel` over `generateText` of the `ai` package and any of its language models. Each call
 * is one `generateText` step: tools are declared without `execute`, so tool calls come back in the
 * answer. Retries are `generateText`'s (`maxRetries`); what still fails is thrown as `ModelError`
 * (`RATE_LIMITED`, `MODEL_FAILED`, `ABORTED` for `request.signal`).
 */
export function aiSdkModel<Model extends AiSdkLanguageModel>(options: AiSdkModelOptions<Model>): ChatModel {
  const { generateText, model, maxRetries, onWarning } = options;
  if (typeof generateText !== 'function')
    throw invalidRequest(PROVIDER, 'generateText must be the generateText function of the ai package');
  const modelId: unknown = typeof model === 'string' ? model : field(model, 'modelId');
  if (typeof modelId !== 'string' || modelId.length === 0)
    throw invalidRequest(PROVIDER, 'model must be an ai language model (with a modelId) or a non-empty model id');
  if (maxRetries !== undefined && !(Number.isSafeInteger(maxRetries) && maxRetries >= 0))
    throw invalidRequest(PROVIDER, `maxRetries must be an integer of at least 0, got ${String(maxRetries)}`);
  const providerOptions = checkProviderOptions(options.providerOptions);
  const defaults = checkSettings(options, {}, PROVIDER);
  const cache = options.cache ?? 'auto';
  if (cache !== 'auto' && cache !== 'off') throw invalidRequest(PROVIDER, "cache must be 'auto' or 'off'");
  const provider = providerOf(model);
  const placeBreakpoints = cache === 'auto' && provider === 'anthropic';

  async function complete(request: ChatRequest): Promise<ChatResponse> {
    const prompt = promptMessages(request, PROVIDER);
    const { tools, choice } = checkTools(request.tools, request.toolChoice, PROVIDER);
    const settings = checkSettings(request, defaults, PROVIDER);
    const wire = aiSdk.to(prompt);
    for (const warning of wire.warnings) onWarning?.(warning);
    // `to` stands a placeholder turn in for an empty conversation; a model call refuses it instead.
    if (wire.warnings.some((warning) => warning.code === 'empty_conversation'))
      throw invalidRequest(
        PROVIDER,
        'the request has only system messages: the model needs at least one other message',
      );
    const { system, messages } = placeBreakpoints ? withAiSdkBreakpoints(wire) : wire;
    // Only OpenAI's provider takes a cache key; the others would ignore it or warn about it.
    const cacheKey = provider === 'openai' ? promptCacheKey(request, PROVIDER) : undefined;
    const callOptions = cacheKey === undefined ? providerOptions : withPromptCacheKey(providerOptions, cacheKey);
    const call: AiSdkGenerateTextOptions<Model> = {
      model,
      ...(system === undefined ? {} : { system }),
      messages,
      ...(messages.some((message) => message.role === 'system') ? { allowSystemInMessages: true } : {}),
      ...(tools.length > 0 ? { tools: toolsOf(tools) } : {}),
      ...(choice === undefined ? {} : { toolChoice: toolChoiceOf(choice) }),
      stopWhen: stopAfterFirstStep,
      ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
      ...(callOptions === undefined ? {} : { providerOptions: callOptions }),
    };
    let result: AiSdkGenerateTextResult;
    try {
      result = await generateText(call);
    } catch (error) {
      throw modelError(error, request.signal);
    }
    return readAnswer(result);
  }

  return Object.freeze({ provider: PROVIDER, model: modelId, complete });
}
