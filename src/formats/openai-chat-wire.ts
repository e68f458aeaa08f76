/**
 * The Chat Completions request shapes (`messages` of `POST /v1/chat/completions`): our own
 * definitions mirroring `ChatCompletionMessageParam` of the `openai` package, so chatstate does not
 * depend on the SDK. A type test proves both directions assign.
 * @module
 */

/** A text part. */
export interface ChatTextPart {
  type: 'text';
  text: string;
}

/** An image, by URL or base64 data URL. */
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

/** Base64 audio input. */
export interface ChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: 'wav' | 'mp3' };
}

/** A file, inline as a data URL in `file_data` or uploaded (`file_id`). */
export interface ChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

/** A refusal in an assistant message. */
export interface ChatRefusalPart {
  type: 'refusal';
  refusal: string;
}

/** A part of user content. */
export type ChatUserContentPart = ChatTextPart | ChatImagePart | ChatAudioPart | ChatFilePart;

/** A part of assistant content. */
export type ChatAssistantContentPart = ChatTextPart | ChatRefusalPart;

/** A function tool call: `arguments` is JSON text as the model wrote it. */
export interface ChatFunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A custom (free-text input) tool call. */
export interface ChatCustomToolCall {
  id: string;
  type: 'custom';
  custom: { name: string; input: string };
}

/** A tool call on an assistant message. */
export type ChatToolCall = ChatFunctionToolCall | ChatCustomToolCall;

/** Instructions for newer models (read back as a system message). */
export interface ChatDeveloperMessage {
  role: 'developer';
  content: string | ChatTextPart[];
  name?: string;
}

/** Instructions. */
export interface ChatSystemMessage {
  role: 'system';
  content: string | ChatTextPart[];
  name?: string;
}

/** A user message. */
export interface ChatUserMessage {
  role: 'user';
  content: string | ChatUserContentPart[];
  name?: string;
}

/** An assistant message: `content` may be null when it only calls tools. */
export interface ChatAssistantMessage {
  role: 'assistant';
  content?: string | ChatAssistantContentPart[] | null;
  name?: string;
  refusal?: string | null;
  audio?: { id: string } | null;
  /** Deprecated by the API in favour of `tool_calls`; kept verbatim. */
  function_call?: { name: string; arguments: string } | null;
  tool_calls?: ChatToolCall[];
}

/** The result of one tool call. */
export interface ChatToolMessage {
  role: 'tool';
  content: string | ChatTextPart[];
  tool_call_id: string;
}

/** Deprecated function result message; kept verbatim. */
export interface ChatFunctionMessage {
  role: 'function';
  content: string | null;
  name: string;
}

/** One Chat Completions message (mirrors `ChatCompletionMessageParam`). */
export type ChatMessageParam =
  | ChatDeveloperMessage
  | ChatSystemMessage
  | ChatUserMessage
  | ChatAssistantMessage
  | ChatToolMessage
  | ChatFunctionMessage;

/** The request fields `openaiChat.to` produces. */
export interface OpenaiChatWire {
  messages: ChatMessageParam[];
}
