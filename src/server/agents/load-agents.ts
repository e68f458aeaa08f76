/**
 * `loadAgents`: the agents of `chatstate serve --agents FILE`. A `.json` file declares them (see
 * `AgentsConfig`); a JavaScript module (`.mjs`, `.js`, `.cjs`) default-exports the same shape (or
 * just the array of agents) and may also give live objects: tools with `execute` functions, a
 * `ChatModel`, a system prompt function, a compactor. Every mistake is an `INVALID_ARGUMENT`
 * naming the file and the JSON path (`agents[0].model.provider`) before the server starts.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { ChatstateError, InvalidInputError, NotFoundError, errorMessage } from '../../errors.js';
import { jsonErrorOffset, positionOf } from '../../json-position.js';
import type { ChatModel } from '../../models/types.js';
import { compactorOf, counterNamed } from '../../operations/compact.js';
import { buildModel, type Environment } from './build-model.js';
import {
  agentSpecSchema,
  agentsConfigSchema,
  isChatModel,
  liveAgentSchema,
  type AgentConfig,
  type ModelSpec,
} from './config-schema.js';
import { AgentSet, type ServerAgent } from './server-agent.js';

/** Options of `loadAgents`. */
export interface LoadAgentsOptions {
  /** Where the API keys and base URLs the config names are read. @default process.env */
  readonly env?: Environment;
}

/** The agents of a config, ready for `startServer` / `createServerApp`. */
export interface LoadedAgents {
  readonly agents: readonly ServerAgent[];
  readonly defaultAgentId?: string;
}

/** The extensions of a JavaScript config module. */
const MODULE_EXTENSIONS: ReadonlySet<string> = new Set(['.mjs', '.js', '.cjs']);

/** A path of a value in the config, as `agents[0].model.provider`. */
function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(part))
      text += text === '' ? part : `.${part}`;
    else text += `[${JSON.stringify(String(part))}]`;
  }
  return text === '' ? '(root)' : text;
}

/** The error for a problem at `path` of config `file`. */
function problemAt(
  file: string,
  path: ReadonlyArray<PropertyKey>,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
  cause?: unknown,
): InvalidInputError {
  const where = jsonPath(path);
  return new InvalidInputError('INVALID_ARGUMENT', `The agents file ${file}: ${where}: ${message}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { file, path: where, ...details },
  });
}

/** `value` parsed by `schema`, or the error of its first issue under `base`. */
function parsed<T>(schema: z.ZodType<T>, value: unknown, file: string, base: ReadonlyArray<PropertyKey>): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw problemAt(file, [...base, ...(issue?.path ?? [])], issue?.message ?? 'invalid');
}

/** The config of a JSON file: `NOT_FOUND` when it cannot be read, `INVALID_ARGUMENT` with line:column when it is not JSON. */
async function readJsonConfig(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new NotFoundError(
      `Cannot read the agents file ${path}: ${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`,
      {
        cause: error,
        details: { file: path },
      },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const offset = jsonErrorOffset(text) ?? 0;
    const { line, column } = positionOf(text, offset);
    const what =
      offset >= text.length
        ? 'unexpected end of input'
        : `unexpected ${JSON.stringify(text.slice(offset, offset + 1))}`;
    throw new InvalidInputError('INVALID_ARGUMENT', `The agents file ${path}:${line}:${column}: not JSON (${what})`, {
      cause: error,
      details: { file: path, line, column },
    });
  }
}

/** The default export of a config module (an array of agents stands for `{ agents }`). */
async function importConfig(path: string): Promise<unknown> {
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' && errorMessage(error).includes(resolve(path)))
      throw new NotFoundError(`Cannot read the agents file ${path}: no such file`, {
        cause: error,
        details: { file: path },
      });
    // The module's own code failed (a syntax error, a throw, a missing import): its message says where.
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `The agents module ${path} failed to load: ${errorMessage(error)}`,
      {
        cause: error,
        details: { file: path },
      },
    );
  }
  if (loaded.default === undefined)
    throw problemAt(path, [], 'the module has no default export: export default { agents: [...] }');
  return Array.isArray(loaded.default) ? { agents: loaded.default } : loaded.default;
}

/** The agent at `agents[index]` of `file` as a `ServerAgent`, its model built from `env`. */
async function agentOf(entry: unknown, index: number, file: string, env: Environment): Promise<ServerAgent> {
  const base = ['agents', index];
  const live = typeof entry === 'object' && entry !== null && isChatModel((entry as { model?: unknown }).model);
  const config: AgentConfig = live
    ? parsed(liveAgentSchema, entry, file, base)
    : parsed(agentSpecSchema, entry, file, base);
  const { model: given, compaction, compactor: liveCompactor, counter: counterName, ...agent } = config;
  if (compaction !== undefined && liveCompactor !== undefined)
    throw problemAt(file, [...base, 'compaction'], 'give "compaction" or "compactor", not both');
  const model: ChatModel = isChatModel(given)
    ? given
    : await buildModel(given as ModelSpec, env, `agent "${config.id}" of ${file}`, (field, message, details) =>
        problemAt(file, [...base, 'model', ...(field === undefined ? [] : [field])], message, details),
      );
  let compactor = liveCompactor;
  if (compaction !== undefined) {
    try {
      compactor = compactorOf(compaction);
    } catch (error) {
      throw problemAt(file, [...base, 'compaction'], errorMessage(error), {}, error);
    }
  }
  return {
    ...agent,
    model,
    ...(compactor === undefined ? {} : { compactor }),
    ...(counterName === undefined ? {} : { counter: counterNamed(counterName) }),
  };
}

/**
 * The agents of config `path` (`.json`, or a module: `.mjs`, `.js`, `.cjs`), each model's client
 * made with the key and base URL from `env`. Throws `NOT_FOUND` for a file it cannot read,
 * `MISSING_DEPENDENCY` for a model whose client package is not installed, and `INVALID_ARGUMENT`
 * naming the file and the path of the problem for anything else.
 */
export async function loadAgents(path: string, options: LoadAgentsOptions = {}): Promise<LoadedAgents> {
  const env = options.env ?? process.env;
  const extension = extname(path).toLowerCase();
  let raw: unknown;
  if (extension === '.json') raw = await readJsonConfig(path);
  else if (MODULE_EXTENSIONS.has(extension)) raw = await importConfig(path);
  else
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `The agents file ${path}: expected a .json file or a JavaScript module (.mjs, .js, .cjs)`,
      { details: { file: path } },
    );
  const top = parsed(agentsConfigSchema, raw, path, []);
  const agents: ServerAgent[] = [];
  for (const [index, entry] of top.agents.entries()) agents.push(await agentOf(entry, index, path, env));
  try {
    AgentSet.of(agents, top.defaultAgentId);
  } catch (error) {
    const index = ChatstateError.isInstance(error) ? error.details['index'] : undefined;
    const at =
      typeof index === 'number'
        ? ['agents', index]
        : /default agent/.test(errorMessage(error))
          ? ['defaultAgentId']
          : ['agents'];
    throw problemAt(path, at, errorMessage(error), {}, error);
  }
  return { agents, ...(top.defaultAgentId === undefined ? {} : { defaultAgentId: top.defaultAgentId }) };
}
