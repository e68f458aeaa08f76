/**
 * `GET /sessions/{id}/thread`: a LangGraph thread's conversation (or checkpoint log) as its graph
 * sees it at its newest checkpoint, or at the one asked for, with its checkpoints and branches and
 * the conversation's messages that checkpoint does not hold. The web session browser opens a
 * thread's page on it. Any other session answers without a thread.
 * @module
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { readThreadView } from '../../adapters/langgraph/thread-view.js';
import type { ServerEnv } from '../env.js';
import { messageTokens } from '../message-tokens.js';
import { sessionIdParam } from '../schemas.js';
import { DEFAULT_THREAD_LIMIT, sessionThreadSchema, threadQuerySchema } from '../thread-schemas.js';
import { errors, json, sent, stored } from './common.js';

const thread = createRoute({
  method: 'get',
  path: '/sessions/{id}/thread',
  tags: ['sessions'],
  summary:
    'A LangGraph thread at its newest checkpoint (what getState holds) or at `checkpoint`, with its checkpoints, branches and the messages it does not hold',
  request: { params: sessionIdParam, query: threadQuerySchema },
  responses: {
    200: json(sessionThreadSchema, 'The thread; no `thread` when the session is no LangGraph thread’s'),
    ...errors(400, 401, 404, 503),
  },
});

/** Registers the thread route. */
export function threadRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(thread, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const view = await readThreadView(c.var.store, id, {
      tail: query.limit ?? DEFAULT_THREAD_LIMIT,
      ...(query.checkpoint === undefined ? {} : { checkpointId: query.checkpoint }),
      ...(query.checkpoints === undefined ? {} : { checkpoints: query.checkpoints }),
      ...(query.elsewhere === undefined ? {} : { elsewhere: query.elsewhere }),
    });
    if (view === undefined) return c.json(sent(sessionThreadSchema, { id }), 200);
    const body = {
      id,
      thread: {
        ...view,
        messages: stored(view.messages),
        ...messageTokens(view.messages),
        elsewhere: {
          count: view.elsewhere.count,
          messages: view.elsewhere.messages.map((entry) => ({ ...entry, message: stored(entry.message) })),
        },
      },
    };
    return c.json(sent(sessionThreadSchema, body), 200);
  });
}
