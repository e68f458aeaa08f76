/**
 * `memoryTools`: active memory as tools the model can call during a turn — `recall` searches past
 * conversations and stored knowledge of the user, `remember` stores a piece of knowledge for later.
 * @module
 */
import type { SessionHandle } from '../active-memory/types.js';
import { InvalidInputError } from '../errors.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { Tool, ToolContext } from './types.js';

/** Most results `recall` returns to the model. */
const MAX_RECALL_RESULTS = 20;

function argument(args: JsonValue, name: string): JsonValue | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new InvalidInputError('INVALID_ARGUMENT', 'the arguments must be a JSON object');
  const record = args as JsonObject;
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

function text(args: JsonValue, name: string): string {
  const value = argument(args, name);
  if (typeof value !== 'string' || value.trim().length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `"${name}" must be a non-empty string`);
  return value;
}

/**
 * The `recall` and `remember` tools over `handle`, or over each call's `context.memory` when no
 * handle is given (what `Conversation` does for an agent with `memoryTools: true`). Bad arguments
 * and memory errors reach the model as tool errors, as any tool's do.
 */
export function memoryTools(handle?: SessionHandle): Tool[] {
  const memoryOf = (context: ToolContext): SessionHandle => handle ?? context.memory;
  const recall: Tool = {
    name: 'recall',
    // Its results repeat earlier messages and facts: recalled again, they would echo (`not-recalled.ts`).
    recall: false,
    description:
      "Searches this user's past conversations and the knowledge stored with `remember`. Use it when the user refers to something said or decided before that is not in the conversation above.",
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for, in a few words.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_RECALL_RESULTS, description: 'Most results. Default 5.' },
      },
      required: ['query'],
    },
    async execute(args, context) {
      const query = text(args, 'query');
      const limit = argument(args, 'limit');
      if (
        limit !== undefined &&
        (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_RECALL_RESULTS)
      ) {
        throw new InvalidInputError('INVALID_ARGUMENT', `"limit" must be an integer from 1 to ${MAX_RECALL_RESULTS}`);
      }
      const hits = await memoryOf(context).recall(query, limit === undefined ? {} : { k: limit });
      if (hits.length === 0) return 'Nothing found.';
      // What the model needs to use and cite a memory (a fact's id, to correct it with `remember`);
      // scores are rounded to keep the result short.
      return hits.map((hit) => ({
        text: hit.text,
        source: hit.source,
        ...(hit.source === 'knowledge' ? { id: hit.messageId } : {}),
        sessionId: hit.sessionId,
        timestamp: hit.timestamp,
        score: Math.round(hit.score * 1000) / 1000,
      }));
    },
  };
  const remember: Tool = {
    name: 'remember',
    // The fact is in the user's knowledge: a copy in the tool result would outlive its forget.
    recall: false,
    description:
      "Stores a fact about the user, a decision or a preference so that it can be recalled in later conversations. Write it as one self-contained sentence. When it corrects or replaces a fact found with `recall`, pass that fact's id as `supersedes`: the old fact is then no longer recalled.",
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The fact to remember, as one self-contained sentence.' },
        supersedes: {
          type: 'string',
          description: 'The id of the fact this one corrects or replaces (from `recall`).',
        },
      },
      required: ['text'],
    },
    async execute(args, context) {
      const supersedes = argument(args, 'supersedes');
      if (supersedes !== undefined && typeof supersedes !== 'string')
        throw new InvalidInputError('INVALID_ARGUMENT', '"supersedes" must be the id of a fact');
      const hit = await memoryOf(context).remember(text(args, 'text'), supersedes === undefined ? {} : { supersedes });
      return { remembered: hit.text, id: hit.messageId, ...(supersedes === undefined ? {} : { supersedes }) };
    },
  };
  return [recall, remember];
}
