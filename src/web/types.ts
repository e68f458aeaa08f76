/**
 * What the API answers, as the browser reads it. The client talks to the server over HTTP only, so
 * these are written from the OpenAPI document's shapes, not imported from the server's code.
 */

/** A message category, in decreasing priority. */
export type Category = 'system' | 'context' | 'dialog' | 'tool_output';

/** The categories in stacking order (bottom first). */
export const CATEGORIES: readonly Category[] = ['system', 'context', 'dialog', 'tool_output'];

/** A JSON value. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/** One part of a multi-part content. */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly url?: string; readonly data?: string; readonly mediaType?: string }
  | {
      readonly type: 'file';
      readonly url?: string;
      readonly fileId?: string;
      readonly filename?: string;
      readonly mediaType: string;
    }
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'raw'; readonly provider: string; readonly value: Json };

/** A tool call of an assistant message. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text, kept verbatim. */
  readonly arguments: string;
}

/** A stored message. */
export interface Message {
  readonly id: string;
  readonly seq: number;
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly category: Category;
  readonly content: string | readonly ContentPart[];
  readonly toolCalls?: readonly ToolCall[];
  readonly toolCallId?: string;
  readonly name?: string;
  readonly timestamp: string;
  readonly metadata: { readonly [key: string]: Json };
}

/** Messages of `GET /sessions/{id}/messages`, with the tokens of each (`tokenCounts[i]` counts `messages[i]`). */
export interface MessageRange {
  readonly messages: readonly Message[];
  /** The token counter (the one the stats and the timeline count with). */
  readonly counter: string;
  readonly tokenCounts: readonly number[];
}

/** A row of the session list. */
export interface SessionRow {
  readonly id: string;
  readonly agentId?: string;
  readonly userId?: string;
  readonly title?: string;
  readonly messageCount: number;
  readonly tokenCount: number;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly continuedFrom?: string;
  readonly continuedTo?: string;
  /** The source and the last message copied (its sequence number is the same in the source). */
  readonly forkedFrom?: ForkedFrom;
  /** Ids of this session's forks, oldest first. */
  readonly forks?: readonly string[];
  /** Why the stored session could not be read (its counts are then 0); it can still be deleted. */
  readonly damaged?: string;
}

/** Where a fork was taken. */
export interface ForkedFrom {
  readonly sessionId: string;
  readonly messageId?: string;
  readonly seq?: number;
}

/** A page of the session list. */
export interface SessionPage {
  readonly sessions: readonly SessionRow[];
  readonly nextCursor?: string;
}

/** Who the browser is. */
export interface Who {
  readonly keysRequired: boolean;
  readonly principal: { readonly tenant: string; readonly role: string; readonly userId?: string } | null;
}

/** Usage counts. */
export interface UsageCounts {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cachedInputTokens: number;
  /** Input tokens written to the prompt cache (absent from servers before it was counted). */
  readonly cacheWriteInputTokens?: number;
}

/** A session's statistics. */
export interface SessionStats {
  readonly id: string;
  readonly version: number;
  readonly stats: {
    readonly messages: number;
    readonly byRole: Readonly<Record<string, number>>;
    readonly byCategory: Readonly<Record<string, number>>;
    readonly tokens: {
      readonly total: number;
      readonly byCategory: Readonly<Record<string, number>>;
      readonly counter: string;
    };
    readonly toolCalls: { readonly total: number; readonly byName: Readonly<Record<string, number>> };
    readonly toolResults: number;
  };
  readonly usage: UsageCounts & {
    readonly byModel: Readonly<Record<string, UsageCounts>>;
    /** Cached input / input tokens, 0 to 1; absent without input. */
    readonly cachedShare?: number;
  };
  readonly cost?: {
    readonly currency: string;
    readonly total: number;
    readonly byModel: Readonly<Record<string, number>>;
    readonly unpriced: readonly string[];
  };
  readonly chain: { readonly ids: readonly string[]; readonly position: number; readonly missing: readonly string[] };
  readonly forkedFrom?: ForkedFrom;
  readonly compactions: number;
}

/** One point of a token timeline: the end of a turn, or the context right before or after a compaction. */
export interface TimelinePoint {
  /** Where it stands: a sequence number (compaction points a half after theirs). */
  readonly x: number;
  readonly kind: 'turn' | 'before-compaction' | 'after-compaction';
  readonly turn: number;
  readonly index: number;
  readonly seq?: number;
  readonly messages: number;
  readonly tokens: Readonly<Record<Category, number>>;
  readonly added: number;
  readonly toolCalls: number;
  readonly toolTokens: number;
  /** Measured usage of the turn's calls (a downsampled point: its bucket's, summed); absent without. */
  readonly usage?: TurnUsage;
}

/** Measured usage of the calls of a turn, or of a bucket of turns. */
export type TurnUsage = Pick<UsageCounts, 'calls' | 'inputTokens' | 'cachedInputTokens'>;

/** A compaction mark of a timeline. */
export interface TimelineMark {
  readonly kind: 'compaction' | 'summary' | 'cut';
  readonly x: number;
  readonly turn: number;
  readonly index: number;
  readonly strategy?: string;
  readonly at?: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  readonly removedMessages?: number;
}

/** A session's token timeline. */
export interface Timeline {
  readonly id: string;
  readonly version: number;
  readonly counter: string;
  readonly contextWindow?: number;
  readonly messageCount: number;
  readonly turnCount: number;
  readonly points: readonly TimelinePoint[];
  readonly downsampled: boolean;
  readonly marks: readonly TimelineMark[];
  readonly toolHeavy: ReadonlyArray<{
    readonly x: number;
    readonly turn: number;
    readonly index: number;
    readonly toolCalls: number;
    readonly toolTokens: number;
  }>;
  readonly seqRuns: ReadonlyArray<readonly [number, number]>;
}
