/**
 * A user's working memory (or an agent's, with `agentId`): read the newest version, apply a JSON
 * merge patch (compare-and-set: concurrent patches are all applied; `expectedVersion` refuses a
 * stale one with 409), and page through every version with who wrote it.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { MAX_HISTORY_LIMIT } from '../../active-memory/checks.js';
import { WorkingMemory } from '../../active-memory/working-memory.js';
import { ForbiddenError } from '../../errors.js';
import type { JsonObject } from '../../message/schema.js';
import type { ServerEnv } from '../env.js';
import { errors, json, jsonBody, sent } from './common.js';

const owner = z.string().min(1).max(256);
const params = z.object({ userId: owner });
const agentQuery = z.object({ agentId: owner.optional() });

const versionSchema = z
  .object({
    version: z.number().int().min(0),
    document: z.record(z.string(), z.unknown()),
    by: z.string().optional(),
    at: z.string().optional(),
    patch: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('WorkingMemoryVersion');

const versionPageSchema = z.object({ versions: z.array(versionSchema), nextBefore: z.number().int().optional() });

const read = createRoute({
  method: 'get',
  path: '/working-memory/users/{userId}',
  tags: ['memory'],
  summary: "The newest version of a user's working memory (of one agent's, with agentId); version 0 before any",
  request: { params, query: agentQuery },
  responses: { 200: json(versionSchema, 'The newest version'), ...errors(400, 401, 403, 503) },
});

const patch = createRoute({
  method: 'patch',
  path: '/working-memory/users/{userId}',
  tags: ['memory'],
  summary: "Apply a JSON merge patch (RFC 7396) to a user's working memory; concurrent patches are all kept",
  request: {
    params,
    body: jsonBody(
      z
        .strictObject({
          patch: z.record(z.string(), z.unknown()),
          agentId: owner.optional(),
          /** Apply only to this version, else 409 (no retry onto a newer one). */
          expectedVersion: z.number().int().min(0).optional(),
          /** Who makes the change (default: the key's id). */
          by: z.string().min(1).max(256).optional(),
        })
        .openapi('WorkingMemoryPatch'),
    ),
  },
  responses: { 200: json(versionSchema, 'The version the patch made'), ...errors(400, 401, 403, 409, 413, 503) },
});

const versions = createRoute({
  method: 'get',
  path: '/working-memory/users/{userId}/versions',
  tags: ['memory'],
  summary: "Every version of a user's working memory, oldest first, newest page first",
  request: {
    params,
    query: agentQuery.extend({
      limit: z.coerce.number().int().min(1).max(MAX_HISTORY_LIMIT).optional(),
      before: z.coerce.number().int().min(1).optional(),
    }),
  },
  responses: {
    200: json(versionPageSchema, 'A page of versions; nextBefore pages to older ones'),
    ...errors(400, 401, 403, 503),
  },
});

/** Registers the working memory routes. */
export function workingMemoryRoutes(app: OpenAPIHono<ServerEnv>): void {
  const memoryOf = (
    principal: ServerEnv['Variables']['principal'],
    store: ServerEnv['Variables']['store'],
    userId: string,
    agentId: string | undefined,
  ): WorkingMemory => {
    // As for values and recall: a key bound to a user is refused another user's memory.
    if (principal?.userId !== undefined && principal.userId !== userId)
      throw new ForbiddenError("This key may only reach its own user's working memory");
    return new WorkingMemory({ store, userId, ...(agentId === undefined ? {} : { agentId }) });
  };
  app.openapi(read, async (c) => {
    const { agentId } = c.req.valid('query');
    const memory = memoryOf(c.var.principal, c.var.store, c.req.valid('param').userId, agentId);
    return c.json(sent(versionSchema, await memory.read()), 200);
  });
  app.openapi(patch, async (c) => {
    const body = c.req.valid('json');
    const memory = memoryOf(c.var.principal, c.var.store, c.req.valid('param').userId, body.agentId);
    const principal = c.var.principal;
    const next = await memory.update(body.patch as JsonObject, {
      by: body.by ?? (principal === undefined ? 'api' : `key:${principal.keyId}`),
      ...(body.expectedVersion === undefined ? {} : { expectedVersion: body.expectedVersion }),
    });
    c.var.changed(memory.sessionId);
    return c.json(sent(versionSchema, next), 200);
  });
  app.openapi(versions, async (c) => {
    const { agentId, limit, before } = c.req.valid('query');
    const memory = memoryOf(c.var.principal, c.var.store, c.req.valid('param').userId, agentId);
    const page = await memory.history({
      ...(limit === undefined ? {} : { limit }),
      ...(before === undefined ? {} : { before }),
    });
    return c.json(sent(versionPageSchema, page), 200);
  });
}
