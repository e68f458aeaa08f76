/**
 * Active memory's scoped values: a session's, a user's, an agent's (for a user) and the app's.
 * `PATCH` writes several keys atomically; a key set to `null` is deleted. `POST /values/batch`
 * writes any owner's keys with explicit deletes, so `null` can be stored as a value (what
 * `ValueStore.set` does, and what the remote store sends).
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ForbiddenError, InvalidInputError } from '../../errors.js';
import { defineField } from '../../internal/define-field.js';
import type { JsonValue } from '../../message/schema.js';
import type { ValueOwner } from '../../store/session-store-types.js';
import type { ServerEnv } from '../env.js';
import { sessionIdParam, valuesBatchSchema, valuesPatchSchema, valuesSchema } from '../schemas.js';
import { errors, json, jsonBody } from './common.js';

const owner = z.string().min(1).max(256);

/** The scopes and the path of each. */
const SCOPES = [
  { name: 'session', path: '/sessions/{id}/values', params: sessionIdParam },
  { name: 'user', path: '/values/users/{userId}', params: z.object({ userId: owner }) },
  {
    name: 'agent',
    path: '/values/agents/{agentId}/users/{userId}',
    params: z.object({ agentId: owner, userId: owner }),
  },
  { name: 'app', path: '/values/app', params: z.object({}) },
] as const;

function ownerOf(scope: (typeof SCOPES)[number]['name'], params: Record<string, string>): ValueOwner {
  switch (scope) {
    case 'session':
      return { scope, sessionId: params.id as string };
    case 'user':
      return { scope, userId: params.userId as string };
    case 'agent':
      return { scope, agentId: params.agentId as string, userId: params.userId as string };
    case 'app':
      return { scope };
  }
}

const batch = createRoute({
  method: 'post',
  path: '/values/batch',
  tags: ['values'],
  summary: "Set (null included) and delete keys of one owner's values, atomically",
  request: { body: jsonBody(valuesBatchSchema) },
  responses: { 204: { description: 'Written' }, ...errors(400, 401, 403, 404, 413, 503) },
});

/** Registers the value routes. */
export function valueRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(batch, async (c) => {
    const body = c.req.valid('json');
    if (body.owner.scope === 'app' && c.var.principal !== undefined && c.var.principal.role !== 'admin')
      throw new ForbiddenError('Only an admin key may change the app scope');
    const entries: Record<string, JsonValue | undefined> = {};
    // The parsed body itself (checked above, and by the store again): the record schema's copy
    // assigns its keys, and would lose a "__proto__" key.
    const set = ((await c.req.json<{ set?: Record<string, JsonValue> }>()).set ?? {}) as Record<string, JsonValue>;
    for (const key of Object.keys(set)) defineField(entries, key, set[key] as JsonValue);
    for (const key of body.delete ?? []) {
      if (Object.hasOwn(entries, key))
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          `Key ${JSON.stringify(key.slice(0, 80))} is both set and deleted`,
        );
      defineField(entries, key, undefined);
    }
    await c.var.store.values.set(body.owner as ValueOwner, entries);
    return c.body(null, 204);
  });

  for (const scope of SCOPES) {
    const read = createRoute({
      method: 'get',
      path: scope.path,
      tags: ['values'],
      summary: `Every value of the ${scope.name} scope`,
      request: { params: scope.params },
      responses: { 200: json(valuesSchema, 'The values, by key'), ...errors(400, 401, 403, 404, 503) },
    });
    const write = createRoute({
      method: 'patch',
      path: scope.path,
      tags: ['values'],
      summary: `Set or delete (null) values of the ${scope.name} scope, atomically`,
      request: {
        params: scope.params,
        body: jsonBody(valuesPatchSchema),
      },
      responses: { 200: json(valuesSchema, 'The values after the change'), ...errors(400, 401, 403, 404, 413, 503) },
    });
    app.openapi(read, async (c) => {
      const values = await c.var.store.values.getAll(ownerOf(scope.name, c.req.param() as Record<string, string>));
      return c.json(values, 200);
    });
    app.openapi(write, async (c) => {
      // The app scope is shared by the whole tenant: only its admins change it.
      if (scope.name === 'app' && c.var.principal !== undefined && c.var.principal.role !== 'admin')
        throw new ForbiddenError('Only an admin key may change the app scope');
      const target = ownerOf(scope.name, c.req.param() as Record<string, string>);
      const patch = c.req.valid('json') as Record<string, JsonValue>;
      const entries: Record<string, JsonValue | undefined> = {};
      for (const key of Object.keys(patch)) defineField(entries, key, patch[key] ?? undefined);
      await c.var.store.values.set(target, entries);
      return c.json(await c.var.store.values.getAll(target), 200);
    });
  }
}
