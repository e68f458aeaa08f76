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
  /** Prompt tokens served from the provider's cache. */
  readonly cachedInputTokens?: number;
}

/** Usage tied to the history it measured: the first `messageCount` messages were the prompt. */
export interface RecordedUsage extends Usage {
  /** How many of the session's messages (system included) formed the measured prompt. */
  readonly messageCount: number;
}
