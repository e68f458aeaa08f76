/**
 * Sessions: list (filters, cursor paging), create, get, replace (a whole save), delete, and the
 * purge of expired sessions.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ChatstateError, ForbiddenError, InvalidInputError, NotFoundError } from '../../errors.js';
import { Session } from '../../session/session.js';
import { decodeCursor, encodeCursor } from '../../store/list-cursor.js';
import type { ListKinds } from '../../store/session-kind.js';
import type { ServerEnv } from '../env.js';
import { etagOf, expectedVersionOf } from '../etag.js';
import { filteredPage } from '../session-search.js';
import {
  createSessionSchema,
  listPageSchema,
  listQuerySchema,
  saveSessionSchema,
  sessionIdParam,
  sessionSchema,
} from '../schemas.js';
import { errors, json, jsonBody, sent, sessionBody, storedJson } from './common.js';
import { PreconditionFailed } from './messages.js';
import { withManager } from './with-manager.js';

/** Rows of a page when the query names no limit. */
const DEFAULT_PAGE = 50;

const list = createRoute({
  method: 'get',
  path: '/sessions',
  tags: ['sessions'],
  summary: 'List sessions, newest activity first (q: search ids, titles, users and agents)',
  request: { query: listQuerySchema },
  responses: { 200: json(listPageSchema, 'A page of sessions'), ...errors(400, 401, 503) },
});

const create = createRoute({
  method: 'post',
  path: '/sessions',
  tags: ['sessions'],
  summary: 'Create a session',
  request: { body: jsonBody(createSessionSchema) },
  responses: { 201: json(sessionSchema, 'The session as stored'), ...errors(400, 401, 403, 409, 413, 503) },
});

const read = createRoute({
  method: 'get',
  path: '/sessions/{id}',
  tags: ['sessions'],
  summary: 'A session with every message',
  request: { params: sessionIdParam },
  responses: { 200: json(sessionSchema, 'The session; its ETag is its version'), ...errors(400, 401, 404, 503) },
});

const remove = createRoute({
  method: 'delete',
  path: '/sessions/{id}',
  tags: ['sessions'],
  summary: 'Delete a session with its messages and session values (a fork also leaves its source’s metadata.forks)',
  request: { params: sessionIdParam },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 404, 503) },
});

const replace = createRoute({
  method: 'put',
  path: '/sessions/{id}',
  tags: ['sessions'],
  summary: 'Save a whole session: create it or replace it (compare-and-replace with If-Match)',
  description:
    'The body holds the session in its JSON format (its id must be the path\'s) and the options of the save. `If-Match: "N"` saves only over version N; `If-Match: "0"` only when there is no such session; without it the save replaces whatever is stored. Messages keep their sequence numbers; new ones continue after the highest ever given.',
  request: {
    params: sessionIdParam,
    headers: z.object({
      'if-match': z
        .string()
        .optional()
        .openapi({ description: 'The version the save expects, as an ETag ("0": none)' }),
    }),
    body: jsonBody(saveSessionSchema),
  },
  responses: {
    200: json(sessionSchema, 'The session as stored; its ETag is its version'),
    ...errors(400, 401, 403, 412, 413, 503),
  },
});

const purge = createRoute({
  method: 'post',
  path: '/purge-expired',
  tags: ['sessions'],
  summary:
    "Delete the sessions whose retention has ended, with their values (admin keys only, within the key's tenant)",
  responses: {
    200: json(z.object({ purged: z.number().int().min(0) }).openapi('PurgeResult'), 'How many sessions were deleted'),
    ...errors(401, 403, 413, 503),
  },
});

/** The `kinds` query parameter as `ListQuery.kinds`: a word, or a comma-separated list the store checks. */
function kindsOf(value: string): ListKinds {
  return value === 'conversations' || value === 'all' ? value : value.split(',');
}

/** Registers the session routes. */
export function sessionRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const limit = query.limit ?? DEFAULT_PAGE;
    const kinds = query.kinds === undefined ? {} : { kinds: kindsOf(query.kinds) };
    if (query.q !== undefined || query.updatedAfter !== undefined) {
      const { cursor, kinds: _kinds, ...filters } = query;
      const found = await filteredPage(c.var.store, {
        ...filters,
        ...kinds,
        limit,
        ...(cursor === undefined ? {} : { after: decodeCursor(cursor) }),
      });
      const page = {
        sessions: found.rows,
        ...(found.next === undefined ? {} : { nextCursor: encodeCursor(found.next) }),
      };
      return c.json(sent(listPageSchema, page), 200);
    }
    if (query.offset !== undefined || query.idPrefix !== undefined || query.expired !== undefined)
      if (query.q !== undefined || query.updatedAfter !== undefined)
        throw new InvalidInputError(
          'INVALID_ARGUMENT',
          'offset, idPrefix and expired do not combine with q or updatedAfter',
        );
    const rows = await c.var.store.list({
      limit,
      ...(query.cursor === undefined ? {} : { after: decodeCursor(query.cursor) }),
      ...(query.userId === undefined ? {} : { userId: query.userId }),
      ...(query.agentId === undefined ? {} : { agentId: query.agentId }),
      ...(query.offset === undefined ? {} : { offset: query.offset }),
      ...(query.idPrefix === undefined ? {} : { idPrefix: query.idPrefix }),
      ...(query.expired === undefined ? {} : { expired: query.expired === 'true' }),
      ...kinds,
    });
    const last = rows.at(-1);
    const page = {
      sessions: rows,
      ...(rows.length === limit && last !== undefined ? { nextCursor: encodeCursor(last) } : {}),
    };
    return c.json(sent(listPageSchema, page), 200);
  });

  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const { ttlMs, ...init } = body;
    const saved = await c.var.store.save(Session.create(init), {
      expectedVersion: 0,
      ...(ttlMs === undefined ? {} : { ttlMs }),
    });
    c.header('ETag', etagOf(saved.version));
    c.header('Location', `/sessions/${saved.id}`);
    return c.json(sent(sessionSchema, sessionBody(saved)), 201);
  });

  app.openapi(read, async (c) => {
    const { id } = c.req.valid('param');
    const json = await c.var.store.getJsonBytes(id);
    if (json === undefined) throw new NotFoundError(`No session ${id}`);
    // The top-level version comes before the messages (only ids and dates precede it).
    const version = /"version":(\d+)/.exec(
      Buffer.from(json.buffer, json.byteOffset, Math.min(1024, json.byteLength)).toString('latin1'),
    )?.[1];
    if (version !== undefined) c.header('ETag', etagOf(Number(version)));
    // The store's JSON bytes as they are: a large session is never parsed and serialized again here.
    return storedJson(c, sessionSchema, json, 200);
  });

  app.openapi(replace, async (c) => {
    const { id } = c.req.valid('param');
    const expectedVersion = expectedVersionOf(c.req.header('if-match'));
    const { session: json, ttlMs, keepUpdatedAt, erase } = c.req.valid('json');
    if (json.id !== id)
      throw new InvalidInputError('INVALID_ARGUMENT', `The body's session id ${JSON.stringify(json.id)} is not ${id}`);
    try {
      const saved = await c.var.store.save(Session.fromJSON(json), {
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        ...(ttlMs === undefined ? {} : { ttlMs }),
        ...(keepUpdatedAt === undefined ? {} : { keepUpdatedAt }),
        ...(erase === undefined ? {} : { erase }),
      });
      c.var.changed(id);
      c.header('ETag', etagOf(saved.version));
      return c.json(sent(sessionSchema, sessionBody(saved)), 200);
    } catch (error) {
      // As for an append: a stale If-Match is a failed precondition.
      if (expectedVersion !== undefined && ChatstateError.hasCode(error, 'CONFLICT'))
        throw new PreconditionFailed(error);
      throw error;
    }
  });

  app.openapi(purge, async (c) => {
    // Like forgetting a user, a tenant-wide act: not one of its users' keys.
    if (c.var.principal !== undefined && c.var.principal.role !== 'admin')
      throw new ForbiddenError('Only an admin key may purge expired sessions');
    const purged = await c.var.store.purgeExpired();
    return c.json({ purged }, 200);
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    // Through the manager: a deleted fork also leaves its source's metadata.forks.
    const deleted = await withManager(c.var.store, c.var.changed, (manager) => manager.delete(id));
    if (!deleted) throw new NotFoundError(`No session ${id}`);
    c.var.changed(id);
    return c.body(null, 204);
  });
}
