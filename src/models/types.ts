/**
 * ✱ The `ChatModel` contract: one model call, provider-neutral. Adapters over the official clients
 * (`openai`, `@anthropic-ai/sdk`, `ai`) map our messages through `formats.*`, pass tools, and read
 * the answer back into one assistant `Message` that keeps provider-specific parts (reasoning,
 * signatures, cache markers) so the next call can send them back unchanged.
 * @module
 */
import type { Message } from '../message/message.js';
import type { JsonObject, ProviderName } from '../message/schema.js';
import type { Usage } from '../tokens/usage.js';

/** A tool the model may call: its name, what it does, and a JSON Schema of its arguments. */
export interface ToolSpec {
  /** `^[a-zA-Z0-9_-]{1,64}$`, the rule every provider shares. */
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments object. @default { type: 'object', properties: {} } */
  readonly parameters?: JsonObject;
}

/** How the model may use the tools. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/** Why the model stopped. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/** One model call. */
export interface ChatRequest {
  /**
   * The system prompt, supplied fresh on every call and never stored (goaitools): a string, or
   * system/context messages placed before `messages`.
   */
  readonly system?: string | readonly Message[];
  /** The conversation so far, oldest first (leading system messages of a session included). */
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolSpec[];
  readonly toolChoice?: ToolChoice;
  /** Most tokens the answer may have. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Aborts the HTTP request; the adapter then throws `ModelError` with code `ABORTED`. */
  readonly signal?: AbortSignal;
  /**
   * A stable key per conversation (the runtime passes one per session) that lets the provider route
   * requests sharing a prompt prefix to the same cache. OpenAI's adapters send it as
   * `prompt_cache_key` (hashed to 64 hex characters when longer than OpenAI's 64), the AI SDK's
   * adapter as `providerOptions.openai.promptCacheKey` for an OpenAI model; Anthropic has no such
   * field and ignores it. A key the caller set on the adapter (`extraBody`, `providerOptions`) wins.
   */
  readonly cacheKey?: string;
}

/** What a model call returned. */
export interface ChatResponse {
  /** The answer: role `assistant`, with `toolCalls` when the model wants tools run. */
  readonly message: Message;
  /** Token usage as the provider reported it. */
  readonly usage?: Usage;
  readonly finishReason: FinishReason;
  /** The provider's model id that answered, when reported. */
  readonly modelId?: string;
}

/**
 * ✱ A chat model. `complete` never returns a malformed answer: provider failures throw
 * `ModelError` (`MODEL_FAILED`, `RATE_LIMITED`, `ABORTED`), unreadable answers `MODEL_FAILED`.
 */
export interface ChatModel {
  /** Provider format the model speaks (`openaiChat`, `anthropic`, …); opaque state is locked to it. */
  readonly provider: ProviderName;
  /** Model id requests are sent with. */
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}
