/**
 * `POST /mcp`: chatstate's MCP server over Streamable HTTP (stateless, JSON answers), behind the
 * same authentication as every route: the key's tenant view of the store, and its user. A key
 * bound to a user serves that user's memory; another key names the user with `?user=` (default
 * `default`), as the REST routes take a user id. GET and DELETE answer 405: this server keeps no
 * MCP sessions and sends no stream of its own. The MCP SDK is loaded at the first request.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { ForbiddenError, InvalidInputError } from '../../errors.js';
import { assertOwnerId } from '../../ids.js';
import type * as McpHttp from '../../mcp/http.js';
import type { ServerEnv } from '../env.js';
import { errorSchema } from '../schemas.js';
import { errors, jsonBody } from './common.js';

/** The user an MCP request serves when its key is bound to none and it names none. */
export const DEFAULT_MCP_USER = 'default';

/** One JSON-RPC message (the MCP SDK checks the rest). */
const rpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') }).openapi('JsonRpcMessage');
const rpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .openapi('JsonRpcError');

const route = createRoute({
  method: 'post',
  path: '/mcp',
  tags: ['memory'],
  summary:
    'MCP (Streamable HTTP, stateless): the knowledge graph, recall, facts, working memory, values and sessions of one user',
  description:
    'JSON-RPC messages of the Model Context Protocol; each answer is JSON (no event stream, no MCP session). The user is the key’s when it is bound to one, else `?user=` (default `default`). GET and DELETE answer 405.',
  request: {
    query: z.object({ user: z.string().optional() }),
    body: jsonBody(z.union([rpcMessage, z.array(rpcMessage).min(1)])),
  },
  responses: {
    200: {
      description: 'The JSON-RPC responses',
      content: { 'application/json': { schema: z.union([rpcMessage, z.array(rpcMessage)]) } },
    },
    202: { description: 'Notifications or responses only: accepted' },
    400: {
      description: 'Not a JSON-RPC message the server reads (a JSON-RPC error), or an invalid user id (INVALID_ID)',
      content: { 'application/json': { schema: z.union([errorSchema, rpcError]) } },
    },
    ...errors(401, 403, 413),
  },
});

let loading: Promise<typeof McpHttp> | undefined;

/** The MCP module, or `MISSING_DEPENDENCY` naming the package it needs. */
function loadMcp(): Promise<typeof McpHttp> {
  loading ??= import('../../mcp/http.js').catch((error: unknown) => {
    loading = undefined;
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND')
      throw new InvalidInputError(
        'MISSING_DEPENDENCY',
        '/mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk',
        {
          cause: error,
          details: { packages: ['@modelcontextprotocol/sdk'] },
        },
      );
    throw error;
  });
  return loading;
}

/** Answers every method but POST with 405, as a stateless MCP server does (registered as middleware: no other route). */
export function refuseOtherMcpMethods(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (c.req.method === 'POST') return next();
    return c.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed.' } }, 405, {
      Allow: 'POST',
    });
  };
}

/** Registers `POST /mcp`; `maxBodyBytes` is the server's body limit. */
export function mcpRoutes(app: OpenAPIHono<ServerEnv>, maxBodyBytes: number): void {
  app.openapi(route, async (c) => {
    const principal = c.var.principal;
    const named = c.req.valid('query').user;
    // As for the REST routes: a key bound to a user is refused another user's memory.
    if (principal?.userId !== undefined && named !== undefined && named !== principal.userId)
      throw new ForbiddenError("This key may only reach its own user's memory");
    const userId = assertOwnerId(principal?.userId ?? named ?? DEFAULT_MCP_USER, 'userId');
    const mcp = await loadMcp();
    // The body was read (and checked as JSON) by the route; the transport gets it parsed. The
    // answers are always JSON, so a client that did not list event streams in Accept reads them too.
    const headers = new Headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' });
    for (const name of ['mcp-protocol-version', 'mcp-session-id']) {
      const value = c.req.header(name);
      if (value !== undefined) headers.set(name, value);
    }
    const request = new Request(c.req.url, { method: 'POST', headers });
    return mcp.handleMcpRequest(
      request,
      {
        store: c.var.store,
        userId,
        by: principal === undefined ? 'mcp' : `key:${principal.keyId}`,
        changed: c.var.changed,
      },
      { maxBodyBytes, parsedBody: c.req.valid('json') },
    );
  });
}
