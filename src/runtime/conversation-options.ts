/**
 * Options of `Conversation` and their validation: every mistake is an `INVALID_ARGUMENT` when the
 * conversation is made, not a surprise in the middle of a turn.
 * @module
 */
import { MAX_VALUE_BYTES } from '../active-memory/checks.js';
import type { HandleWorkingMemoryOptions } from '../active-memory/session-handle.js';
import type { Embed } from '../active-memory/types.js';
import { InvalidInputError } from '../errors.js';
import { SessionManager } from '../manager/index.js';
import { checkTools } from '../models/tools.js';
import type { SessionStore } from '../store/session-store-types.js';
import type { TokenCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';
import { resolveContextPolicy, type ContextWindowOption } from './context-options.js';
import { memoryTools } from './memory-tools.js';
import { workingMemoryJsonSchema, workingMemoryTool } from './working-memory-tool.js';
import type { ContextPolicy } from './request-fit.js';
import { defaultMemory, type MemoryFactory } from './turn-memory.js';
import type { Agent, Tool, TurnCompactor } from './types.js';
import { toolProblem } from './tool-loop.js';

/** Options of `new Conversation`. */
export interface ConversationOptions {
  /** Where sessions are kept (a `SessionManager` with auto-save off is made over it); give this or `manager`. */
  readonly store?: SessionStore;
  /** A manager whose cache and store the conversation uses, and through which its turns end (`runTurn`); give this or `store`. */
  readonly manager?: SessionManager;
  /** The agents sessions can be assigned to. */
  readonly agents: Agent | readonly Agent[];
  /** The agent of sessions that have none. @default the only agent, when there is one */
  readonly defaultAgentId?: string;
  /** Compacts the session after each final answer (never inside a tool loop). @default the manager's `compactor`, if any */
  readonly compactor?: TurnCompactor;
  /** Counter for compaction and the context window. @default tokens.estimate */
  readonly counter?: TokenCounter;
  /** Most model calls per turn; a model still asking for tools then fails the turn with `TOOL_LOOP_LIMIT`. @default 8 */
  readonly maxIterations?: number;
  /** Tool calls of one answer running at once. @default 8 */
  readonly toolConcurrency?: number;
  /**
   * What each request holds: a number sends the newest whole turns that fit that many tokens
   * (system messages always); `'auto'` takes the budget from the model's context window (a table
   * of common models) minus room for the answer; the window cuts in steps so the prompt's prefix
   * stays cached. Whatever is set, a request the provider refuses as too long is fitted and sent
   * again. @default the whole history, until a provider says it is too long
   */
  readonly contextWindow?: ContextWindowOption;
  /** Makes the `SessionHandle` tools get as `context.memory`. @default createSessionHandle over the store */
  readonly memory?: MemoryFactory;
  /** Adds vector ranking to the default memory's `recall`. */
  readonly embed?: Embed;
  /**
   * Continues a session once a turn has filled it to the manager's `maxMessagesPerSession`
   * (Penguin's session boundary): later turns run in the successor. A session continued elsewhere
   * is followed to the end of its chain either way. @default false
   */
  readonly continueAtBoundary?: boolean;
}

/** The options with defaults filled, checked. */
export interface ResolvedConversationOptions {
  readonly manager: SessionManager;
  /** True when the conversation made the manager (and so closes it). */
  readonly ownsManager: boolean;
  readonly agents: ReadonlyMap<string, Agent>;
  readonly defaultAgentId: string | undefined;
  readonly compactor: TurnCompactor | undefined;
  readonly counter: TokenCounter;
  readonly maxIterations: number;
  readonly toolConcurrency: number;
  /** How requests are chosen and fitted; one per conversation (what it learns of models is shared by its sessions). */
  readonly context: ContextPolicy;
  readonly memory: MemoryFactory;
  readonly continueAtBoundary: boolean;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `Conversation: ${message}`);
}

function positiveInteger(value: unknown, name: string, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalid(`${name} must be a positive integer, not ${String(value)}`);
  return value;
}

/** The tools an agent gives its model: its own, plus `recall` and `remember` with `memoryTools`. */
export function toolsOf(agent: Agent): readonly Tool[] {
  const own = agent.tools ?? [];
  const withMemory = agent.memoryTools === true ? [...own, ...memoryTools()] : own;
  return workingMemoryOf(agent) === undefined ? withMemory : [...withMemory, workingMemoryTool()];
}

const PLAIN_WORKING_MEMORY: HandleWorkingMemoryOptions = Object.freeze({});

/** An agent's working memory options, or `undefined` when it has none. */
export function workingMemoryOf(agent: Agent): HandleWorkingMemoryOptions | undefined {
  const option = agent.workingMemory;
  return option === undefined || option === false ? undefined : option === true ? PLAIN_WORKING_MEMORY : option;
}

function checkAgent(agent: unknown, index: number): Agent {
  if (typeof agent !== 'object' || agent === null) throw invalid(`agents[${index}] must be an object`);
  const { id, model, system, tools, memoryTools: withMemory } = agent as Partial<Agent>;
  if (typeof id !== 'string' || id.length === 0 || id.length > 256)
    throw invalid(`agents[${index}].id must be a non-empty string of at most 256 characters`);
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof model.complete !== 'function' ||
    typeof model.provider !== 'string'
  ) {
    throw invalid(`agent "${id}": model must be a ChatModel (with provider and complete)`);
  }
  if (system !== undefined && typeof system !== 'string' && typeof system !== 'function')
    throw invalid(`agent "${id}": system must be a string or a function`);
  if (withMemory !== undefined && typeof withMemory !== 'boolean')
    throw invalid(`agent "${id}": memoryTools must be a boolean`);
  if (tools !== undefined && !Array.isArray(tools)) throw invalid(`agent "${id}": tools must be an array`);
  const checked = agent as Agent;
  checkWorkingMemory(checked, id);
  for (const tool of tools ?? []) {
    const problem = toolProblem(tool);
    if (problem !== undefined)
      throw invalid(`agent "${id}": tool "${String((tool as Partial<Tool>).name)}" ${problem}`);
  }
  // Names, schemas and duplicates (e.g. an own tool named `recall` beside the memory tools).
  checkTools(toolsOf(checked), undefined, model.provider);
  return checked;
}

/** Refuses an agent's working memory options that could only fail later, in a turn. */
function checkWorkingMemory(agent: Agent, id: string): void {
  const option = agent.workingMemory as unknown;
  if (option === undefined || typeof option === 'boolean') return;
  if (typeof option !== 'object' || option === null)
    throw invalid(`agent "${id}": workingMemory must be a boolean or an object`);
  const { scope, maxBytes } = option as HandleWorkingMemoryOptions;
  if (scope !== undefined && scope !== 'user' && scope !== 'agent')
    throw invalid(`agent "${id}": workingMemory.scope must be "user" or "agent"`);
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 2 || maxBytes > MAX_VALUE_BYTES))
    throw invalid(`agent "${id}": workingMemory.maxBytes must be an integer from 2 to ${MAX_VALUE_BYTES}`);
  workingMemoryJsonSchema(option as HandleWorkingMemoryOptions);
}

/** Checks `options` and fills defaults; throws `INVALID_ARGUMENT`. */
export function resolveConversationOptions(options: ConversationOptions): ResolvedConversationOptions {
  if (typeof options !== 'object' || options === null)
    throw invalid('options must be an object with a store or a manager, and agents');
  if ((options.store === undefined) === (options.manager === undefined))
    throw invalid('give exactly one of store and manager');
  if (options.manager !== undefined && !(options.manager instanceof SessionManager))
    throw invalid('manager must be a SessionManager');
  const list = Array.isArray(options.agents)
    ? (options.agents as readonly Agent[])
    : options.agents === undefined
      ? []
      : [options.agents as Agent];
  if (list.length === 0) throw invalid('give at least one agent');
  const agents = new Map<string, Agent>();
  list.forEach((agent, index) => {
    const checked = checkAgent(agent, index);
    if (agents.has(checked.id)) throw invalid(`two agents have the id "${checked.id}"`);
    agents.set(checked.id, checked);
  });
  const defaultAgentId = options.defaultAgentId ?? (agents.size === 1 ? list[0]?.id : undefined);
  if (defaultAgentId !== undefined && !agents.has(defaultAgentId))
    throw invalid(`defaultAgentId "${defaultAgentId}" is not one of the agents`);
  const compactor = options.compactor;
  if (
    compactor !== undefined &&
    (typeof compactor !== 'object' || compactor === null || typeof compactor.compact !== 'function')
  ) {
    throw invalid('compactor must be a Compactor or a Strategy');
  }
  const counter = options.counter ?? estimate;
  if (typeof counter !== 'object' || counter === null || typeof counter.countMessage !== 'function')
    throw invalid('counter must be a TokenCounter');
  if (options.memory !== undefined && typeof options.memory !== 'function')
    throw invalid('memory must be a function (context) => SessionHandle');
  if (options.embed !== undefined && typeof options.embed !== 'function') throw invalid('embed must be a function');
  if (options.memory !== undefined && options.embed !== undefined)
    throw invalid('embed applies to the default memory: give it to your memory factory instead');
  if (options.continueAtBoundary !== undefined && typeof options.continueAtBoundary !== 'boolean')
    throw invalid('continueAtBoundary must be a boolean');
  const ownsManager = options.manager === undefined;
  return {
    // A store gets its own manager (no compactor of its own, no auto-save): its cache keeps sessions between turns, and turns end through its `runTurn`.
    manager: options.manager ?? new SessionManager({ store: options.store as SessionStore, autoSaveIntervalMs: false }),
    ownsManager,
    agents,
    defaultAgentId,
    compactor,
    counter,
    maxIterations: positiveInteger(options.maxIterations, 'maxIterations', 8) as number,
    toolConcurrency: positiveInteger(options.toolConcurrency, 'toolConcurrency', 8) as number,
    context: resolveContextPolicy(options.contextWindow, counter, compactor, invalid),
    memory: options.memory ?? defaultMemory(options.embed),
    continueAtBoundary: options.continueAtBoundary ?? false,
  };
}
