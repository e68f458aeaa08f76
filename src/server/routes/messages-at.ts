/**
 * `POST /messages/at`: the messages at up to 1,000 `{ sessionId, seq }` refs in one request
 * (`store.readMessagesAt`), so a remote client reads recall's hits in one round trip instead of one
 * request per hit. What the caller's view does not see reads as null, as a missing session does.
 * @module
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { readEachAt } from '../../store/message-refs.js';
import type { ServerEnv } from '../env.js';
import { messagesAtResultSchema, messagesAtSchema } from '../schemas.js';
import { errors, json, jsonBody, sent, stored } from './common.js';

const route = createRoute({
  method: 'post',
  path: '/messages/at',
  tags: ['messages'],
  summary: 'The messages at several (session, seq) refs, in one request; null where there is none',
  request: { body: jsonBody(messagesAtSchema) },
  responses: {
    200: json(messagesAtResultSchema, 'One entry per ref, in order'),
    ...errors(400, 401, 413, 503),
  },
});

/** Registers the batched message read. */
export function messagesAtRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(route, async (c) => {
    const { refs } = c.req.valid('json');
    const store = c.var.store;
    // A store without the batch call (a third party's) still answers, one range read per ref.
    const read =
      store.readMessagesAt === undefined
        ? await readEachAt(refs, (id, range) => store.readMessages(id, range))
        : await store.readMessagesAt(refs);
    const messages = read.map((message) => (message === undefined ? null : stored(message)));
    return c.json(sent(messagesAtResultSchema, { messages }), 200);
  });
}
