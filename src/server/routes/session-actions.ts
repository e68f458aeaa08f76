/**
 * What a client asks of a whole session: compact it now (or see what a compaction would do),
 * fork it at a message, continue it in a successor. Fork and continue run through a
 * `SessionManager` over the request's store, so they follow the library's rules exactly.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { COUNTERS, STRATEGY_NAMES, compactStored, compactorOf, counterNamed } from '../../operations/compact.js';
import type { ServerEnv } from '../env.js';
import { etagOf } from '../etag.js';
import { compactionModifiedSchema, compactionRemovedSchema, sessionIdParam, sessionSchema } from '../schemas.js';
import { errors, json, jsonBody, sent, sessionBody } from './common.js';
import { withManager } from './with-manager.js';

const limit = z.number().int().positive();

const compactBody = z
  .strictObject({
    strategy: z.enum(STRATEGY_NAMES as [string, ...string[]]),
    maxMessages: limit.optional(),
    maxTokens: limit.optional(),
    targetTokens: limit.optional(),
    turns: limit.optional(),
    keepRecentTurns: z.number().int().nonnegative().optional(),
    counter: z.enum(Object.keys(COUNTERS) as [string, ...string[]]).optional(),
    dryRun: z.boolean().optional(),
  })
  .openapi('Compact');

const compactReport = z
  .object({
    sessionId: z.string(),
    compacted: z.boolean(),
    written: z.boolean(),
    strategy: z.string(),
    removed: compactionRemovedSchema,
    modified: compactionModifiedSchema,
    reachedTarget: z.boolean(),
    messagesBefore: z.number().int(),
    messagesAfter: z.number().int(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    added: z.number().int(),
    version: z.number().int(),
  })
  .openapi('CompactionReport');

const compact = createRoute({
  method: 'post',
  path: '/sessions/{id}/compact',
  tags: ['sessions'],
  summary: 'Compact the session now with a built-in strategy (dryRun: only the report)',
  request: {
    params: sessionIdParam,
    body: jsonBody(compactBody),
  },
  responses: { 200: json(compactReport, 'The compaction report'), ...errors(400, 401, 404, 409, 413, 503) },
});

/** Says whether the fork's source lists it in `metadata.forks`: `false` when that failed (the fork is stored). */
export const FORK_RECORDED_HEADER = 'Chatstate-Fork-Recorded';

const fork = createRoute({
  method: 'post',
  path: '/sessions/{id}/fork',
  tags: ['sessions'],
  summary: 'A new session with the history up to a message, listed in the source’s metadata.forks',
  request: {
    params: sessionIdParam,
    body: jsonBody(z.strictObject({ atMessageId: z.string().min(1), id: z.string().optional() }).openapi('Fork')),
  },
  responses: {
    201: {
      ...json(sessionSchema, 'The fork'),
      headers: {
        [FORK_RECORDED_HEADER]: {
          description:
            '`true` when the source lists the fork in its metadata.forks; `false` when recording it failed after retries (the fork is stored all the same)',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      },
    },
    ...errors(400, 401, 404, 409, 413, 503),
  },
});

const continuation = createRoute({
  method: 'post',
  path: '/sessions/{id}/continue',
  tags: ['sessions'],
  summary: 'Continue the session in a successor (its system and context messages, linked both ways)',
  request: { params: sessionIdParam },
  responses: { 201: json(sessionSchema, 'The successor'), ...errors(400, 401, 404, 409, 413, 503) },
});

/** Registers compact, fork and continue. */
export function sessionActionRoutes(app: OpenAPIHono<ServerEnv>): void {
  app.openapi(compact, async (c) => {
    const { id } = c.req.valid('param');
    const { counter, dryRun, ...spec } = c.req.valid('json');
    const report = await compactStored(c.var.store, id, compactorOf(spec), {
      ...(counter === undefined ? {} : { counter: counterNamed(counter) }),
      ...(dryRun === true ? { dryRun } : {}),
    });
    if (report.written) c.var.changed(id);
    c.header('ETag', etagOf(report.version));
    return c.json(sent(compactReport, report), 200);
  });

  app.openapi(fork, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const result = await withManager(c.var.store, c.var.changed, (manager) =>
      manager.fork(id, { atMessageId: body.atMessageId, ...(body.id === undefined ? {} : { id: body.id }) }),
    );
    const forked = result.session;
    if (result.recorded) c.var.changed(id);
    c.header('ETag', etagOf(forked.version));
    c.header('Location', `/sessions/${forked.id}`);
    c.header(FORK_RECORDED_HEADER, String(result.recorded));
    return c.json(sent(sessionSchema, sessionBody(forked)), 201);
  });

  app.openapi(continuation, async (c) => {
    const { id } = c.req.valid('param');
    const successor = await withManager(c.var.store, c.var.changed, (manager) => manager.continueSession(id));
    c.var.changed(id);
    c.header('ETag', etagOf(successor.version));
    c.header('Location', `/sessions/${successor.id}`);
    return c.json(sent(sessionSchema, sessionBody(successor)), 201);
  });
}
