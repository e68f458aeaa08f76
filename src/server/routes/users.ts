/**
 * A user's routes: forgetting a user (`DELETE /users/{userId}`), an admin's request that removes
 * everything the tenant's store holds of one of its users and answers the receipt
 * (`SessionStore.forgetUser`); and the marks of the user's live sessions (`GET
 * /users/{userId}/marks`, `SessionStore.marks`) in one request, which recall's index over a remote
 * store polls to notice changes.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ForbiddenError } from '../../errors.js';
import { marksByListing } from '../../store/marks.js';
import type { ServerEnv } from '../env.js';
import { sessionMarksSchema } from '../schemas.js';
import { errors, json, sent } from './common.js';

const count = z.number().int().min(0);

/** The receipt of a forget, as the API answers it. */
export const forgetReceiptSchema = z
  .object({
    userId: z.string(),
    at: z.string().openapi({ description: 'When the removal finished (ISO-8601)' }),
    removed: z.object({
      sessions: count,
      messages: count,
      values: count.openapi({ description: 'User- and agent-scope values' }),
      sessionValues: count.openapi({ description: 'Values of the removed sessions (stored vectors among them)' }),
      vectors: count.openapi({ description: 'Stored embedding chunks among sessionValues' }),
      textRows: count.openapi({ description: 'Rows of the full-text index' }),
      files: count.openapi({ description: 'Files removed from disk (file store)' }),
      cached: count.openapi({ description: 'Copies dropped from process memory' }),
      keys: count.openapi({ description: "The user's own encryption keys destroyed (per-user keys)" }),
    }),
  })
  .openapi('ForgetReceipt');

const forget = createRoute({
  method: 'delete',
  path: '/users/{userId}',
  tags: ['users'],
  summary: 'Forget a user: remove every session, value, index row and file of theirs (admin keys only)',
  description:
    'Idempotent: forgetting a user again (or one with nothing stored) answers a receipt of zeros. A request cut short can be sent again to finish.',
  request: { params: z.object({ userId: z.string().min(1).max(256) }) },
  responses: { 200: json(forgetReceiptSchema, 'What was removed, by kind, and when'), ...errors(400, 401, 403, 503) },
});

const marks = createRoute({
  method: 'get',
  path: '/users/{userId}/marks',
  tags: ['users'],
  summary: "The marks of a user's live sessions (id, version, counts), in no order",
  description:
    'What GET /sessions?userId=…&kinds=all tells of each session that changes with a write, without titles, in one request. A key bound to a user may ask only for its own.',
  request: { params: z.object({ userId: z.string().min(1).max(256) }) },
  responses: { 200: json(sessionMarksSchema, "The user's session marks"), ...errors(400, 401, 403, 503) },
});

/** Registers the user routes. */
export function userRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(forget, async (c) => {
    // Removing a user is the tenant's act, not one of its users' keys.
    if (c.var.principal !== undefined && c.var.principal.role !== 'admin')
      throw new ForbiddenError('Only an admin key may forget a user');
    const receipt = await c.var.store.forgetUser(c.req.valid('param').userId);
    return c.json(receipt, 200);
  });

  app.openapi(marks, async (c) => {
    const { userId } = c.req.valid('param');
    // As for recall: a key bound to a user is refused another user's sessions (not shown none).
    const bound = c.var.principal?.userId;
    if (bound !== undefined && bound !== userId)
      throw new ForbiddenError("This key may only read its own user's marks");
    const store = c.var.store;
    // A store without the call (a third party's) still answers, from its listing.
    const found =
      store.marks === undefined
        ? await marksByListing((query) => store.list(query), userId)
        : await store.marks(userId);
    return c.json(sent(sessionMarksSchema, { marks: found }), 200);
  });
}
