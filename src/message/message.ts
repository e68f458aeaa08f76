/**
 * `Message`: an immutable, validated conversation message, and its frozen companion object of
 * constructors.
 * @module
 */
import type { z } from 'zod';
import { InvalidInputError, describeIssues, errorMessage } from '../errors.js';
import { deepFreeze } from '../freeze.js';
import { newId } from '../ids.js';
import { buildStoredMessage } from './fast-parse.js';
import { jsonSize } from './json-value.js';
import { DEFAULT_CATEGORY, MAX_MESSAGE_CHARS, contentSize, isEmptyContent, messageSizeOf } from './rules.js';
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
export { MAX_JSON_DEPTH } from './json-value.js';

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
  const args =
    call.arguments === undefined
      ? '{}'
      : typeof call.arguments === 'string'
        ? call.arguments
        : JSON.stringify(call.arguments);
  const result: { id: string; name: string; arguments: string; providerOptions?: ToolCall['providerOptions'] } = {
    id: call.id,
    name: call.name,
    arguments: args,
  };
  if (call.providerOptions !== undefined) result.providerOptions = call.providerOptions;
  return result;
}

/** A zod issue, as far as `create` reads one. */
interface Issue {
  readonly code: string;
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
  readonly params?: { readonly reason?: unknown };
  readonly errors?: ReadonlyArray<readonly Issue[]>;
}

/**
 * `issues` with each failed union (content: text or parts; arguments: text or an object) replaced
 * by the issues of the alternative the value was meant for — the one that did not fail on the
 * value's type itself — so that an error names the real problem (and a part over the size limit
 * is seen as such) instead of "Invalid input".
 */
function flattenIssues(issues: readonly Issue[]): Issue[] {
  const flat: Issue[] = [];
  for (const issue of issues) {
    const meant =
      issue.code === 'invalid_union'
        ? issue.errors?.find(
            (branch) => !branch.every((inner) => inner.code === 'invalid_type' && inner.path.length === 0),
          )
        : undefined;
    if (meant === undefined) {
      flat.push(issue);
      continue;
    }
    for (const inner of flattenIssues(meant)) flat.push({ ...inner, path: [...issue.path, ...inner.path] });
  }
  return flat;
}

function tooLarge(size: number | undefined): InvalidInputError {
  const measured = size === undefined ? `more than ${MAX_MESSAGE_CHARS}` : String(size);
  return new InvalidInputError(
    'TOO_LARGE',
    `Message is ${measured} characters of JSON; the limit is ${MAX_MESSAGE_CHARS}`,
    {
      details: { ...(size === undefined ? {} : { size }), limit: MAX_MESSAGE_CHARS },
    },
  );
}

function create(input: MessageInput): Message {
  if (typeof input !== 'object' || input === null) throw invalid('expected an object');
  let parsed: ReturnType<typeof messageInputSchema.safeParse>;
  try {
    // zod reads each field of the message, its parts and its tool calls once; every JSON value
    // in them (metadata, arguments, raw values, provider options, token counts) is checked and
    // copied by `./json-value.ts`, depth and size first, so nothing here recurses without bound.
    parsed = messageInputSchema.safeParse(input);
  } catch (error) {
    // A getter or a Proxy trap of the message itself, of a part or of a tool call threw.
    throw invalid(`it could not be read (${errorMessage(error)})`);
  }
  if (!parsed.success) {
    const issues = flattenIssues(parsed.error.issues as readonly Issue[]);
    // One JSON value alone over the limit: the message is, too.
    if (issues.some((issue) => issue.params?.reason === 'too-large')) throw tooLarge(undefined);
    throw invalid(describeIssues(issues), { issues: issues.length });
  }
  const data = parsed.data;
  const category = data.category ?? DEFAULT_CATEGORY[data.role];
  const toolCalls =
    data.toolCalls !== undefined && data.toolCalls.length > 0 ? data.toolCalls.map(normalizeToolCall) : undefined;

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
  // Measured on the message as built (arguments as the JSON text they became), as the fast path
  // measures a stored one: whatever was accepted once reads back. From the fields in hand: reading
  // them back from messages of many shapes costs more than the count itself.
  const fields = {
    id: message.id,
    role: data.role,
    category,
    timestamp: message.timestamp,
    toolCalls,
    toolCallId: data.toolCallId,
    name: data.name,
  };
  const size = messageSizeOf(
    fields,
    contentSize(data.content),
    jsonSize(message.metadata),
    data.tokens === undefined ? undefined : jsonSize(data.tokens),
  );
  if (size > MAX_MESSAGE_CHARS) throw tooLarge(size);
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
  if (!Number.isSafeInteger(seq) || seq < 1)
    throw new InvalidInputError('INVALID_ARGUMENT', `storedAt needs a positive integer seq, not ${String(seq)}`);
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
  from: (value: Message | MessageInput): Message =>
    Made.has(value) ? (value as Message) : create(value as MessageInput),
});
