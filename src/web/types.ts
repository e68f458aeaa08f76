/**
 * What the API answers, as the browser reads it: the types the server's route schemas infer
 * (src/server/api-types.ts), so the page and the server cannot drift apart. Imported as types
 * only: the bundle gets none of the server's code.
 */
import type {
  Message,
  MessageRange,
  SessionPage,
  SessionStats,
  SessionSummary,
  SessionThread,
  TokenTimeline,
  Who,
} from '../server/api-types.js';

export type { Message, MessageRange, SessionPage, SessionStats, SessionThread, Who };

/** A message category, in decreasing priority. */
export type Category = Message['category'];

/** The categories in stacking order (bottom first). */
export const CATEGORIES: readonly Category[] = ['system', 'context', 'dialog', 'tool_output'];

/** One part of a multi-part content. */
export type ContentPart = Exclude<Message['content'], string>[number];

/** A row of the session list. */
export type SessionRow = SessionSummary;

/** Where a fork was taken (`missing` when the source is gone). */
export type ForkedFrom = NonNullable<SessionRow['forkedFrom']>;

/** Usage counts of a session, or of one model's calls. */
export type UsageCounts = SessionStats['usage']['byModel'][string];

/** A session's token timeline. */
export type Timeline = TokenTimeline;

/** One point of a token timeline: the end of a turn, or the context right before or after a compaction. */
export type TimelinePoint = Timeline['points'][number];

/** Measured usage of the calls of a turn, or of a bucket of turns. */
export type TurnUsage = NonNullable<TimelinePoint['usage']>;

/** A LangGraph thread at one checkpoint (`GET /sessions/{id}/thread`). */
export type ThreadView = NonNullable<SessionThread['thread']>;

/** One checkpoint of a thread. */
export type ThreadCheckpoint = ThreadView['checkpoints'][number];

/** A message of the conversation the checkpoint shown does not hold. */
export type ElsewhereMessage = ThreadView['elsewhere']['messages'][number];
