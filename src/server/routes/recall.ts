/**
 * `POST /recall`: active memory's recall over one user's sessions and knowledge — the ranking an
 * agent gets from `handle.recall` (the store's full-text search, or an in-process index).
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { MAX_QUERY_CHARS, MAX_RECALL_K } from '../../active-memory/checks.js';
import { knowledgeSessionId } from '../../active-memory/knowledge.js';
import { createSessionHandle } from '../../active-memory/session-handle.js';
import { ForbiddenError } from '../../errors.js';
import type { ServerEnv } from '../env.js';
import { errors, json, jsonBody, sent } from './common.js';

const hit = z
  .object({
    sessionId: z.string(),
    messageId: z.string(),
    seq: z.number().int(),
    score: z.number(),
    text: z.string(),
    source: z.enum(['message', 'knowledge']),
    timestamp: z.string(),
    validFrom: z.string().optional(),
    supersedes: z.string().optional(),
    supersededBy: z.string().optional(),
    tags: z.array(z.string()).optional(),
  })
  .openapi('RecallHit');

const answer = z.object({ hits: z.array(hit) });

const route = createRoute({
  method: 'post',
  path: '/recall',
  tags: ['memory'],
  summary: "The messages of a user's sessions (and knowledge) that best match a query, best first",
  request: {
    body: jsonBody(
      z
        .strictObject({
          userId: z.string().min(1).max(256),
          query: z.string().min(1).max(MAX_QUERY_CHARS),
          k: z.number().int().min(1).max(MAX_RECALL_K).optional(),
          threshold: z.number().min(0).max(1).optional(),
          /** Answer as of this time (ISO-8601): messages written by then, facts valid then. */
          asOf: z.string().min(1).max(64).optional(),
          /** Also return facts a later fact superseded. */
          includeSuperseded: z.boolean().optional(),
        })
        .openapi('Recall'),
    ),
  },
  responses: { 200: json(answer, 'The hits'), ...errors(400, 401, 403, 413, 503) },
});

/** Registers recall. */
export function recallRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(route, async (c) => {
    const { userId, query, k, threshold, asOf, includeSuperseded } = c.req.valid('json');
    // As for values: a key bound to a user is refused another user's memory (not shown an empty one).
    const bound = c.var.principal?.userId;
    if (bound !== undefined && bound !== userId)
      throw new ForbiddenError("This key may only recall its own user's memory");
    // A handle on the user's knowledge session: recall covers all of the user's sessions from any of them.
    const handle = createSessionHandle({ store: c.var.store, sessionId: knowledgeSessionId(userId), userId });
    const hits = await handle.recall(query, {
      ...(k === undefined ? {} : { k }),
      ...(threshold === undefined ? {} : { threshold }),
      ...(asOf === undefined ? {} : { asOf }),
      ...(includeSuperseded === undefined ? {} : { includeSuperseded }),
    });
    return c.json(sent(answer, { hits }), 200);
  });
}
