/**
 * Old spellings of renamed model types, kept so code written against 0.1 still compiles. The house
 * rule treats acronyms and brand names as words (`Openai`, `Json`, `AiSdk`); remove in 1.0.
 * @module
 */
import type { OpenaiChatModelOptions } from './openai-chat.js';
import type {
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
import type { OpenaiResponsesModelOptions } from './openai-responses.js';

/** @deprecated Use `OpenaiChatModelOptions`. */
export type OpenAIChatModelOptions = OpenaiChatModelOptions;
/** @deprecated Use `OpenaiResponsesModelOptions`. */
export type OpenAIResponsesModelOptions = OpenaiResponsesModelOptions;
/** @deprecated Use `OpenaiChatClientLike`. */
export type OpenAIChatClientLike = OpenaiChatClientLike;
/** @deprecated Use `OpenaiChatFunctionTool`. */
export type OpenAIChatFunctionTool = OpenaiChatFunctionTool;
/** @deprecated Use `OpenaiChatRequestBody`. */
export type OpenAIChatRequestBody = OpenaiChatRequestBody;
/** @deprecated Use `OpenaiChatToolChoice`. */
export type OpenAIChatToolChoice = OpenaiChatToolChoice;
/** @deprecated Use `OpenaiRequestOptions`. */
export type OpenAIRequestOptions = OpenaiRequestOptions;
/** @deprecated Use `OpenaiResponsesClientLike`. */
export type OpenAIResponsesClientLike = OpenaiResponsesClientLike;
/** @deprecated Use `OpenaiResponsesFunctionTool`. */
export type OpenAIResponsesFunctionTool = OpenaiResponsesFunctionTool;
/** @deprecated Use `OpenaiResponsesRequestBody`. */
export type OpenAIResponsesRequestBody = OpenaiResponsesRequestBody;
/** @deprecated Use `OpenaiResponsesToolChoice`. */
export type OpenAIResponsesToolChoice = OpenaiResponsesToolChoice;
