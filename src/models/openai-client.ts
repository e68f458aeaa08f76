/**
 * The parts of the `openai` client the adapters call, typed by shape: a user passes
 * `new OpenAI({...})` (or `AzureOpenAI`, or any object with the same methods) and chatstate neither
 * imports nor depends on the SDK. A type test proves a real `OpenAI` instance assigns to these.
 * @module
 */
import type { ChatMessageParam } from '../formats/openai-chat-wire.js';
import type { ResponsesInputItem } from '../formats/openai-responses-wire.js';
import type { JsonObject } from '../message/schema.js';

/** The per-request options the adapters pass (the client's `RequestOptions`, reduced to what is used). */
export interface OpenaiRequestOptions {
  /** Aborts the HTTP request. */
  signal?: AbortSignal;
}

/** A function tool in a Chat Completions request. */
export interface OpenaiChatFunctionTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    /** JSON Schema of the arguments object. */
    parameters: JsonObject;
    /** Structured Outputs: the model's arguments always match `parameters` (which must then be a strict schema). */
    strict?: boolean;
  };
}

/** `tool_choice` of a Chat Completions request. */
export type OpenaiChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** The Chat Completions request body the adapter sends (plus any `extraBody` fields). */
export interface OpenaiChatRequestBody {
  model: string;
  messages: ChatMessageParam[];
  tools?: OpenaiChatFunctionTool[];
  tool_choice?: OpenaiChatToolChoice;
  /** Chat Completions' name for the output token limit (`max_tokens` is deprecated and refused by reasoning models). */
  max_completion_tokens?: number;
  temperature?: number;
  /** Routes requests with the same prefix to the same prompt cache (at most 64 characters). */
  prompt_cache_key?: string;
}

/** What `openaiChatModel` calls: `client.chat.completions.create(body, { signal })`. */
export interface OpenaiChatClientLike {
  readonly chat: {
    readonly completions: {
      /** Creates a chat completion; resolves to the parsed JSON body and rejects with the client's `APIError`s. */
      create(body: OpenaiChatRequestBody, options?: OpenaiRequestOptions): PromiseLike<unknown>;
    };
  };
}

/** A function tool in a Responses request. */
export interface OpenaiResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonObject;
  /** Always sent: Responses makes function tools strict when it is left out, which most schemas do not satisfy. */
  strict: boolean;
}

/** `tool_choice` of a Responses request. */
export type OpenaiResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

/** The Responses request body the adapter sends (plus any `extraBody` fields). */
export interface OpenaiResponsesRequestBody {
  model: string;
  input: ResponsesInputItem[];
  /** The leading system messages, joined. */
  instructions?: string;
  tools?: OpenaiResponsesFunctionTool[];
  tool_choice?: OpenaiResponsesToolChoice;
  max_output_tokens?: number;
  temperature?: number;
  /** Routes requests with the same prefix to the same prompt cache (at most 64 characters). */
  prompt_cache_key?: string;
}

/** What `openaiResponsesModel` calls: `client.responses.create(body, { signal })`. */
export interface OpenaiResponsesClientLike {
  readonly responses: {
    /** Creates a model response; resolves to the parsed JSON body and rejects with the client's `APIError`s. */
    create(body: OpenaiResponsesRequestBody, options?: OpenaiRequestOptions): PromiseLike<unknown>;
  };
}
