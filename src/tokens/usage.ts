/**
 * Token usage reported by a real model call, recorded so compaction can trust measured numbers
 * over estimates (goaitools' TokenLimitCompactor).
 * @module
 */

/** Usage reported by a provider for one call. */
export interface Usage {
  /** Prompt tokens the provider counted. */
  readonly inputTokens: number;
  /** Tokens it generated. */
  readonly outputTokens?: number;
  /**
   * Prompt tokens read from the provider's cache (part of `inputTokens`): OpenAI `cached_tokens`,
   * Anthropic `cache_read_input_tokens`, the AI SDK's `cacheReadTokens` (Gemini's
   * `cachedContentTokenCount` among them).
   */
  readonly cachedInputTokens?: number;
  /**
   * Prompt tokens written to the provider's cache by this call (part of `inputTokens`; Anthropic
   * bills them above the input price): Anthropic `cache_creation_input_tokens`, OpenAI
   * `cache_write_tokens`, the AI SDK's `cacheWriteTokens`.
   */
  readonly cacheWriteInputTokens?: number;
}

/** Usage tied to the history it measured: the first `messageCount` messages were the prompt. */
export interface RecordedUsage extends Usage {
  /** How many of the session's messages (system included) formed the measured prompt. */
  readonly messageCount: number;
}
