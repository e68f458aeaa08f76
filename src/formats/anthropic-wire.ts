/**
 * The Anthropic Messages API request shapes chatstate reads and writes: our own definitions,
 * mirroring `MessageCreateParams` of `@anthropic-ai/sdk` (a type test proves they are assignable),
 * so the library does not depend on the SDK at run time.
 * @module
 */
import type { JsonObject } from '../message/schema.js';

/** Media types Anthropic accepts in a base64 image source. */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** A prompt-cache breakpoint on a block. */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** A text block. The API rejects blank text. */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** Inline base64 image bytes. */
export interface AnthropicBase64ImageSource {
  type: 'base64';
  media_type: AnthropicImageMediaType;
  data: string;
}

/** A document or image fetched by Anthropic from a URL. */
export interface AnthropicUrlSource {
  type: 'url';
  url: string;
}

/** A file uploaded through the Anthropic Files API. */
export interface AnthropicFileSource {
  type: 'file';
  file_id: string;
}

/** An image block. */
export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicBase64ImageSource | AnthropicUrlSource | AnthropicFileSource;
  cache_control?: AnthropicCacheControl;
}

/** Inline base64 PDF bytes. */
export interface AnthropicBase64PdfSource {
  type: 'base64';
  media_type: 'application/pdf';
  data: string;
}

/** A plain-text document, carried as text (not base64). */
export interface AnthropicPlainTextSource {
  type: 'text';
  media_type: 'text/plain';
  data: string;
}

/** A document block (PDF or plain text). */
export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicBase64PdfSource | AnthropicPlainTextSource | AnthropicUrlSource | AnthropicFileSource;
  title?: string;
  cache_control?: AnthropicCacheControl;
}

/** A tool call made by the assistant. `input` must be a JSON object. */
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonObject;
  cache_control?: AnthropicCacheControl;
}

/** What a tool result may contain besides a plain string. */
export type AnthropicToolResultContent = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock;

/** The result of a tool call, in the user turn right after the call. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | AnthropicToolResultContent[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}

/** Extended-thinking output, sent back with its signature unchanged. */
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Encrypted thinking, sent back verbatim. */
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * Every block chatstate maps. Blocks it does not model (server tools, citations, …) travel as raw
 * parts and are written back exactly as they were read.
 */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

/** One conversation turn. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}

/** The request fields `anthropic.to` writes and `anthropic.from` reads. */
export interface AnthropicWire {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
}
