/**
 * `POST /sessions/{id}/turns`: one turn of an agent — the model is called with the session's
 * history (running the tools it asks for until it answers), and the turn's messages are stored in
 * one atomic write, compacted after the answer. The session is created by its first turn. Input
 * messages with ids make the turn idempotent: a retry is answered from the store, without calling
 * the model. A failed turn stores nothing; a client that disconnects aborts the model call.
 * @module
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { CompactionResult } from '../../compaction/types.js';
import { ForbiddenError, UnsupportedError } from '../../errors.js';
import { KeyedLock } from '../../internal/keyed-lock.js';
import { messageInputSchema } from '../../message/schema.js';
import type { TurnResult } from '../../runtime/types.js';
import type { AgentSet } from '../agents/server-agent.js';
import { ChangeHub } from '../change-hub.js';
import type { ServerEnv } from '../env.js';
import { etagOf } from '../etag.js';
import { compactionModifiedSchema, compactionRemovedSchema, messageSchema, sessionIdParam } from '../schemas.js';
import { errors, json, jsonBody, sent, stored } from './common.js';

/** Messages one turn's input may have. */
const MAX_INPUT_MESSAGES = 100;

const turnBody = z
  .strictObject({
    input: z.union([z.string().min(1), z.array(messageInputSchema).min(1).max(MAX_INPUT_MESSAGES)]).openapi({
      description:
        'User text, or messages; messages with ids make a retry idempotent (answered from the store, the model not called again)',
    }),
    agentId: z.string().min(1).max(256).optional().openapi({
      description:
        "The agent of this turn (the session's is reassigned); default: the session's, else the server's default",
    }),
    userId: z.string().min(1).max(256).optional().openapi({
      description: "The session's user: a new session is created for this user; an existing one must be this user's",
    }),
  })
  .openapi('Turn');

const usageSchema = z
  .object({
    inputTokens: z.number().int(),
    outputTokens: z.number().int().optional(),
    cachedInputTokens: z.number().int().optional().openapi({ description: 'Input tokens read from the prompt cache' }),
    cacheWriteInputTokens: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Input tokens written to the prompt cache (Anthropic bills them above input)' }),
  })
  .openapi('Usage');

const turnCompactionSchema = z
  .object({
    compacted: z.boolean(),
    strategy: z.string(),
    removed: compactionRemovedSchema,
    modified: compactionModifiedSchema,
    added: z.number().int(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    reachedTarget: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .openapi('TurnCompaction');

const turnResultSchema = z
  .object({
    sessionId: z.string().openapi({ description: 'The session the turn ran in (a successor, when it was continued)' }),
    version: z.number().int().openapi({ description: 'The session’s version after the turn (also its ETag)' }),
    reply: messageSchema,
    messages: z
      .array(messageSchema)
      .openapi({ description: 'Every message the turn stored: input, tool calls and results, reply' }),
    usage: usageSchema,
    iterations: z.number().int().openapi({ description: 'Model calls made (0: a retry answered from the store)' }),
    compaction: turnCompactionSchema.optional(),
    continuedFrom: z.string().optional(),
    continuedTo: z.string().optional(),
  })
  .openapi('TurnResult');

const route = createRoute({
  method: 'post',
  path: '/sessions/{id}/turns',
  tags: ['turns'],
  summary: "Run one turn of the session's agent: the model answers (running its tools), the turn is stored",
  request: { params: sessionIdParam, body: jsonBody(turnBody) },
  responses: {
    200: json(turnResultSchema, 'The turn; the ETag is the session’s new version'),
    201: json(turnResultSchema, 'The turn, which created the session (Location names it)'),
    ...errors(400, 401, 403, 409, 413, 422, 429, 501, 502, 503),
  },
});

/** The compaction report of a turn, without the compacted history. */
function compactionOf(result: CompactionResult) {
  const { messages: _messages, added, error, ...report } = result;
  return {
    ...report,
    added: added.length,
    ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
  };
}

/** The answer body of a turn. */
function answerOf(result: TurnResult) {
  return {
    sessionId: result.session.id,
    version: result.session.version,
    reply: stored(result.reply),
    messages: stored(result.messages),
    usage: result.usage,
    iterations: result.iterations,
    ...(result.compaction === undefined ? {} : { compaction: compactionOf(result.compaction) }),
    ...(result.continuedFrom === undefined ? {} : { continuedFrom: result.continuedFrom }),
    ...(result.continuedTo === undefined ? {} : { continuedTo: result.continuedTo }),
  };
}

/** Options of the turns route. */
export interface TurnRouteOptions {
  /** The agents; without them a turn answers 501. */
  readonly agents: AgentSet | undefined;
  /** Aborted when the server's grace period is over: every turn in flight aborts (storing nothing). */
  readonly abort: AbortSignal;
}

/** Registers the turns route. */
export function turnRoutes(app: OpenAPIHono<ServerEnv>, options: TurnRouteOptions): void {
  // Turns of one session on this server run one after another: a retry sent while its first try
  // is still running waits and is answered from the store, instead of failing with CONFLICT.
  // Across servers, the commit's version check refuses the later turn (409).
  const turns = new KeyedLock();
  app.openapi(route, async (c) => {
    const agents = options.agents;
    if (agents === undefined)
      throw new UnsupportedError(
        'This server runs no agents: start it with an agents config (chatstate serve --agents FILE)',
        {
          store: 'server',
          capability: 'turns',
        },
      );
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const principal = c.var.principal;
    // As for values and recall: a key bound to a user is refused another user's session outright.
    if (principal?.userId !== undefined && body.userId !== undefined && body.userId !== principal.userId)
      throw new ForbiddenError("This key may only run turns of its own user's sessions");
    const userId = body.userId ?? principal?.userId;
    // The request's tenant view: every read and write of the turn (its memory tools' included) stays inside it.
    const store = c.var.store;
    const signal = AbortSignal.any([c.req.raw.signal, options.abort]);
    const { result, created } = await turns.run(ChangeHub.key(principal?.tenant, id), async () => {
      // Absent in the view: the turn creates the session. A key bound to a user that names another
      // user's session sees none either (the view hides it), so its turn runs as a new session's on
      // the caller's own input alone and the commit is refused (403): nothing of the other user's
      // is read or written, though the model is called once.
      const before = await store.summary(id);
      const agent = agents.agentFor(body.agentId, before?.agentId, id);
      const conversation = agents.conversation(store, agent);
      try {
        const result = await conversation.send(id, body.input, {
          signal,
          ...(userId === undefined ? {} : { userId }),
          ...(body.agentId === undefined ? {} : { agentId: body.agentId }),
        });
        return { result, created: before === undefined };
      } finally {
        await conversation.close();
      }
    });
    if (result.iterations > 0) {
      c.var.changed(id);
      if (result.session.id !== id) c.var.changed(result.session.id);
    }
    c.header('ETag', etagOf(result.session.version));
    if (created) c.header('Location', `/sessions/${result.session.id}`);
    const answer = sent(turnResultSchema, answerOf(result));
    // Each status its own literal: the route types a 201 and a 200, not a `200 | 201`.
    return created ? c.json(answer, 201) : c.json(answer, 200);
  });
}
