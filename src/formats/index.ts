/**
 * Provider wire formats, their wire types, the readers of provider responses, and `validate`.
 * Adding a provider is its files plus its lines here.
 * @module
 */
import type { ProviderName } from '../message/schema.js';
import { aiSdk } from './ai-sdk.js';
import { anthropic } from './anthropic.js';
import { gemini } from './gemini.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';
import type { ProviderFormat, WireProblem } from './types.js';

export type { FormatWarning, FromResult, ProviderFormat, WireProblem } from './types.js';
export { prepareHistory, MISSING_RESULT_TEXT, type PreparedHistory } from './prepare.js';
export { FIRST_TURN_PLACEHOLDER } from './turn-rules.js';
export { openaiChatFromResponse } from './openai-chat.js';
export { openaiResponsesFromResponse } from './openai-responses.js';
export { aiSdkFromResponse } from './ai-sdk.js';

// The wire shapes `to` writes and `from` reads, per format.
export type {
  ChatTextPart,
  ChatImagePart,
  ChatAudioPart,
  ChatFilePart,
  ChatRefusalPart,
  ChatUserContentPart,
  ChatAssistantContentPart,
  ChatFunctionToolCall,
  ChatCustomToolCall,
  ChatToolCall,
  ChatDeveloperMessage,
  ChatSystemMessage,
  ChatUserMessage,
  ChatAssistantMessage,
  ChatToolMessage,
  ChatFunctionMessage,
  ChatMessageParam,
  OpenaiChatWire,
} from './openai-chat-wire.js';
export type {
  ResponsesInputText,
  ResponsesInputImage,
  ResponsesInputFile,
  ResponsesInputContent,
  ResponsesEasyInputMessage,
  ResponsesOutputText,
  ResponsesOutputRefusal,
  ResponsesOutputMessage,
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ResponsesReasoningItem,
  ResponsesInputItem,
  OpenaiResponsesWire,
  OpenaiResponsesWireInput,
} from './openai-responses-wire.js';
export type {
  AnthropicImageMediaType,
  AnthropicCacheControl,
  AnthropicTextBlock,
  AnthropicBase64ImageSource,
  AnthropicUrlSource,
  AnthropicFileSource,
  AnthropicImageBlock,
  AnthropicBase64PdfSource,
  AnthropicPlainTextSource,
  AnthropicDocumentBlock,
  AnthropicToolUseBlock,
  AnthropicToolResultContent,
  AnthropicToolResultBlock,
  AnthropicThinkingBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicWire,
} from './anthropic-wire.js';
export type {
  GeminiBlob,
  GeminiFileData,
  GeminiTextPart,
  GeminiInlineDataPart,
  GeminiFileDataPart,
  GeminiFunctionCall,
  GeminiFunctionCallPart,
  GeminiFunctionResponseMedia,
  GeminiFunctionResponse,
  GeminiFunctionResponsePart,
  GeminiPart,
  GeminiContent,
  GeminiSystemInstruction,
  GeminiWire,
} from './gemini-wire.js';
export type {
  AiSdkJsonValue,
  AiSdkJsonObject,
  AiSdkProviderOptions,
  AiSdkDataContent,
  AiSdkTextPart,
  AiSdkImagePart,
  AiSdkFilePart,
  AiSdkReasoningPart,
  AiSdkToolCallPart,
  AiSdkToolOutputContent,
  AiSdkToolResultOutput,
  AiSdkToolResultPart,
  AiSdkToolApprovalRequest,
  AiSdkToolApprovalResponse,
  AiSdkSystemMessage,
  AiSdkUserMessage,
  AiSdkAssistantMessage,
  AiSdkToolMessage,
  AiSdkModelMessage,
  AiSdkWire,
  AiSdkWireInput,
} from './ai-sdk-wire.js';

/** Every provider format, by provider name. */
export const formats = Object.freeze({ openaiChat, openaiResponses, anthropic, gemini, aiSdk }) satisfies Record<
  ProviderName,
  ProviderFormat<object>
>;

/** Structural problems of `wire` under `provider`'s rules; empty when the provider would accept it. */
export function validate(provider: ProviderName, wire: unknown): WireProblem[] {
  // An own-property check: "__proto__" or "constructor" must not resolve to Object's members.
  const format: ProviderFormat<object> | undefined = Object.hasOwn(formats, provider) ? formats[provider] : undefined;
  if (format === undefined) {
    return [{ code: 'unknown_provider', message: `Unknown provider ${JSON.stringify(provider)}`, path: '' }];
  }
  return format.validate(wire);
}

export { openaiChat, openaiResponses, anthropic, gemini, aiSdk };
