/**
 * Messages: a range by sequence number (or the tail), with each message's tokens, the append with optimistic concurrency
 * over HTTP (`If-Match` is the expected version; a retry with the same message ids adds nothing), and the tail replace
 * (`store.replaceTail`: the messages after a seq replaced in one commit, on the version `If-Match` names).
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ChatstateError, ConflictError, InvalidInputError } from '../../errors.js';
import type { ServerEnv } from '../env.js';
import { etagOf, expectedVersionOf } from '../etag.js';
import { messageTokens } from '../message-tokens.js';
import {
  appendResultSchema,
  appendSchema,
  messageRangeSchema,
  messagesQuerySchema,
  replaceTailResultSchema,
  replaceTailSchema,
  sessionIdParam,
} from '../schemas.js';
import { errors, json, jsonBody, sent, stored } from './common.js';

const range = createRoute({
  method: 'get',
  path: '/sessions/{id}/messages',
  tags: ['messages'],
  summary: 'Messages by sequence range; limit alone gives the tail',
  request: { params: sessionIdParam, query: messagesQuerySchema },
  responses: {
    200: json(messageRangeSchema, 'The messages, oldest first, and the tokens of each'),
    ...errors(400, 401, 404, 503),
  },
});

const append = createRoute({
  method: 'post',
  path: '/sessions/{id}/messages',
  tags: ['messages'],
  summary: 'Append messages atomically (idempotent by message id), with the state they change',
  request: {
    params: sessionIdParam,
    headers: z.object({
      'if-match': z.string().optional().openapi({ description: 'The version the append expects, as an ETag' }),
    }),
    body: jsonBody(appendSchema),
  },
  responses: {
    200: json(appendResultSchema, 'What was appended; the ETag is the new version'),
    ...errors(400, 401, 404, 409, 412, 413, 503),
  },
});

const tail = createRoute({
  method: 'post',
  path: '/sessions/{id}/tail',
  tags: ['messages'],
  summary: 'Replace the messages after a seq atomically (a pop, a regenerate, an edit), with the state they change',
  request: {
    params: sessionIdParam,
    headers: z.object({
      'if-match': z.string().openapi({ description: 'The version the replace is based on, as an ETag (required)' }),
    }),
    body: jsonBody(replaceTailSchema),
  },
  responses: {
    200: json(replaceTailResultSchema, 'What was removed and stored; the ETag is the new version'),
    ...errors(400, 401, 404, 412, 413, 503),
  },
});

/** Registers the message routes. */
export function messageRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(range, async (c) => {
    const { id } = c.req.valid('param');
    const messages = await c.var.store.readMessages(id, c.req.valid('query'));
    return c.json(sent(messageRangeSchema, { messages: stored(messages), ...messageTokens(messages) }), 200);
  });

  app.openapi(append, async (c) => {
    const { id } = c.req.valid('param');
    const expectedVersion = expectedVersionOf(c.req.header('if-match'));
    const { messages, state } = c.req.valid('json');
    try {
      const result = await c.var.store.append(id, messages, {
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        ...(state === undefined ? {} : { state }),
      });
      if (result.appended.length > 0) c.var.changed(id);
      c.header('ETag', etagOf(result.version));
      return c.json(sent(appendResultSchema, { ...result, appended: stored(result.appended) }), 200);
    } catch (error) {
      // A stale If-Match is a failed precondition (412); a conflict without one stays 409.
      if (expectedVersion !== undefined && ChatstateError.hasCode(error, 'CONFLICT'))
        throw new PreconditionFailed(error);
      throw error;
    }
  });

  app.openapi(tail, async (c) => {
    const { id } = c.req.valid('param');
    const expectedVersion = expectedVersionOf(c.req.header('if-match'));
    // A tail replace is always on a version read: `*` (any version) would drop what another writer just added.
    if (expectedVersion === undefined)
      throw new InvalidInputError('INVALID_ARGUMENT', 'a tail replace needs If-Match with the version it is based on');
    const replaceTail = c.var.store.replaceTail?.bind(c.var.store);
    if (replaceTail === undefined) throw new InvalidInputError('INVALID_ARGUMENT', 'this store has no replaceTail');
    const { afterSeq, messages, state } = c.req.valid('json');
    try {
      const result = await replaceTail(id, {
        afterSeq,
        messages,
        expectedVersion,
        ...(state === undefined ? {} : { state }),
      });
      c.var.changed(id);
      c.header('ETag', etagOf(result.version));
      return c.json(sent(replaceTailResultSchema, { ...result, messages: stored(result.messages) }), 200);
    } catch (error) {
      if (ChatstateError.hasCode(error, 'CONFLICT')) throw new PreconditionFailed(error);
      throw error;
    }
  });
}

/** A `CONFLICT` answered with 412: the version `If-Match` named is not the session's. */
export class PreconditionFailed extends ConflictError {
  /** The HTTP status this conflict is answered with. */
  readonly status = 412;

  constructor(cause: ChatstateError) {
    super(cause.message, { cause, details: cause.details });
  }
}
