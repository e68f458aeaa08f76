/**
 * The Vercel AI SDK prompt shapes (`system` and `messages` of `generateText` / `streamText`): our
 * own definitions mirroring `ModelMessage` of `ai` 6.x (`@ai-sdk/provider-utils`), so chatstate does
 * not depend on the SDK. A type test proves both directions assign.
 * @module
 */

/** JSON as the AI SDK types it (mutable; `undefined` allowed in objects). */
export type AiSdkJsonValue = null | string | number | boolean | AiSdkJsonObject | AiSdkJsonValue[];

/** A JSON object as the AI SDK types it. */
export type AiSdkJsonObject = { [key: string]: AiSdkJsonValue | undefined };

/** Provider-specific options by provider key (`openai`, `anthropic`, `google`, …). */
export type AiSdkProviderOptions = Record<string, AiSdkJsonObject>;

/** Media: base64 text, a URL string, bytes, or a `URL`. */
export type AiSdkDataContent = string | Uint8Array | ArrayBuffer | URL;

/** Text. */
export interface AiSdkTextPart {
  type: 'text';
  text: string;
  providerOptions?: AiSdkProviderOptions;
}

/** An image (user messages). */
export interface AiSdkImagePart {
  type: 'image';
  image: AiSdkDataContent;
  mediaType?: string;
  providerOptions?: AiSdkProviderOptions;
}

/** A file. */
export interface AiSdkFilePart {
  type: 'file';
  data: AiSdkDataContent;
  filename?: string;
  mediaType: string;
  providerOptions?: AiSdkProviderOptions;
}

/** Reasoning text (signatures travel in `providerOptions`). */
export interface AiSdkReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: AiSdkProviderOptions;
}

/** A tool call; `input` is the parsed arguments. */
export interface AiSdkToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: AiSdkProviderOptions;
  providerExecuted?: boolean;
}

/** One item of a multi-part tool output. */
export type AiSdkToolOutputContent =
  | { type: 'text'; text: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'media'; data: string; mediaType: string }
  | { type: 'file-data'; data: string; mediaType: string; filename?: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'file-url'; url: string; mediaType?: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'file-id'; fileId: string | Record<string, string>; providerOptions?: AiSdkProviderOptions }
  | { type: 'image-data'; data: string; mediaType: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'image-url'; url: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'image-file-id'; fileId: string | Record<string, string>; providerOptions?: AiSdkProviderOptions }
  | { type: 'custom'; providerOptions?: AiSdkProviderOptions };

/** A tool's output. */
export type AiSdkToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'json'; value: AiSdkJsonValue; providerOptions?: AiSdkProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'error-json'; value: AiSdkJsonValue; providerOptions?: AiSdkProviderOptions }
  | { type: 'content'; value: AiSdkToolOutputContent[] };

/** The result of the tool call with `toolCallId`. */
export interface AiSdkToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
  providerOptions?: AiSdkProviderOptions;
}

/** A request to approve a tool call before it runs. */
export interface AiSdkToolApprovalRequest {
  type: 'tool-approval-request';
  approvalId: string;
  toolCallId: string;
  signature?: string;
  inputSchemaInput?: unknown;
}

/** The answer to a tool approval request. */
export interface AiSdkToolApprovalResponse {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerExecuted?: boolean;
}

/** A system message (text only). */
export interface AiSdkSystemMessage {
  role: 'system';
  content: string;
  providerOptions?: AiSdkProviderOptions;
}

/** A user message. */
export interface AiSdkUserMessage {
  role: 'user';
  content: string | Array<AiSdkTextPart | AiSdkImagePart | AiSdkFilePart>;
  providerOptions?: AiSdkProviderOptions;
}

/** An assistant message. */
export interface AiSdkAssistantMessage {
  role: 'assistant';
  content:
    | string
    | Array<
        | AiSdkTextPart
        | AiSdkFilePart
        | AiSdkReasoningPart
        | AiSdkToolCallPart
        | AiSdkToolResultPart
        | AiSdkToolApprovalRequest
      >;
  providerOptions?: AiSdkProviderOptions;
}

/** A tool message: the results of one step's tool calls. */
export interface AiSdkToolMessage {
  role: 'tool';
  content: Array<AiSdkToolResultPart | AiSdkToolApprovalResponse>;
  providerOptions?: AiSdkProviderOptions;
}

/** One AI SDK message (mirrors `ModelMessage`). */
export type AiSdkModelMessage = AiSdkSystemMessage | AiSdkUserMessage | AiSdkAssistantMessage | AiSdkToolMessage;

/** The prompt fields `aiSdk.to` produces. */
export interface AiSdkWire {
  /** The leading system messages, joined. */
  system?: string;
  messages: AiSdkModelMessage[];
}

/** What `aiSdk.from` reads: `system` may also be system messages, as `generateText` accepts. */
export interface AiSdkWireInput {
  system?: string | AiSdkSystemMessage | AiSdkSystemMessage[];
  messages: AiSdkModelMessage[];
}
