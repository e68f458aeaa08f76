/**
 * Shapes of the read-only views of a session that the web session browser shows (and any client
 * may read): its statistics, usage and cost, and its token timeline.
 * @module
 */
import { z } from '@hono/zod-openapi';
import type { Category } from '../message/schema.js';
import { MAX_TIMELINE_POINTS } from '../session/timeline.js';
import { forkedFromSchema } from './schemas.js';

const count = z.number().int().nonnegative();
// Spelled out (not built from CATEGORIES) so the type knows the keys; `satisfies` keeps it to every category.
const byCategory = z.object({
  system: z.number(),
  context: z.number(),
  dialog: z.number(),
  tool_output: z.number(),
} satisfies Record<Category, z.ZodNumber>);

const usageCounts = z.object({
  calls: count,
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number().openapi({ description: "Input tokens read from the provider's prompt cache" }),
  cacheWriteInputTokens: z.number().openapi({ description: "Input tokens written to the provider's prompt cache" }),
});

/** Answer of `GET /sessions/{id}/stats`. */
export const sessionStatsSchema = z
  .object({
    id: z.string(),
    version: z.number().int(),
    stats: z
      .object({
        messages: count,
        byRole: z.record(z.string(), count),
        byCategory: z.record(z.string(), count),
        tokens: z.object({ total: z.number(), byCategory: z.record(z.string(), z.number()), counter: z.string() }),
        toolCalls: z.object({ total: count, byName: z.record(z.string(), count) }),
        toolResults: count,
      })
      .openapi({ description: 'Session.stats: messages by role and category, tokens by category, tool calls by name' }),
    usage: usageCounts
      .extend({
        byModel: z.record(z.string(), usageCounts),
        cachedShare: z.number().min(0).max(1).optional().openapi({
          description:
            'cachedInputTokens / inputTokens: the share of input the prompt cache served (absent without input)',
        }),
      })
      .openapi({ description: 'Measured usage of the model calls whose replies the session holds' }),
    lastUsage: z.record(z.string(), z.unknown()).optional(),
    cost: z
      .object({
        currency: z.string(),
        total: z.number(),
        byModel: z.record(z.string(), z.number()),
        unpriced: z.array(z.string()),
      })
      .optional()
      .openapi({ description: 'What the usage cost, when the server has prices' }),
    chain: z
      .object({
        ids: z.array(z.string()),
        position: count,
        missing: z.array(z.string()),
      })
      .openapi({ description: 'The continuation chain, root first, and where this session stands in it' }),
    forkedFrom: forkedFromSchema,
    compactions: count.openapi({ description: 'Entries of the compaction log' }),
  })
  .openapi('SessionStats');

const point = z.object({
  x: z.number().openapi({ description: 'Where the point stands: a sequence number (compaction points a half after)' }),
  kind: z.enum(['turn', 'before-compaction', 'after-compaction']),
  turn: count,
  index: count,
  seq: z.number().int().positive().optional(),
  messages: count,
  tokens: byCategory,
  added: z.number(),
  toolCalls: count,
  toolTokens: z.number(),
  usage: z
    .object({ calls: count, inputTokens: z.number(), cachedInputTokens: z.number() })
    .optional()
    .openapi({
      description:
        'Measured usage of the model calls whose replies the turn holds (cachedInputTokens / inputTokens is its cached share); ' +
        'on a downsampled point, summed over its whole bucket of turns. Absent when none has usage, and on compaction points',
    }),
});

const mark = z.object({
  kind: z.enum(['compaction', 'summary', 'cut']),
  x: z.number(),
  turn: count,
  index: z.number().int().min(-1),
  strategy: z.string().optional(),
  at: z.string().optional(),
  tokensBefore: z.number().optional(),
  tokensAfter: z.number().optional(),
  removedMessages: count.optional(),
});

/** Answer of `GET /sessions/{id}/timeline`. */
export const timelineSchema = z
  .object({
    id: z.string(),
    version: z.number().int(),
    counter: z.string(),
    contextWindow: z.number().int().positive().optional(),
    messageCount: count,
    turnCount: count,
    points: z.array(point),
    downsampled: z.boolean(),
    marks: z.array(mark),
    toolHeavy: z.array(
      z.object({ x: z.number(), turn: count, index: count, toolCalls: count, toolTokens: z.number() }),
    ),
    seqRuns: z
      .array(z.tuple([z.number().int().positive(), z.number().int().positive()]).openapi({ minItems: 2, maxItems: 2 }))
      .openapi({ description: 'The history’s sequence numbers as runs [firstSeq, count], oldest first' }),
  })
  .openapi('TokenTimeline');

/** Query of `GET /sessions/{id}/timeline`. */
export const timelineQuerySchema = z.object({
  points: z.coerce.number().int().min(1).max(MAX_TIMELINE_POINTS).optional().openapi({
    description: 'Most points (turns); more turns are downsampled, each bucket keeping its peak (and its summed usage)',
  }),
});
