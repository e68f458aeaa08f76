/**
 * A user's knowledge (facts stored with `remember`): add a fact, possibly one that supersedes an
 * older fact, and forget one — its text deleted from the store, not hidden. `POST /recall` finds them.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { MAX_VALUE_BYTES } from '../../active-memory/checks.js';
import { knowledgeSessionId } from '../../active-memory/knowledge.js';
import { rememberedFact } from '../../active-memory/knowledge-lifecycle.js';
import { createSessionHandle } from '../../active-memory/session-handle.js';
import type { SessionHandle } from '../../active-memory/types.js';
import { ForbiddenError } from '../../errors.js';
import type { ServerEnv } from '../env.js';
import { errors, json, jsonBody } from './common.js';

const owner = z.string().min(1).max(256);
const params = z.object({ userId: owner });

const factSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    timestamp: z.string(),
    validFrom: z.string().optional(),
    supersedes: z.string().optional(),
    tags: z.array(z.string()).optional(),
  })
  .openapi('Fact');

const remember = createRoute({
  method: 'post',
  path: '/knowledge/users/{userId}',
  tags: ['memory'],
  summary: 'Remember a fact about a user; with supersedes, it corrects an older fact, which recall then leaves out',
  request: {
    params,
    body: jsonBody(
      z
        .strictObject({
          text: z.string().min(1).max(MAX_VALUE_BYTES),
          supersedes: z.string().min(1).max(256).optional(),
          validFrom: z.string().min(1).max(64).optional(),
          tags: z.array(z.string().min(1).max(64)).max(20).optional(),
        })
        .openapi('Remember'),
    ),
  },
  responses: { 201: json(factSchema, 'The fact as stored'), ...errors(400, 401, 403, 404, 413, 503) },
});

const forget = createRoute({
  method: 'delete',
  path: '/knowledge/users/{userId}/facts/{factId}',
  tags: ['memory'],
  summary: "Forget a fact: its text is deleted from the user's knowledge, not hidden",
  request: { params: params.extend({ factId: z.string().min(1).max(256) }) },
  responses: { 204: { description: 'Forgotten' }, ...errors(400, 401, 403, 404, 409, 503) },
});

/** Registers the knowledge routes. */
export function knowledgeRoutes(app: OpenAPIHono<ServerEnv>): void {
  const handleOf = (
    principal: ServerEnv['Variables']['principal'],
    store: ServerEnv['Variables']['store'],
    userId: string,
  ): SessionHandle => {
    // As for recall: a key bound to a user is refused another user's knowledge.
    if (principal?.userId !== undefined && principal.userId !== userId)
      throw new ForbiddenError("This key may only reach its own user's knowledge");
    return createSessionHandle({ store, sessionId: knowledgeSessionId(userId), userId });
  };
  app.openapi(remember, async (c) => {
    const { text, supersedes, validFrom, tags } = c.req.valid('json');
    const hit = await handleOf(c.var.principal, c.var.store, c.req.valid('param').userId).remember(text, {
      ...(supersedes === undefined ? {} : { supersedes }),
      ...(validFrom === undefined ? {} : { validFrom }),
      ...(tags === undefined ? {} : { tags }),
    });
    c.var.changed(hit.sessionId);
    return c.json(rememberedFact(hit), 201);
  });
  app.openapi(forget, async (c) => {
    const { userId, factId } = c.req.valid('param');
    const handle = handleOf(c.var.principal, c.var.store, userId);
    await handle.forget(factId);
    c.var.changed(handle.sessionId);
    return c.body(null, 204);
  });
}
