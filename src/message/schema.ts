/**
 * The zod schemas of a message: the single source of truth for what a valid message is.
 * Types are inferred from nowhere else, so the checks and the types cannot drift.
 * @module
 */
import { z } from 'zod';

/** A JSON value. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

export const jsonValueSchema: z.ZodType<JsonValue> = z.json() as z.ZodType<JsonValue>;
export const jsonObjectSchema = z.record(z.string(), jsonValueSchema) as z.ZodType<JsonObject>;

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

const providerOptions = z.record(z.string(), jsonObjectSchema).optional();

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
export const toolCallIdSchema = z.string().min(1).max(256).regex(TOOL_CALL_ID_PATTERN, 'must be printable ASCII without spaces');

export const toolCallSchema = z.strictObject({
  id: toolCallIdSchema,
  name: z.string().min(1).max(256),
  /** JSON text of the arguments, kept verbatim (models sometimes emit invalid JSON). */
  arguments: z.string(),
  providerOptions,
});

/** A tool call requested by the assistant. */
export type ToolCall = z.infer<typeof toolCallSchema>;

export const toolCallInputSchema = z.strictObject({
  id: toolCallIdSchema,
  name: z.string().min(1).max(256),
  /** JSON text, or a value that is serialized to JSON text. */
  arguments: z.union([z.string(), jsonObjectSchema]).optional(),
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
  tokens: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Position in its session, given by a store: monotonic, never reused. */
  seq: z.number().int().positive().optional(),
});

/** What `Message.create` accepts. */
export type MessageInput = z.input<typeof messageInputSchema>;
