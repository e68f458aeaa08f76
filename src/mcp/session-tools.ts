/**
 * Conversation history over MCP: list the sessions the scope sees (newest activity first, a page
 * at a time) and read a page of a session's messages (newest page first, by sequence number).
 * @module
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { messagePage } from '../active-memory/message-page.js';
import { NotFoundError } from '../errors.js';
import { assertValidId } from '../ids.js';
import { decodeCursor, encodeCursor } from '../store/list-cursor.js';
import type { SessionSummary } from '../store/session-store-types.js';
import type { McpScope } from './context.js';
import { listSessions } from './internal-sessions.js';
import { guarded, jsonResult } from './results.js';

/** Most rows of one `list_sessions` page. */
const MAX_PAGE_ROWS = 100;
/** Most messages of one `read_messages` page. */
const MAX_PAGE_MESSAGES = 200;

/** A listing row as a tool shows it. */
function rowOf(row: SessionSummary): Record<string, unknown> {
  return {
    id: row.id,
    ...(row.title === undefined ? {} : { title: row.title }),
    ...(row.userId === undefined ? {} : { userId: row.userId }),
    ...(row.agentId === undefined ? {} : { agentId: row.agentId }),
    ...(row.kind === undefined ? {} : { kind: row.kind }),
    messageCount: row.messageCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Registers list_sessions and read_messages on `server`. */
export function registerSessionTools(server: McpServer, scope: McpScope): void {
  server.registerTool(
    'list_sessions',
    {
      description: 'List conversations (sessions), newest activity first, a page at a time',
      inputSchema: {
        limit: z.number().int().min(1).max(MAX_PAGE_ROWS).optional().describe('Most sessions (default 20)'),
        cursor: z.string().min(1).max(1024).optional().describe('nextCursor of the previous page'),
        userId: z.string().min(1).max(256).optional().describe("Only this user's sessions"),
        includeInternal: z
          .boolean()
          .optional()
          .describe(
            "Also list chatstate's own sessions (knowledge, working memory, knowledge graph, LangGraph checkpoint logs, …)",
          ),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ limit, cursor, userId, includeInternal }) => {
      const page = await listSessions(
        scope.store,
        userId === undefined ? {} : { userId },
        limit ?? 20,
        cursor === undefined ? undefined : decodeCursor(cursor),
        includeInternal === true,
      );
      return jsonResult({
        sessions: page.rows.map(rowOf),
        ...(page.next === undefined ? {} : { nextCursor: encodeCursor(page.next) }),
      });
    }),
  );
  server.registerTool(
    'read_messages',
    {
      description:
        "A page of a conversation's messages, oldest first; the first page is the newest, nextBefore gives the one before it",
      inputSchema: {
        sessionId: z.string().min(1).max(128).describe('The session'),
        limit: z.number().int().min(1).max(MAX_PAGE_MESSAGES).optional().describe('Most messages (default 50)'),
        before: z.number().int().min(1).optional().describe('nextBefore of the previous page: only older messages'),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ sessionId, limit, before }) => {
      const id = assertValidId(sessionId, 'session id');
      // A session that is not there (or not the scope's) is NOT_FOUND, not an empty page.
      if ((await scope.store.summary(id)) === undefined) throw new NotFoundError(`No session ${id}`);
      const page = await messagePage(scope.store, id, limit ?? 50, before);
      return jsonResult({
        sessionId: id,
        messages: page.messages.map((message) => JSON.parse(JSON.stringify(message)) as unknown),
        ...(page.nextBefore === undefined ? {} : { nextBefore: page.nextBefore }),
      });
    }),
  );
}
