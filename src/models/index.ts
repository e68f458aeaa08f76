/**
 * ✱ `ChatModel` and its adapters over the official clients. An adapter takes a client the caller
 * created (`new OpenAI()`, `new Anthropic()`, `generateText` from `ai`) and never imports an SDK
 * itself, so chatstate depends on none of them. Adding a provider is its file plus its lines here.
 * @module
 */
export type { ChatModel, ChatRequest, ChatResponse, FinishReason, ToolChoice, ToolSpec } from './types.js';
export { contextOverflowOf, toModelError, type ContextOverflow } from './model-error.js';
export { modelContextWindow, type ModelWindow } from './context-windows.js';
export { TOOL_NAME_PATTERN } from './tools.js';
export { openaiChatModel, type OpenaiChatModelOptions } from './openai-chat.js';
export { openaiResponsesModel, type OpenaiResponsesModelOptions } from './openai-responses.js';
export { anthropicModel, type AnthropicModelOptions } from './anthropic.js';
export { aiSdkModel, type AiSdkModelOptions } from './ai-sdk.js';
export type {
  OpenaiChatClientLike,
  OpenaiChatFunctionTool,
  OpenaiChatRequestBody,
  OpenaiChatToolChoice,
  OpenaiRequestOptions,
  OpenaiResponsesClientLike,
  OpenaiResponsesFunctionTool,
  OpenaiResponsesRequestBody,
  OpenaiResponsesToolChoice,
} from './openai-client.js';
export type {
  AnthropicClientLike,
  AnthropicRequestBody,
  AnthropicRequestOptions,
  AnthropicTool,
  AnthropicToolChoice,
} from './anthropic-client.js';
export type {
  AiSdkGenerateText,
  AiSdkGenerateTextOptions,
  AiSdkGenerateTextResult,
  AiSdkLanguageModel,
  AiSdkStopCondition,
  AiSdkTool,
  AiSdkToolChoice,
  AiSdkUsage,
} from './ai-sdk-client.js';
export type {
  OpenAIChatModelOptions,
  OpenAIResponsesModelOptions,
  OpenAIChatClientLike,
  OpenAIChatFunctionTool,
  OpenAIChatRequestBody,
  OpenAIChatToolChoice,
  OpenAIRequestOptions,
  OpenAIResponsesClientLike,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesRequestBody,
  OpenAIResponsesToolChoice,
} from './deprecated.js';
