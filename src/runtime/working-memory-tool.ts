/**
 * Working memory in a turn: the system-prompt section that shows the model its working memory of
 * the user, and the `update_working_memory` tool it changes it with (a JSON merge patch, applied
 * to the newest version however many processes write it at once).
 * @module
 */
import type { HandleWorkingMemoryOptions } from '../active-memory/session-handle.js';
import type { WorkingMemoryVersion } from '../active-memory/working-memory.js';
import { checkSchema, type JsonSchema } from '../active-memory/working-memory-schema.js';
import { InvalidInputError } from '../errors.js';
import type { JsonObject } from '../message/schema.js';
import type { Tool } from './types.js';

/** The name of the tool. */
export const UPDATE_WORKING_MEMORY = 'update_working_memory';

// JSON Schemas of agents' working memories, made once per options object (zod's conversion walks the schema).
const schemas = new WeakMap<HandleWorkingMemoryOptions, JsonSchema | undefined>();

/** The JSON Schema of an agent's working memory, if it has one. */
export function workingMemoryJsonSchema(options: HandleWorkingMemoryOptions): JsonSchema | undefined {
  if (!schemas.has(options))
    schemas.set(options, options.schema === undefined ? undefined : checkSchema(options.schema).jsonSchema);
  return schemas.get(options);
}

/** The system-prompt section that shows `current` to the model (and the schema it must keep to). */
export function workingMemorySection(current: WorkingMemoryVersion, jsonSchema: JsonSchema | undefined): string {
  const lines = [
    '## Working memory',
    `What you keep about this user across conversations (version ${current.version}). Keep it up to date with the \`${UPDATE_WORKING_MEMORY}\` tool when you learn something that belongs here; do not repeat it to the user.`,
    '<working_memory>',
    JSON.stringify(current.document, null, 2),
    '</working_memory>',
  ];
  if (jsonSchema !== undefined) lines.push('Its JSON Schema:', JSON.stringify(jsonSchema));
  return lines.join('\n');
}

/** The `update_working_memory` tool, over each call's `context.memory`. */
export function workingMemoryTool(): Tool {
  return {
    name: UPDATE_WORKING_MEMORY,
    // Its result repeats the working memory, which the system prompt shows.
    recall: false,
    description:
      'Changes your working memory about this user (shown in the system prompt) with a JSON merge patch (RFC 7396): the fields you give are set, nested objects are merged, a field set to null is removed, arrays are replaced whole. Returns the new version.',
    parameters: {
      type: 'object',
      properties: {
        patch: { type: 'object', description: 'The JSON merge patch, e.g. {"name": "Ada", "oldField": null}.' },
      },
      required: ['patch'],
    },
    async execute(args, context) {
      const patch =
        typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as JsonObject).patch : undefined;
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
        throw new InvalidInputError('INVALID_ARGUMENT', '"patch" must be a JSON object (a merge patch)');
      const memory = context.memory;
      const by = memory.agentId === undefined ? 'model' : `agent:${memory.agentId}`;
      const next = await memory.updateWorkingMemory(patch as JsonObject, { by });
      return { version: next.version, document: next.document };
    },
  };
}
