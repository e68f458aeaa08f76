/**
 * The zod schemas of a message: the single source of truth for what a valid message is.
 * Types are inferred from nowhere else, so the checks and the types cannot drift.
 * @module
 */
import { z } from 'zod';
import { readJson, readJsonObject, readJsonRecord, type JsonRead } from './json-value.js';

/** A JSON value. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

/**
 * A zod schema whose check and copy are `read`'s (one of `./json-value.ts`): zod never walks a
 * JSON value itself, so its limits (depth, size, cycles, getters, `"__proto__"` keys kept) hold
 * wherever a schema takes JSON. An issue for a value over its size limit carries
 * `params.reason: 'too-large'`, so that a caller can report `TOO_LARGE`.
 */
function jsonSchema<T extends JsonValue>(read: (value: unknown) => JsonRead<T>): z.ZodType<T> {
  const schema = z.unknown().transform((value, context): T => {
    const result = read(value);
    if (result.ok) return result.value;
    const { kind, path, message } = result.problem;
    context.issues.push({
      code: 'custom',
      message: kind === 'too-large' ? `is ${message}` : `not a valid JSON value: ${message}`,
      input: value,
      path: path.length === 0 ? [] : [path],
      params: { reason: kind },
    });
    return z.NEVER;
  });
  // Typed by what it accepts (not `unknown`), so that inferred input types stay precise.
  return schema as unknown as z.ZodType<T>;
}

/** A JSON value (`readJson`). */
export const jsonValueSchema: z.ZodType<JsonValue> = jsonSchema((value) => readJson(value));
/** A JSON object holding values, such as metadata (`readJsonRecord`: each value may nest as deep as one alone). */
export const jsonObjectSchema: z.ZodType<JsonObject> = jsonSchema((value) => readJsonRecord(value));

/** Provider options as read: an object of JSON objects, by provider (the schema and the fast path share it). */
export function readProviderOptions(value: unknown): JsonRead<Readonly<Record<string, JsonObject>>> {
  const read = readJsonRecord(value);
  if (!read.ok) return read;
  for (const key of Object.keys(read.value)) {
    const entry = read.value[key];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return { ok: false, problem: { kind: 'not-json', path: key, message: 'provider options must be JSON objects' } };
    }
  }
  return read as JsonRead<Readonly<Record<string, JsonObject>>>;
}

/** Token counts as read: non-negative integers by counter name (the schema and the fast path share it). */
export function readTokenCounts(value: unknown): JsonRead<Readonly<Record<string, number>>> {
  const read = readJsonRecord(value);
  if (!read.ok) return read;
  for (const key of Object.keys(read.value)) {
    const count = read.value[key];
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
      return {
        ok: false,
        problem: { kind: 'not-json', path: key, message: 'a token count must be a non-negative integer' },
      };
    }
  }
  return read as JsonRead<Readonly<Record<string, number>>>;
}

const providerOptionsSchema = jsonSchema(readProviderOptions);
const tokenCountsSchema = jsonSchema(readTokenCounts);

/** The four message roles. */
export const ROLES = ['system', 'user', 'assistant', 'tool'] as const;
/** A message role. */
export type Role = (typeof ROLES)[number];

/** The categories, in decreasing priority (Penguin): system is never dropped, tool_output goes first. */
export const CATEGORIES = ['system', 'context', 'dialog', 'tool_output'] as const;
/** A message category. */
export type Category = (typeof CATEGORIES)[number];

/** Provider names: one per wire format. */
export const PROVIDERS = ['openaiChat', 'openaiResponses', 'anthropic', 'gemini', 'aiSdk'] as const;
/** A provider wire format name. */
export type ProviderName = (typeof PROVIDERS)[number];

const providerOptions = providerOptionsSchema.optional();

export const textPartSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  providerOptions,
});

export const imagePartSchema = z
  .strictObject({
    type: z.literal('image'),
    /** An https: or data: URL. */
    url: z.string().min(1).optional(),
    /** Base64 bytes. */
    data: z.string().min(1).optional(),
    mediaType: z.string().min(1).optional(),
    detail: z.enum(['auto', 'low', 'high']).optional(),
    providerOptions,
  })
  .refine((part) => (part.url === undefined) !== (part.data === undefined), {
    message: 'an image needs exactly one of url or data',
  });

export const filePartSchema = z
  .strictObject({
    type: z.literal('file'),
    url: z.string().min(1).optional(),
    data: z.string().min(1).optional(),
    /** A provider-side file id (e.g. OpenAI `file-…`). */
    fileId: z.string().min(1).optional(),
    mediaType: z.string().min(1),
    filename: z.string().min(1).optional(),
    providerOptions,
  })
  .refine((part) => [part.url, part.data, part.fileId].filter((v) => v !== undefined).length === 1, {
    message: 'a file needs exactly one of url, data or fileId',
  });

export const reasoningPartSchema = z.strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  /** Provider signature that must be sent back unchanged (Anthropic thinking). */
  signature: z.string().optional(),
  /** The provider that produced it; signatures are only valid there. */
  provider: z.enum(PROVIDERS).optional(),
  providerOptions,
});

export const rawPartSchema = z.strictObject({
  type: z.literal('raw'),
  provider: z.enum(PROVIDERS),
  value: jsonValueSchema,
});

export const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  filePartSchema,
  reasoningPartSchema,
  rawPartSchema,
]);

export type TextPart = z.infer<typeof textPartSchema>;
export type ImagePart = z.infer<typeof imagePartSchema>;
export type FilePart = z.infer<typeof filePartSchema>;
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;
/** A part chatstate does not model, kept verbatim and written back only to its own provider. */
export type RawPart = z.infer<typeof rawPartSchema>;
/** One part of a multi-part content. */
export type ContentPart = TextPart | ImagePart | FilePart | ReasoningPart | RawPart;
/** Message content: plain text or parts. */
export type Content = string | readonly ContentPart[];

/** Characters of a tool call id: printable ASCII without spaces (its length is checked apart: 1–256). */
export const TOOL_CALL_ID_PATTERN = /^[\x21-\x7e]+$/;

/** Tool call ids are chosen by providers, so they only need to be printable and bounded. */
export const toolCallIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(TOOL_CALL_ID_PATTERN, 'must be printable ASCII without spaces');

export const toolCallSchema = z.strictObject({
  id: toolCallIdSchema,
  name: z.string().min(1).max(256),
  /** JSON text of the arguments, kept verbatim (models sometimes emit invalid JSON). */
  arguments: z.string(),
  providerOptions,
});

/** A tool call requested by the assistant. */
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Tool arguments as callers give them: JSON text (kept verbatim), or a JSON object. */
const toolArgumentsSchema: z.ZodType<string | JsonObject> = jsonSchema<string | JsonObject>((value) =>
  typeof value === 'string' ? { ok: true, value, size: value.length + 2 } : readJsonObject(value),
);

export const toolCallInputSchema = z.strictObject({
  id: toolCallIdSchema,
  name: z.string().min(1).max(256),
  /** JSON text, or a value that is serialized to JSON text. */
  arguments: toolArgumentsSchema.optional(),
  providerOptions,
});

/** A tool call as callers may write it: arguments as an object or as JSON text. */
export type ToolCallInput = z.input<typeof toolCallInputSchema>;

/** A message id: 1–256 characters of letters, digits and `._:-`, starting with a letter or digit. */
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/;

export const messageIdSchema = z.string().regex(MESSAGE_ID_PATTERN, 'invalid message id');

/** An ISO-8601 date and time with `Z` or an offset. */
export const timestampSchema = z.iso.datetime({ offset: true });

export const messageInputSchema = z.strictObject({
  id: messageIdSchema.optional(),
  role: z.enum(ROLES),
  category: z.enum(CATEGORIES).optional(),
  content: z.union([z.string(), z.array(contentPartSchema)]),
  toolCalls: z.array(toolCallInputSchema).optional(),
  toolCallId: toolCallIdSchema.optional(),
  name: z.string().min(1).max(256).optional(),
  timestamp: timestampSchema.optional(),
  metadata: jsonObjectSchema.optional(),
  tokens: tokenCountsSchema.optional(),
  /** Position in its session, given by a store: monotonic, never reused. */
  seq: z.number().int().positive().optional(),
});

/** What `Message.create` accepts. */
export type MessageInput = z.input<typeof messageInputSchema>;
