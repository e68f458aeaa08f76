/**
 * The request and response shapes of the HTTP API, built from the library's own zod schemas: the
 * same checks as the library, and the OpenAPI document generated from them.
 * @module
 */
import { z } from '@hono/zod-openapi';
import { MAX_SEQ, MAX_TTL_MS } from '../bounds.js';
import { ERROR_CODES } from '../errors.js';
import { ID_PATTERN } from '../ids.js';
import {
  CATEGORIES,
  jsonObjectSchema,
  jsonValueSchema,
  messageInputSchema,
  timestampSchema,
  toolCallSchema,
} from '../message/schema.js';
import { sessionJsonSchema, usageSchema } from '../session/schema.js';
import { MAX_LIST_LIMIT } from '../store/list-query.js';
import { MAX_READ_AT } from '../store/message-refs.js';
import { messageTokensFields } from './message-tokens.js';

/** A session id in a path. */
export const sessionIdParam = z.object({
  id: z
    .string()
    .regex(ID_PATTERN)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'trip-lisbon' }),
});

/** The body of every error. */
export const errorSchema = z
  .object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('Error');

/**
 * A stored message, as the API returns it: what a message's input may leave out, a stored one
 * has (`Message.create` fills in category, timestamp and metadata), and its tool calls' arguments
 * are JSON text.
 */
export const messageSchema = messageInputSchema
  .extend({
    id: z.string(),
    seq: z.number().int().positive(),
    category: z.enum(CATEGORIES),
    timestamp: timestampSchema,
    metadata: jsonObjectSchema,
    toolCalls: z.array(toolCallSchema).optional(),
  })
  .openapi('Message');

/** A session, as the API returns it. */
export const sessionSchema = sessionJsonSchema.extend({ messages: z.array(messageSchema) }).openapi('Session');

/** Where a session was forked from; `missing` only where a route looks the source up. */
export const forkedFromSchema = z
  .object({
    sessionId: z.string(),
    messageId: z.string().optional(),
    seq: z.number().int().positive().optional(),
    missing: z.literal(true).optional().openapi({
      description:
        'The source is gone (deleted, or not the caller’s). Told by GET /sessions/{id}/summary and /stats, which look the source up; list rows do not',
    }),
  })
  .optional()
  .openapi({
    description: 'The session (and its last message copied, by id and sequence number) this one was forked from',
  });

/** How a store repaired a damaged session (`RecoveryNotice`). */
export const recoveryNoticeSchema = z
  .object({
    id: z.string(),
    at: z.string(),
    kind: z.enum(['restored-from-backup', 'journal-damaged', 'unreadable']),
    reason: z.string(),
    lost: z
      .object({
        fromSeq: z.number().int(),
        toSeq: z.number().int(),
        fromVersion: z.number().int(),
        toVersion: z.number().int(),
      })
      .optional()
      .openapi({ description: 'The sequence numbers and versions lost, inclusive, when the store knows' }),
    keptAside: z
      .array(z.string())
      .openapi({ description: 'Where the damaged files were kept (relative to the store)' }),
  })
  .openapi('RecoveryNotice');

/** A row of the session list. */
export const summarySchema = z
  .object({
    id: z.string(),
    agentId: z.string().optional(),
    userId: z.string().optional(),
    title: z.string().optional(),
    messageCount: z.number().int(),
    tokenCount: z.number().int(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    expiresAt: z.string().optional(),
    kind: z.string().optional().openapi({
      description:
        "Set only on a session chatstate keeps for itself (its metadata.chatstate, e.g. 'knowledge'): listed only when kinds asks for it",
    }),
    recovery: z.array(recoveryNoticeSchema).optional(),
    damaged: z
      .string()
      .optional()
      .openapi({ description: 'Why the stored session could not be read (counts are 0); it can still be deleted' }),
    continuedFrom: z.string().optional().openapi({ description: 'The session this one continues' }),
    continuedTo: z.string().optional().openapi({ description: 'The session that continues this one' }),
    forkedFrom: forkedFromSchema,
    forks: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Ids of this session’s forks (its metadata.forks: the newest 100), oldest first' }),
  })
  .openapi('SessionSummary');

/** Messages a compaction removed (`CompactionRemoved`). */
export const compactionRemovedSchema = z.object({
  count: z.number().int(),
  tokens: z.number(),
  firstId: z.string().optional(),
  lastId: z.string().optional(),
});

/** Messages a compaction rewrote in place, and the tokens that saved. */
export const compactionModifiedSchema = z.object({ count: z.number().int(), tokensSaved: z.number() });

/** Query of `GET /sessions`. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIST_LIMIT).optional().openapi({ example: 50 }),
  cursor: z.string().max(512).optional().openapi({ description: 'The nextCursor of the previous page' }),
  userId: z.string().min(1).max(256).optional(),
  agentId: z.string().min(1).max(256).optional(),
  q: z.string().min(1).max(200).optional().openapi({
    description:
      'Only sessions whose id, title, user or agent contains this (any case). A page may then hold fewer rows than limit and still have a nextCursor: the search reads a bounded number of rows per request',
  }),
  updatedAfter: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'Only sessions active after this time (ISO 8601)' }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({ description: 'Rows skipped (after the cursor, when both are given); not with q or updatedAfter' }),
  idPrefix: z
    .string()
    .max(128)
    .optional()
    .openapi({ description: 'Only sessions whose id starts with this; not with q or updatedAfter' }),
  expired: z.enum(['true', 'false']).optional().openapi({
    description:
      'true: only the expired sessions a purge has not removed yet (what POST /purge-expired would remove); not with q or updatedAfter',
  }),
  kinds: z.string().min(1).max(2200).optional().openapi({
    description:
      "Which sessions by kind: conversations (the default: sessions without a kind), all (chatstate's internal sessions too), or a comma-separated list of kinds (only those, e.g. knowledge,working-memory)",
    example: 'all',
  }),
});

/** A page of `GET /sessions`. */
export const listPageSchema = z
  .object({ sessions: z.array(summarySchema), nextCursor: z.string().optional() })
  .openapi('SessionPage');

/** Body of `POST /sessions`. */
export const createSessionSchema = z
  .strictObject({
    id: z.string().regex(ID_PATTERN).optional(),
    userId: z.string().min(1).max(256).optional(),
    agentId: z.string().min(1).max(256).optional(),
    messages: z.array(messageInputSchema).optional(),
    variables: z.record(z.string(), jsonValueSchema).optional(),
    metadata: jsonObjectSchema.optional(),
    ttlMs: z.number().int().positive().max(MAX_TTL_MS).optional(),
  })
  .openapi('CreateSession');

/** Query of `GET /sessions/{id}/messages`. */
export const messagesQuerySchema = z.object({
  afterSeq: z.coerce.number().int().nonnegative().optional(),
  beforeSeq: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().positive().max(10_000).optional().openapi({ description: 'The last N of the range' }),
});

/** Answer of `GET /sessions/{id}/messages`: the messages and the tokens of each. */
export const messageRangeSchema = z
  .object({ messages: z.array(messageSchema), ...messageTokensFields })
  .openapi('MessageRange');

/** The state an append replaces with its messages (`AppendOptions.state`). */
export const appendStateSchema = z
  .strictObject({
    metadata: jsonObjectSchema,
    variables: z.record(z.string(), jsonValueSchema),
    lastUsage: usageSchema.optional(),
  })
  .openapi('AppendState', {
    description:
      "Replaces the session's metadata, variables and last usage in the same commit; written only when a message is added",
  });

/** Body of `POST /sessions/{id}/messages`. */
export const appendSchema = z
  .strictObject({ messages: z.array(messageInputSchema).min(1), state: appendStateSchema.optional() })
  .openapi('Append');

/** Body of `POST /sessions/{id}/tail` (`store.replaceTail`; the expected version is `If-Match`). */
export const replaceTailSchema = z
  .strictObject({
    afterSeq: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: "The messages with a greater seq are removed; at most the session's last seq" }),
    messages: z.array(messageInputSchema).openapi({ description: 'The new tail, in order (none: a pop)' }),
    state: appendStateSchema.optional(),
  })
  .openapi('ReplaceTail');

/** Answer of `POST /sessions/{id}/tail`. */
export const replaceTailResultSchema = z
  .object({
    version: z.number().int(),
    removed: z.number().int().openapi({ description: 'How many stored messages were removed' }),
    messages: z.array(messageSchema).openapi({ description: 'The new tail as stored, with its seqs' }),
  })
  .openapi('ReplaceTailResult');

/** Body of `PUT /sessions/{id}`: the whole session as stored (its JSON format) and the options of the save. */
export const saveSessionSchema = z
  .strictObject({
    session: sessionJsonSchema.extend({ messages: z.array(messageInputSchema) }),
    ttlMs: z
      .number()
      .int()
      .positive()
      .max(MAX_TTL_MS)
      .optional()
      .openapi({ description: 'Retention: the session expires this long after the save' }),
    keepUpdatedAt: z
      .boolean()
      .optional()
      .openapi({ description: "Store the session's own updatedAt instead of the time of the save (imports)" }),
    erase: z
      .boolean()
      .optional()
      .openapi({ description: 'The messages the save drops are being erased on request: leave no copy of them' }),
  })
  .openapi('SaveSession');

/** Answer of an append. */
export const appendResultSchema = z
  .object({ version: z.number().int(), appended: z.array(messageSchema), duplicates: z.array(z.string()) })
  .openapi('AppendResult');

/** Values of one owner, by key. */
export const valuesSchema = z.record(z.string(), jsonValueSchema).openapi('Values');

/** A change of values: a key set to `null` is deleted. */
export const valuesPatchSchema = z.record(z.string(), jsonValueSchema).openapi('ValuesPatch');

/** A key's principal, as `GET /auth/session` tells it. */
export const principalSchema = z
  .object({
    tenant: z.string(),
    role: z.enum(['admin', 'member']),
    userId: z.string().optional(),
    keyId: z.string(),
  })
  .openapi('Principal');

/** Who a request is: answer of `GET /auth/session` and `POST /auth/session`. */
export const whoSchema = z
  .object({
    keysRequired: z.boolean().openapi({ description: 'False for a server without keys (loopback only)' }),
    principal: principalSchema.nullable(),
    via: z.enum(['key', 'cookie']).optional(),
    expiresAt: z.string().optional().openapi({ description: 'When the browser session ends (ISO 8601)' }),
  })
  .openapi('Who');

const ownerId = z.string().min(1).max(256);

/** Whose values a batch writes (`ValueOwner`). */
export const valueOwnerSchema = z
  .discriminatedUnion('scope', [
    z.strictObject({ scope: z.literal('user'), userId: ownerId }),
    z.strictObject({ scope: z.literal('agent'), agentId: ownerId, userId: ownerId }),
    z.strictObject({ scope: z.literal('app') }),
    z.strictObject({ scope: z.literal('session'), sessionId: z.string().regex(ID_PATTERN) }),
  ])
  .openapi('ValueOwner');

/** Body of `POST /values/batch`: keys to set (`null` is a value here) and keys to delete, in one atomic write. */
export const valuesBatchSchema = z
  .strictObject({
    owner: valueOwnerSchema,
    set: z
      .record(z.string(), jsonValueSchema)
      .optional()
      .openapi({ description: 'Keys to set to these values, null included' }),
    delete: z.array(z.string()).max(10_000).optional().openapi({ description: 'Keys to delete' }),
  })
  .openapi('ValuesBatch');

/** A message's place: its session and sequence number (`MessageRef`). */
export const messageRefSchema = z
  .strictObject({
    sessionId: z.string().regex(ID_PATTERN),
    seq: z.number().int().min(1).max(MAX_SEQ),
  })
  .openapi('MessageRef');

/** Body of `POST /messages/at`. */
export const messagesAtSchema = z
  .strictObject({ refs: z.array(messageRefSchema).max(MAX_READ_AT) })
  .openapi('MessagesAt', { description: `At most ${MAX_READ_AT} refs, any sessions, in any order (repeats allowed)` });

/** Answer of `POST /messages/at`: one entry per ref, in order. */
export const messagesAtResultSchema = z
  .object({
    messages: z.array(z.union([messageSchema, z.null()])).openapi({
      description: 'The message at each ref; null for a missing or expired session, or no message at that seq',
    }),
  })
  .openapi('MessagesAtResult');

/** One live session of a user (`SessionMark`): what changes with every write. */
export const sessionMarkSchema = summarySchema
  .pick({ id: true, version: true, createdAt: true, messageCount: true, tokenCount: true, damaged: true })
  .openapi('SessionMark');

/** Answer of `GET /users/{userId}/marks`. */
export const sessionMarksSchema = z.object({ marks: z.array(sessionMarkSchema) }).openapi('SessionMarks');
