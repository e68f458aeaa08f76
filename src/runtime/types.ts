/**
 * ✱ The turn contract (Coreason's cycle with goaitools' rules): load → call the model, running the
 * tools it asks for until it answers → append → compact (only after a final answer) → save.
 * @module
 */
import type { HandleWorkingMemoryOptions } from '../active-memory/session-handle.js';
import type { SessionHandle } from '../active-memory/types.js';
import type { CompactionResult, Compactor, Strategy } from '../compaction/types.js';
import type { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';
import type { ChatModel, ToolSpec } from '../models/types.js';
import type { Session } from '../session/session.js';
import type { Usage } from '../tokens/usage.js';
import type { TurnFit } from './request-fit.js';

/** What a tool receives besides its arguments. */
export interface ToolContext {
  readonly sessionId: string;
  readonly toolCallId: string;
  /** The session's active memory (scoped values, recall, history). */
  readonly memory: SessionHandle;
  /** Aborted when the turn is. */
  readonly signal: AbortSignal;
}

/** A tool the runtime runs for the model. Its result (or thrown error) goes back to the model as a tool result. */
export interface Tool extends ToolSpec {
  /** Runs the tool on the parsed arguments; a string is sent as is, other JSON as JSON text. */
  execute(args: JsonValue, context: ToolContext): Promise<JsonValue> | JsonValue;
  /**
   * Whether recall may find this tool's results later. `false` for tools whose results repeat
   * what memory holds (the memory tools): their results are stored with `metadata.recall: false`. @default true
   */
  readonly recall?: boolean;
}

/** An agent (Magent): a model, a system prompt and tools, chosen per session by `Session.agentId`. */
export interface Agent {
  readonly id: string;
  readonly model: ChatModel;
  /** The system prompt, built fresh for every call (never stored in the session). */
  readonly system?: string | ((session: Session) => string | Promise<string>);
  readonly tools?: readonly Tool[];
  /** Gives the model `recall` and `remember` tools over its active memory. @default false */
  readonly memoryTools?: boolean;
  /**
   * Shows the model its working memory of the session's user in the system prompt of every call,
   * and gives it the `update_working_memory` tool (`true`: one memory per user, no schema, 32 KiB).
   * A session without a user has none. @default false
   */
  readonly workingMemory?: boolean | HandleWorkingMemoryOptions;
}

/** Options of `Conversation.send`. */
export interface SendOptions {
  /** Aborts the model call and the tools; the turn then fails with `ABORTED` and stores nothing. */
  readonly signal?: AbortSignal;
  /** Agent for this turn, overriding (and reassigning) the session's; persisted with the session. */
  readonly agentId?: string;
  /**
   * The user the session belongs to: a new session is created for this user; an existing one must
   * already be this user's (`INVALID_ARGUMENT` otherwise), so a turn never runs on another user's memory.
   */
  readonly userId?: string;
}

/** What one turn produced. */
export interface TurnResult {
  /** The final assistant message. */
  readonly reply: Message;
  /** The session as stored after the turn (compacted when a compactor ran). */
  readonly session: Session;
  /** Every message this turn appended, in order (the input, tool calls and results, the reply). */
  readonly messages: readonly Message[];
  /** Usage summed over the turn's model calls. */
  readonly usage: Usage;
  /** Model calls made (1 without tools). */
  readonly iterations: number;
  /**
   * The compaction after the final answer, when one ran. When it failed, or another writer came
   * first so it could not be stored, `error` says why and `session` is the turn as committed.
   */
  readonly compaction?: CompactionResult;
  /** The id `send` was given, when the turn ran in a continuation of it: use `session.id` from now on. */
  readonly continuedFrom?: string;
  /**
   * What was done to fit the turn's requests to the model's context, when the provider refused one
   * as too long or the counter said it would be: the stored turn is whole either way.
   */
  readonly fitted?: TurnFit;
  /** The successor this turn's session was continued to once full (`continueAtBoundary`): later turns run there. */
  readonly continuedTo?: string;
}

/** Compaction the runtime applies after a final answer. */
export type TurnCompactor = Compactor | Strategy;
