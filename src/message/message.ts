/**
 * `Message`: an immutable, validated conversation message, and its frozen companion object of
 * constructors.
 * @module
 */
import type { z } from 'zod';
import { InvalidInputError, describeIssues } from '../errors.js';
import { deepFreeze } from '../freeze.js';
import { newId } from '../ids.js';
import { buildStoredMessage } from './fast-parse.js';
import { DEFAULT_CATEGORY, MAX_MESSAGE_CHARS, contentSize, isEmptyContent } from './rules.js';
import {
  messageInputSchema,
  type toolCallInputSchema,
  type Category,
  type Content,
  type ContentPart,
  type JsonObject,
  type MessageInput,
  type Role,
  type ToolCall,
  type ToolCallInput,
} from './schema.js';

export type { MessageInput } from './schema.js';
export { MAX_MESSAGE_CHARS } from './rules.js';

/** A deep-frozen conversation message. */
export interface Message {
  /** Unique id (also the idempotency key of an append). */
  readonly id: string;
  readonly role: Role;
  /** Importance for compaction; defaults from the role. */
  readonly category: Category;
  readonly content: Content;
  /** Tool calls requested by an assistant message. */
  readonly toolCalls?: readonly ToolCall[];
  /** On a tool message: the id of the call it answers. */
  readonly toolCallId?: string;
  /** Participant name, or the tool name on a tool message. */
  readonly name?: string;
  /** ISO-8601 creation time. */
  readonly timestamp: string;
  readonly metadata: JsonObject;
  /** Token counts by counter name, when known (a cache; never trusted for safety). */
  readonly tokens?: Readonly<Record<string, number>>;
  /** Position in its session, given by the store that holds it (monotonic, never reused). */
  readonly seq?: number;
}

// Only values made here are messages, so `Message.is` cannot be fooled by a look-alike object.
// Each message carries a private field: `Returning`'s constructor returns the object it is given,
// so `Made`'s field initializer installs `#made` on that object. The field is invisible to keys,
// spreads, JSON and deep equality, and nothing outside this module can set it. A WeakSet of
// messages did the same, but an application holds many messages, and inserting into a large
// WeakSet (and collecting garbage around it) made decoding a stored session ~25% slower and cost
// ~40 bytes per message; the field costs ~5 (measured on the 100,000-message bench corpus).
class Returning {
  constructor(target: object) {
    return target;
  }
}

class Made extends Returning {
  readonly #made = true;

  /** Marks `message` (before it is frozen) as made by this module. */
  static stamp(message: object): void {
    new Made(message);
  }

  /** True for messages made here; false for anything else, primitives and `null` included. */
  static has(value: unknown): boolean {
    return typeof value === 'object' && value !== null && #made in value;
  }
}

function invalid(message: string, details?: Record<string, unknown>): InvalidInputError {
  return new InvalidInputError('INVALID_MESSAGE', `Invalid message: ${message}`, { details });
}

function normalizeToolCall(call: z.output<typeof toolCallInputSchema>): ToolCall {
  const args = call.arguments === undefined ? '{}' : typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
  const result: { id: string; name: string; arguments: string; providerOptions?: ToolCall['providerOptions'] } = {
    id: call.id,
    name: call.name,
    arguments: args,
  };
  if (call.providerOptions !== undefined) result.providerOptions = call.providerOptions;
  return result;
}

function create(input: MessageInput): Message {
  if (typeof input !== 'object' || input === null) throw invalid('expected an object');
  const parsed = messageInputSchema.safeParse(input);
  if (!parsed.success) throw invalid(describeIssues(parsed.error.issues), { issues: parsed.error.issues.length });
  const data = parsed.data;
  const size = contentSize(data.content);
  if (size > MAX_MESSAGE_CHARS) {
    throw new InvalidInputError('TOO_LARGE', `Message content is ${size} characters; the limit is ${MAX_MESSAGE_CHARS}`, {
      details: { size, limit: MAX_MESSAGE_CHARS },
    });
  }
  const category = data.category ?? DEFAULT_CATEGORY[data.role];
  const toolCalls = data.toolCalls !== undefined && data.toolCalls.length > 0 ? data.toolCalls.map(normalizeToolCall) : undefined;

  if (data.role === 'tool') {
    if (data.toolCallId === undefined) throw invalid('a tool message needs toolCallId');
    if (category !== 'tool_output') throw invalid('a tool message must have category tool_output');
  } else if (data.toolCallId !== undefined) {
    throw invalid(`toolCallId is only allowed on tool messages, not ${data.role}`);
  }
  if (toolCalls !== undefined) {
    if (data.role !== 'assistant') throw invalid('only assistant messages may carry toolCalls');
    const ids = new Set(toolCalls.map((call) => call.id));
    if (ids.size !== toolCalls.length) throw invalid('tool call ids must be unique within a message');
  }
  if (data.role !== 'tool' && toolCalls === undefined && isEmptyContent(data.content)) {
    throw invalid(`a ${data.role} message needs non-empty content`);
  }

  const message: {
    -readonly [K in keyof Message]: Message[K];
  } = {
    id: data.id ?? newId('msg'),
    role: data.role,
    category,
    content: data.content,
    timestamp: data.timestamp ?? new Date().toISOString(),
    metadata: data.metadata ?? {},
  };
  if (toolCalls !== undefined) message.toolCalls = toolCalls;
  if (data.toolCallId !== undefined) message.toolCallId = data.toolCallId;
  if (data.name !== undefined) message.name = data.name;
  if (data.tokens !== undefined) message.tokens = data.tokens;
  if (data.seq !== undefined) message.seq = data.seq;
  Made.stamp(message);
  return deepFreeze(message);
}

/**
 * `create` for a message read back from storage: the same acceptance, errors and result, several
 * times faster on plain data such as a record after `JSON.parse` (see `./fast-parse.ts`).
 */
function fromStored(value: unknown): Message {
  const fast = buildStoredMessage(value);
  if (fast === undefined) return create(value as MessageInput);
  Made.stamp(fast);
  return Object.freeze(fast);
}

/**
 * `message` (made by this module) as stored at sequence number `seq`, without validating it again:
 * for a store that has just written it. `INVALID_ARGUMENT` for anything else.
 */
export function storedAt(message: Message, seq: number): Message {
  if (!Made.has(message)) throw new InvalidInputError('INVALID_ARGUMENT', 'storedAt needs a Message');
  if (!Number.isSafeInteger(seq) || seq < 1) throw new InvalidInputError('INVALID_ARGUMENT', `storedAt needs a positive integer seq, not ${String(seq)}`);
  // Its fields are frozen already and shared; the copy keeps `create`'s field order (seq is last).
  const stored = { ...message, seq };
  Made.stamp(stored);
  return Object.freeze(stored);
}

/** Extra fields accepted by the shorthand constructors. */
export type MessageExtras = Omit<MessageInput, 'role' | 'content' | 'toolCallId'>;

/** Writable view of a message, for the few places that build one from another. */
type MessageFields = { -readonly [K in keyof Message]?: Message[K] };

/** Plain-data copy of a message (used to derive a changed message without mutating the original). */
function toInput(message: Message): MessageInput {
  const fields: MessageFields = { ...message };
  return fields as MessageInput;
}

// The fields a token count depends on: changing one makes a cached `tokens` count wrong.
const COUNTED_FIELDS = ['content', 'toolCalls', 'name', 'toolCallId'] as const;

/** `message` with `changes` applied; a cached token count is dropped when it no longer describes the content. */
function withChanges(message: Message, changes: Partial<MessageInput>): Message {
  const stale = !Object.hasOwn(changes, 'tokens') && COUNTED_FIELDS.some((field) => Object.hasOwn(changes, field));
  return create({ ...toInput(message), ...(stale ? { tokens: undefined } : {}), ...changes });
}

/** The text of a message's content: the string itself, or its text parts joined by newlines. */
function textOf(message: Pick<Message, 'content'>): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** The companion object of `Message`: constructors and helpers. */
export const Message = Object.freeze({
  /** Validates `input`, fills `id` and `timestamp`, and returns a deep-frozen message; throws `INVALID_MESSAGE`. */
  create,
  /**
   * Validates a message read back from a store (or any plain JSON data) exactly as `create` does —
   * same acceptance, same errors, same result — without zod on the common path; throws `INVALID_MESSAGE`.
   */
  fromStored,
  /** A system instruction (category `system`, never compacted away). */
  system: (text: string, extras: MessageExtras = {}): Message => create({ ...extras, role: 'system', content: text }),
  /** Reference information (category `context`): kept longer than dialog, carried into continuations. */
  context: (content: Content, extras: MessageExtras = {}): Message =>
    create({ category: 'context', ...extras, role: 'system', content: content as MessageInput['content'] }),
  /** A user message. */
  user: (content: Content, extras: MessageExtras = {}): Message =>
    create({ ...extras, role: 'user', content: content as MessageInput['content'] }),
  /** An assistant message, optionally requesting tool calls. */
  assistant: (content: Content, extras: MessageExtras & { toolCalls?: ToolCallInput[] } = {}): Message =>
    create({ ...extras, role: 'assistant', content: content as MessageInput['content'] }),
  /** The result of one tool call. */
  tool: (toolCallId: string, content: Content, extras: MessageExtras = {}): Message =>
    create({ ...extras, role: 'tool', toolCallId, content: content as MessageInput['content'] }),
  /** True when `value` is a message made by `Message.create` (and so valid and frozen). */
  is: (value: unknown): value is Message => Made.has(value),
  /**
   * A new message with the same id and `changes` applied, validated again; the original is untouched.
   * A cached `tokens` count is dropped when the content, tool calls or name change (unless `changes` sets it).
   */
  with: withChanges,
  /** The text of a message's content. */
  text: textOf,
  /** Returns `value` if it is already a message, otherwise validates and creates one. */
  from: (value: Message | MessageInput): Message => (Made.has(value) ? (value as Message) : create(value as MessageInput)),
});
