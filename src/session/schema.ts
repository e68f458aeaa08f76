/**
 * The JSON shape of a session, versioned by `formatVersion`, validated on the way in.
 * @module
 */
import { z } from 'zod';
import { isValidId } from '../ids.js';
import { jsonObjectSchema, jsonValueSchema } from '../message/schema.js';

/** The current session JSON format. */
export const SESSION_FORMAT_VERSION = 1;

export const usageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative().optional(),
  cachedInputTokens: z.number().int().nonnegative().optional(),
  cacheWriteInputTokens: z.number().int().nonnegative().optional(),
  messageCount: z.number().int().nonnegative(),
});

export const sessionJsonSchema = z.object({
  formatVersion: z.number().int().positive(),
  // The same check as assertValidId (pattern, reserved names, no ".."): a stored session's id is a file name and a key.
  id: z.string().refine(isValidId, 'invalid session id'),
  agentId: z.string().min(1).max(256).optional(),
  userId: z.string().min(1).max(256).optional(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  version: z.number().int().nonnegative(),
  // Messages are validated one by one by Message.create, which names the bad index.
  messages: z.array(z.unknown()),
  variables: z.record(z.string(), jsonValueSchema),
  metadata: jsonObjectSchema,
  lastUsage: usageSchema.optional(),
});

/** The serialized form of a session. */
export type SessionJson = z.input<typeof sessionJsonSchema>;

/** @deprecated Use `SessionJson` (acronyms are words in chatstate's names). */
export type SessionJSON = SessionJson;
