/**
 * The parts of the `ai` package (6.x) `aiSdkModel` uses, typed by shape: the caller passes
 * `generateText` from `ai` and a language model from a provider package (or a gateway model id),
 * and chatstate neither imports nor depends on `ai`. A type test proves the real `generateText`
 * and a real provider model assign to these.
 * @module
 */
import type { AiSdkModelMessage, AiSdkProviderOptions, AiSdkSystemMessage } from '../formats/ai-sdk-wire.js';

/** A language model as `generateText` takes it: a provider package's model object, or a gateway model id. */
export type AiSdkLanguageModel =
  | string
  | {
      readonly specificationVersion: string;
      readonly provider: string;
      readonly modelId: string;
    };

/**
 * A tool without `execute`, so `generateText` returns its calls instead of running them. Its
 * `inputSchema` is the object `jsonSchema(schema)` of `ai` returns; it is marked by a symbol `ai`
 * does not export, so no type of ours can name it: `never` here, and only the adapter builds one.
 */
export interface AiSdkTool {
  description?: string;
  inputSchema: never;
}

/** `toolChoice` of `generateText`. */
export type AiSdkToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

/** Decides after each step whether `generateText` stops; the adapter always stops after the first. */
export type AiSdkStopCondition = (options: { readonly steps: readonly unknown[] }) => boolean;

/** The `generateText` options the adapter sends. */
export interface AiSdkGenerateTextOptions<Model = AiSdkLanguageModel> {
  model: Model;
  /** A system message when it carries provider options (an Anthropic cache breakpoint). */
  system?: string | AiSdkSystemMessage;
  messages: AiSdkModelMessage[];
  /** Set when the history has mid-conversation system messages: they are the application's, not a user's. */
  allowSystemInMessages?: boolean;
  tools?: Record<string, AiSdkTool>;
  toolChoice?: AiSdkToolChoice;
  stopWhen?: AiSdkStopCondition;
  maxOutputTokens?: number;
  temperature?: number;
  maxRetries?: number;
  abortSignal?: AbortSignal;
  providerOptions?: AiSdkProviderOptions;
}

/** Token usage of a `generateText` result (`LanguageModelUsage`), reduced to what is read. */
export interface AiSdkUsage {
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
  readonly inputTokenDetails?: {
    readonly cacheReadTokens: number | undefined;
    readonly cacheWriteTokens?: number | undefined;
  };
  /** Deprecated in `ai` 6 in favour of `inputTokenDetails.cacheReadTokens`; read as a fallback. */
  readonly cachedInputTokens?: number | undefined;
}

/** The fields of a `generateText` result the adapter reads. */
export interface AiSdkGenerateTextResult {
  /** `stop`, `length`, `content-filter`, `tool-calls`, `error` or `other`. */
  readonly finishReason: string;
  readonly usage: AiSdkUsage;
  /** What the step produced; a tool call the model wrote badly has `invalid: true` and its raw input text. */
  readonly content: readonly unknown[];
  readonly response: { readonly modelId?: string; readonly messages: readonly unknown[] };
}

/** `generateText` of `ai`, as the adapter calls it (`Model` is the model type the caller passes). */
export type AiSdkGenerateText<Model = AiSdkLanguageModel> = (
  options: AiSdkGenerateTextOptions<Model>,
) => PromiseLike<AiSdkGenerateTextResult>;
