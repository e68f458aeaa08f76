/**
 * Sessions as MCP resources: `chatstate://sessions/{id}` is a session as JSON (what `chatstate
 * export` and `GET /sessions/{id}` give). The listing offers the newest conversations of the
 * scope (chatstate's own sessions left out); `list_sessions` pages through all of them.
 * @module
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { assertValidId } from '../ids.js';
import type { McpScope } from './context.js';
import { listSessions } from './internal-sessions.js';

/** The URI scheme and path of a session resource. */
export const SESSION_URI_PREFIX = 'chatstate://sessions/';
/** Sessions the resource listing offers: the newest ones. */
const LISTED_SESSIONS = 100;
/** JSON-RPC code of a resource that does not exist (the MCP specification's). */
const RESOURCE_NOT_FOUND = -32002;

/** The resource URI of session `id`. */
export function sessionUri(id: string): string {
  return `${SESSION_URI_PREFIX}${encodeURIComponent(id)}`;
}

/** Registers the session resources on `server`. */
export function registerSessionResources(server: McpServer, scope: McpScope): void {
  server.registerResource(
    'session',
    new ResourceTemplate(`${SESSION_URI_PREFIX}{id}`, {
      list: async () => {
        const page = await listSessions(scope.store, {}, LISTED_SESSIONS, undefined, false);
        return {
          resources: page.rows.map((row) => ({
            uri: sessionUri(row.id),
            name: row.id,
            ...(row.title === undefined ? {} : { title: row.title }),
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      description: 'A conversation: the session as JSON, every message with its metadata',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const raw = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      let id: string;
      try {
        id = assertValidId(decodeURIComponent(raw ?? ''), 'session id');
      } catch {
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.href} names no session`);
      }
      const json = await scope.store.getJson(id);
      if (json === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: no session ${id}`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: json }] };
    },
  );
}
