/**
 * Sessions: list (filters, cursor paging), create, get, delete.
 * @module
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NotFoundError } from '../../errors.js';
import { Session } from '../../session/session.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { ServerEnv } from '../env.js';
import { etagOf } from '../etag.js';
import { filteredPage } from '../session-search.js';
import { createSessionSchema, listPageSchema, listQuerySchema, sessionIdParam, sessionSchema } from '../schemas.js';
import { errors, json, jsonBody, sent, sessionBody, storedJson } from './common.js';
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

/** Registers the session routes. */
export function sessionRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const limit = query.limit ?? DEFAULT_PAGE;
    if (query.q !== undefined || query.updatedAfter !== undefined) {
      const { cursor, ...filters } = query;
      const found = await filteredPage(c.var.store, {
        ...filters,
        limit,
        ...(cursor === undefined ? {} : { after: decodeCursor(cursor) }),
      });
      const page = {
        sessions: found.rows,
        ...(found.next === undefined ? {} : { nextCursor: encodeCursor(found.next) }),
      };
      return c.json(sent(listPageSchema, page), 200);
    }
    const rows = await c.var.store.list({
      limit,
      ...(query.cursor === undefined ? {} : { after: decodeCursor(query.cursor) }),
      ...(query.userId === undefined ? {} : { userId: query.userId }),
      ...(query.agentId === undefined ? {} : { agentId: query.agentId }),
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

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    // Through the manager: a deleted fork also leaves its source's metadata.forks.
    const deleted = await withManager(c.var.store, c.var.changed, (manager) => manager.delete(id));
    if (!deleted) throw new NotFoundError(`No session ${id}`);
    c.var.changed(id);
    return c.body(null, 204);
  });
}
