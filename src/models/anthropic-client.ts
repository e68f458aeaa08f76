/**
 * The part of the `@anthropic-ai/sdk` client `anthropicModel` calls, typed by shape: a user passes
 * `new Anthropic({...})` (or any object with the same method) and chatstate neither imports nor
 * depends on the SDK. A type test proves a real `Anthropic` instance assigns to these.
 * @module
 */
import type { AnthropicMessage, AnthropicTextBlock } from '../formats/anthropic-wire.js';
import type { JsonObject } from '../message/schema.js';

/** The per-request options the adapter passes (the client's `RequestOptions`, reduced to what is used). */
export interface AnthropicRequestOptions {
  /** Aborts the HTTP request. */
  signal?: AbortSignal;
}

/** A client tool in a Messages request. */
export interface AnthropicTool {
  name: string;
  description?: string;
  /** JSON Schema of the `input` object; its root is always `type: "object"`. */
  input_schema: JsonObject & { type: 'object' };
}

/** `tool_choice` of a Messages request (`any` is Anthropic's name for "some tool is required"). */
export type AnthropicToolChoice =
  { type: 'auto' } | { type: 'any' } | { type: 'none' } | { type: 'tool'; name: string };

/** The Messages request body the adapter sends (plus any `extraBody` fields). */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | AnthropicTextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
}

/** What `anthropicModel` calls: `client.messages.create(body, { signal })`. */
export interface AnthropicClientLike {
  readonly messages: {
    /** Creates a message; resolves to the parsed JSON body and rejects with the client's `APIError`s. */
    create(body: AnthropicRequestBody, options?: AnthropicRequestOptions): PromiseLike<unknown>;
  };
}
