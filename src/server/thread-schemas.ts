/**
 * Shapes of `GET /sessions/{id}/thread`: a LangGraph thread (kept by `chatstate/langgraph`) at one
 * checkpoint, as its graph sees it, with its checkpoints and the conversation's other messages.
 * @module
 */
import { z } from '@hono/zod-openapi';
import { messageTokensFields } from './message-tokens.js';
import { messageSchema } from './schemas.js';

const count = z.number().int().nonnegative();

/** Most messages, checkpoints and messages elsewhere one answer gives. */
export const MAX_THREAD_LIMIT = 10_000;
/** Messages of the checkpoint an answer gives unless `limit` says (the newest). */
export const DEFAULT_THREAD_LIMIT = 2_000;

const checkpointSchema = z
  .object({
    id: z.string(),
    parent: z.string().optional(),
    ts: z.string().openapi({ description: 'When LangGraph made it (ISO-8601)' }),
    source: z.string().optional().openapi({ description: 'LangGraph’s metadata.source: input, loop, update, fork' }),
    step: z.number().int().optional().openapi({ description: 'LangGraph’s metadata.step' }),
    messageCount: count.openapi({ description: 'Messages of its messages channel' }),
    current: z.boolean().openapi({ description: 'It is the checkpoint shown' }),
    onPath: z.boolean().openapi({ description: 'It is the checkpoint shown or one of its ancestors' }),
    tip: z.boolean().openapi({ description: 'No checkpoint listed has it as parent: the end of a branch' }),
  })
  .openapi('ThreadCheckpoint');

const elsewhereSchema = z.object({
  message: messageSchema,
  kind: z.enum(['replaced', 'copy', 'other']).openapi({
    description:
      'replaced: the checkpoint holds another message with its LangChain id (an edit); copy: it holds the same message stored again; other: on another branch, or removed',
  }),
  now: z.number().int().positive().optional().openapi({
    description: 'The seq of the message of the checkpoint that has its LangChain id (replaced, copy)',
  }),
});

const threadSchema = z
  .object({
    threadId: z.string(),
    namespace: z.string().openapi({ description: 'The checkpoint namespace ("" for the root graph)' }),
    conversation: z.string().openapi({ description: 'The conversation session: every message the thread ever had' }),
    log: z.string().openapi({ description: 'The checkpoint-log session' }),
    channel: z.string().optional().openapi({ description: 'The channel whose messages are shown' }),
    checkpoint: checkpointSchema.optional().openapi({ description: 'The checkpoint shown; absent before the first' }),
    latest: z.string().optional().openapi({ description: 'The newest checkpoint (what getState reads)' }),
    path: z.array(z.string()).openapi({ description: 'The ancestors of the checkpoint shown, its parent first' }),
    pathComplete: z.boolean().openapi({ description: 'path reaches the thread’s first checkpoint' }),
    messages: z.array(messageSchema).openapi({
      description: 'The messages of the checkpoint, in order (what getState holds): the newest `limit` of them',
    }),
    ...messageTokensFields,
    messageCount: count.openapi({ description: 'Messages of the checkpoint, all of them' }),
    logCount: count.openapi({ description: 'Messages the conversation holds' }),
    checkpoints: z.array(checkpointSchema).openapi({ description: 'The newest checkpoints, newest first' }),
    moreCheckpoints: z.boolean(),
    elsewhere: z
      .object({ count, messages: z.array(elsewhereSchema) })
      .openapi({ description: 'The conversation’s messages the checkpoint does not hold: the newest, oldest first' }),
  })
  .openapi('LangGraphThread');

/** Answer of `GET /sessions/{id}/thread`. */
export const sessionThreadSchema = z
  .object({
    id: z.string(),
    thread: threadSchema
      .optional()
      .openapi({ description: 'Absent when the session is not a LangGraph thread’s conversation or checkpoint log' }),
  })
  .openapi('SessionThread');

/** Query of `GET /sessions/{id}/thread`. */
export const threadQuerySchema = z.object({
  checkpoint: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: 'Show this checkpoint instead of the thread’s newest' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_THREAD_LIMIT)
    .optional()
    .openapi({ description: `The newest N messages of the checkpoint (default ${DEFAULT_THREAD_LIMIT})` }),
  checkpoints: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_THREAD_LIMIT)
    .optional()
    .openapi({ description: 'Checkpoints listed, newest first (default 20)' }),
  elsewhere: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_THREAD_LIMIT)
    .optional()
    .openapi({ description: 'Messages the checkpoint does not hold, listed: the newest (default 50)' }),
});
