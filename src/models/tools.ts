/**
 * Tool checks shared by every `ChatModel` adapter: the name rule, the default parameters schema,
 * and one provider-neutral tool choice each adapter maps to its own wire. Checking here, before
 * the HTTP call, turns a bad tool list into a typed `INVALID_ARGUMENT` instead of a provider 400.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { JsonObject, ProviderName } from '../message/schema.js';
import type { ToolChoice, ToolSpec } from './types.js';

/** The tool name rule every provider shares: letters, digits, `_` and `-`, 1 to 64 characters. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The parameters schema of a tool that declares none: an object with no properties. */
export function defaultToolParameters(): JsonObject {
  // A fresh object per call: adapters put it into request bodies the client may mutate.
  return { type: 'object', properties: {} };
}

/** A checked tool: `parameters` is always present (the default schema when the spec had none). */
export interface CheckedTool {
  readonly name: string;
  readonly description?: string;
  readonly parameters: JsonObject;
}

/** A checked tool choice, in one shape every adapter maps to its provider's wire. */
export type CheckedToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

/** What `checkTools` returns: the tools to send and the choice (absent when the provider default applies). */
export interface CheckedTools {
  readonly tools: readonly CheckedTool[];
  readonly choice?: CheckedToolChoice;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(provider: ProviderName, why: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `${provider}: ${why}`);
}

function checkTool(tool: unknown, index: number, provider: ProviderName): CheckedTool {
  if (!isPlainObject(tool)) throw invalid(provider, `tools[${index}] must be an object`);
  const { name, description, parameters } = tool;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : typeof name;
    throw invalid(provider, `tools[${index}].name ${shown} must match ${String(TOOL_NAME_PATTERN)}`);
  }
  if (description !== undefined && typeof description !== 'string')
    throw invalid(provider, `tool "${name}": description must be a string`);
  if (parameters !== undefined) {
    // Every provider wants the arguments to be one JSON object, so the schema's root must be one.
    if (!isPlainObject(parameters)) throw invalid(provider, `tool "${name}": parameters must be a JSON Schema object`);
    if (parameters.type !== 'object')
      throw invalid(provider, `tool "${name}": parameters must have type "object" at the root`);
  }
  return {
    name,
    ...(description === undefined ? {} : { description }),
    parameters: parameters === undefined ? defaultToolParameters() : (parameters as JsonObject),
  };
}

function checkChoice(
  choice: unknown,
  names: ReadonlySet<string>,
  provider: ProviderName,
): CheckedToolChoice | undefined {
  if (choice === 'auto' || choice === 'none') {
    // Without tools both are the provider's default; OpenAI rejects `tool_choice` with no tools.
    return names.size === 0 ? undefined : { type: choice };
  }
  if (choice === 'required') {
    if (names.size === 0) throw invalid(provider, 'toolChoice "required" needs at least one tool');
    return { type: 'required' };
  }
  if (isPlainObject(choice) && typeof choice.name === 'string') {
    if (!names.has(choice.name))
      throw invalid(provider, `toolChoice names the tool "${choice.name.slice(0, 80)}", which is not in tools`);
    return { type: 'tool', name: choice.name };
  }
  throw invalid(provider, 'toolChoice must be "auto", "none", "required" or { name }');
}

/**
 * Checks a request's tools and tool choice before any HTTP call: every name matches
 * `TOOL_NAME_PATTERN` and is unique, `parameters` (when given) is an object schema, and a named or
 * `required` choice refers to tools that exist. Throws `InvalidInputError` (`INVALID_ARGUMENT`).
 */
export function checkTools(
  tools: readonly ToolSpec[] | undefined,
  toolChoice: ToolChoice | undefined,
  provider: ProviderName,
): CheckedTools {
  if (tools !== undefined && !Array.isArray(tools)) throw invalid(provider, 'tools must be an array');
  const checked = (tools ?? []).map((tool, index) => checkTool(tool, index, provider));
  const names = new Set<string>();
  for (const tool of checked) {
    if (names.has(tool.name)) throw invalid(provider, `two tools are named "${tool.name}"`);
    names.add(tool.name);
  }
  const choice = toolChoice === undefined ? undefined : checkChoice(toolChoice, names, provider);
  return { tools: checked, ...(choice === undefined ? {} : { choice }) };
}

/** A checked choice on a wire whose `auto`, `none` and `required` are those strings; `named` writes a forced tool. */
export function toolChoiceWith<Named>(
  choice: CheckedToolChoice,
  named: (name: string) => Named,
): 'auto' | 'none' | 'required' | Named {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return named(choice.name);
    default: {
      const unreachable: never = choice;
      throw new Error(`unknown tool choice ${JSON.stringify(unreachable)}`);
    }
  }
}
