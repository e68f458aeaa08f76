/**
 * The agents config, declaratively: which model each agent calls (a provider, a model name, and
 * the names of the environment variables that hold its base URL and API key — never the key
 * itself), its system prompt, and how its turns run. A JSON file holds exactly this; a JavaScript
 * module may also give live objects (a `ChatModel`, tools with `execute`, a system prompt
 * function, a compactor).
 * @module
 */
import { z } from 'zod';
import { MAX_VALUE_BYTES } from '../../active-memory/checks.js';
import type { JsonSchema } from '../../active-memory/working-memory-schema.js';
import { ID_PATTERN } from '../../ids.js';
import type { ChatModel } from '../../models/types.js';
import { COUNTERS, STRATEGY_NAMES } from '../../operations/compact.js';
import type { Agent, Tool, TurnCompactor } from '../../runtime/types.js';

/** The model providers a config can name: the library's provider formats that have an adapter. */
export const MODEL_PROVIDERS = ['openaiChat', 'openaiResponses', 'anthropic', 'aiSdk'] as const;

/** A model provider a config can name. */
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

const positive = z.number().int().positive();

/** An environment variable's name (only the name is in the file). */
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'expected an environment variable name, such as OPENAI_API_KEY');

/** A model: its provider and name, where its key and base URL come from, and defaults for every call. */
export const modelSpecSchema = z.strictObject({
  /** `openaiChat` and `openaiResponses` (any OpenAI-compatible base URL), `anthropic`, `aiSdk` (`ai` with `@ai-sdk/openai`). */
  provider: z.enum(MODEL_PROVIDERS),
  /** The model id sent to the provider, e.g. `gpt-4.1-mini`. */
  name: z.string().min(1).max(256),
  /** The variable holding the API key. @default OPENAI_API_KEY, or ANTHROPIC_API_KEY for anthropic */
  apiKeyEnv: envName.optional(),
  /** The variable holding the base URL. @default OPENAI_BASE_URL, or ANTHROPIC_BASE_URL (unset: the provider's own) */
  baseUrlEnv: envName.optional(),
  /** Output token limit of every call. @default the provider's; 4096 for anthropic, which requires one */
  maxOutputTokens: positive.optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Retries of a rate-limited or failed call by the client. @default 2 */
  maxRetries: z.number().int().min(0).max(10).optional(),
  /** Longest wait for one call. @default the client's (10 minutes) */
  timeoutMs: positive.optional(),
});

/** A model as a config file gives it. */
export type ModelSpec = z.infer<typeof modelSpecSchema>;

/** A compaction after each final answer: a built-in strategy by name (see `chatstate compact`) and its limits. */
export const compactionSpecSchema = z.strictObject({
  strategy: z.enum(STRATEGY_NAMES as [string, ...string[]]),
  maxMessages: positive.optional(),
  maxTokens: positive.optional(),
  targetTokens: positive.optional(),
  turns: positive.optional(),
  keepRecentTurns: z.number().int().nonnegative().optional(),
});

/** A compaction as a config file gives it. */
export type CompactionConfig = z.infer<typeof compactionSpecSchema>;

/** True for a `ChatModel` (a live model object, which only a module config can give). */
export function isChatModel(value: unknown): value is ChatModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ChatModel).complete === 'function' &&
    typeof (value as ChatModel).provider === 'string'
  );
}

const NEEDS_MODULE = 'a JavaScript config module (.mjs)';

/** The fields of an agent besides its model. */
const agentFields = {
  /** The agent's id: sessions are assigned to it, and a turn may name it (`agentId`). */
  id: z
    .string()
    .regex(ID_PATTERN, 'expected letters, digits, ".", "_" or "-" (at most 128, starting with a letter or digit)'),
  /** The system prompt, sent with every call and never stored. */
  system: z
    .custom<Agent['system']>(
      (value) => typeof value === 'string' || typeof value === 'function',
      `expected a string (a function of the session needs ${NEEDS_MODULE})`,
    )
    .optional(),
  /** Tools the model may call: each with a name, a JSON Schema of its arguments, and `execute`. */
  tools: z
    .array(
      z.custom<Tool>(
        (value) =>
          typeof value === 'object' && value !== null && typeof (value as Partial<Tool>).execute === 'function',
        `expected a tool with an execute function (tools need ${NEEDS_MODULE})`,
      ),
    )
    .optional(),
  /** Gives the model `recall` and `remember` over the user's active memory. */
  memoryTools: z.boolean().optional(),
  /**
   * Shows the model the user's working memory in the system prompt and gives it
   * `update_working_memory`: `true`, or `{ scope: "user" | "agent", maxBytes, schema }` (a JSON Schema).
   */
  workingMemory: z
    .union([
      z.boolean(),
      z.strictObject({
        scope: z.enum(['user', 'agent']).optional(),
        maxBytes: positive.max(MAX_VALUE_BYTES).optional(),
        schema: z
          .custom<JsonSchema>(
            (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
            'expected a JSON Schema object',
          )
          .optional(),
      }),
    ])
    .optional(),
  maxIterations: positive.max(100).optional(),
  toolConcurrency: positive.max(64).optional(),
  /** Tokens of the messages each request holds, or "auto" (the model's own window). @default "auto", cut in steps */
  contextWindow: z.union([positive, z.literal('auto')]).optional(),
  compaction: compactionSpecSchema.optional(),
  /** A compactor object (a module only), e.g. `compaction.summarize` with `modelSummarizer`. */
  compactor: z
    .custom<TurnCompactor>(
      (value) =>
        typeof value === 'object' && value !== null && typeof (value as Partial<TurnCompactor>).compact === 'function',
      `expected a Compactor or a Strategy (a compactor object needs ${NEEDS_MODULE}; a file names one with "compaction")`,
    )
    .optional(),
  counter: z.enum(Object.keys(COUNTERS) as [string, ...string[]]).optional(),
  continueAtBoundary: z.boolean().optional(),
};

/** An agent whose model is given declaratively. */
export const agentSpecSchema = z.strictObject({ ...agentFields, model: modelSpecSchema });

/** An agent whose model is a `ChatModel` object (a module only). */
export const liveAgentSchema = z.strictObject({
  ...agentFields,
  model: z.custom<ChatModel>(isChatModel, 'expected a ChatModel'),
});

/** An agent of a config: its model declared, or (in a module) a `ChatModel`. */
export type AgentConfig = Omit<z.infer<typeof agentSpecSchema>, 'model'> & { readonly model: ModelSpec | ChatModel };

/** The config's top level; each agent is checked on its own (by the schema its model calls for). */
export const agentsConfigSchema = z.strictObject({
  /** The file's JSON Schema, for editors; not read. */
  $schema: z.string().optional(),
  /** The agent of sessions that have none, when a turn names none. @default the only agent, when there is one */
  defaultAgentId: z.string().min(1).max(256).optional(),
  agents: z.array(z.unknown()).min(1, 'expected at least one agent'),
});

/** What a config file (or the default export of a config module) holds. */
export interface AgentsConfig {
  readonly defaultAgentId?: string;
  readonly agents: readonly AgentConfig[];
}
