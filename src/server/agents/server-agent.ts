/**
 * The agents a server runs turns with: each an `Agent` plus how its turns run (the `Conversation`
 * options that a config file sets per agent), checked once when the server starts, and a
 * `Conversation` per turn over the request's tenant view.
 * @module
 */
import { InvalidInputError, errorMessage } from '../../errors.js';
import {
  recommendedContext,
  type ContextWindowOption,
  type ContextWindowOptions,
} from '../../runtime/context-options.js';
import { Conversation } from '../../runtime/conversation.js';
import { ModelLimits } from '../../runtime/model-limits.js';
import type { Agent, TurnCompactor } from '../../runtime/types.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { memoryStore } from '../../stores/memory-store.js';
import type { TokenCounter } from '../../tokens/counter.js';

/** An agent the server runs turns with: an `Agent` and the settings of its turns (each optional). */
export interface ServerAgent extends Agent {
  /** Most model calls per turn; a model still asking for tools then fails the turn (`TOOL_LOOP_LIMIT`, 422). @default 8 */
  readonly maxIterations?: number;
  /** Tool calls of one answer running at once. @default 8 */
  readonly toolConcurrency?: number;
  /** What each request holds (`ConversationOptions.contextWindow`). @default recommendedContext(): the model's own window, cut in steps */
  readonly contextWindow?: ContextWindowOption;
  /** Compacts the session after each final answer. @default none */
  readonly compactor?: TurnCompactor;
  /** Counts tokens for the context window and compaction. @default tokens.estimate */
  readonly counter?: TokenCounter;
  /** Continues a session in a successor once a turn filled it (5,000 messages). @default false */
  readonly continueAtBoundary?: boolean;
}

// A Conversation runs one turn here: what a provider's refusal taught is kept per agent, so the next turn does not pay for it again.
const learned = new WeakMap<ServerAgent, ModelLimits>();

/** `agent`'s context window (the recommended one by default), with the limits its turns share. */
function contextOf(agent: ServerAgent): ContextWindowOptions {
  let limits = learned.get(agent);
  if (limits === undefined) {
    limits = new ModelLimits();
    learned.set(agent, limits);
  }
  const option: ContextWindowOption = agent.contextWindow ?? recommendedContext().contextWindow;
  return typeof option === 'object' ? { limits, ...option } : { tokens: option, limits };
}

/** The options of the `Conversation` that runs `agent`'s turns over `store`. */
function conversationOptions(store: SessionStore, agent: ServerAgent) {
  const { maxIterations, toolConcurrency, compactor, counter, continueAtBoundary } = agent;
  return {
    store,
    agents: [agent],
    defaultAgentId: agent.id,
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(toolConcurrency === undefined ? {} : { toolConcurrency }),
    contextWindow: contextOf(agent),
    ...(compactor === undefined ? {} : { compactor }),
    ...(counter === undefined ? {} : { counter }),
    ...(continueAtBoundary === undefined ? {} : { continueAtBoundary }),
  };
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', message);
}

/** The agents of a server, by id, and the default one. */
export class AgentSet {
  private constructor(
    private readonly byId: ReadonlyMap<string, ServerAgent>,
    /** The agent of a session that has none, when a turn names none. */
    readonly defaultAgentId: string | undefined,
  ) {}

  /**
   * The set of `agents`, each checked as a turn will use it (its model, tools and settings), so a
   * mistake stops the server at start, not a client's turn; `INVALID_ARGUMENT` naming the agent.
   * `defaultAgentId` defaults to the only agent, when there is one.
   */
  static of(agents: readonly ServerAgent[], defaultAgentId?: string): AgentSet {
    if (!Array.isArray(agents)) throw invalid('agents must be an array of agents');
    const byId = new Map<string, ServerAgent>();
    // Never touched: the Conversation only checks its options against it.
    const unused = memoryStore({ name: 'agent-check' });
    agents.forEach((agent: ServerAgent, index) => {
      if (typeof agent !== 'object' || agent === null)
        throw new InvalidInputError('INVALID_ARGUMENT', `agents[${index}] must be an agent object`, {
          details: { index },
        });
      const id: unknown = agent.id;
      const name = typeof id === 'string' ? `agent "${id.slice(0, 80)}"` : `agents[${index}]`;
      try {
        void new Conversation(conversationOptions(unused, agent)).close().catch(() => undefined);
      } catch (error) {
        const why = errorMessage(error).replace(/^Conversation: /, '');
        // The Conversation names the agent itself when it can.
        throw new InvalidInputError('INVALID_ARGUMENT', why.startsWith(`${name}: `) ? why : `${name}: ${why}`, {
          cause: error,
          details: { index, ...(typeof id === 'string' ? { agentId: id } : {}) },
        });
      }
      if (byId.has(agent.id))
        throw new InvalidInputError('INVALID_ARGUMENT', `Two agents have the id "${agent.id}"`, {
          details: { index, agentId: agent.id },
        });
      byId.set(agent.id, agent);
    });
    if (byId.size === 0) throw invalid('Give at least one agent');
    const fallback = defaultAgentId ?? (byId.size === 1 ? [...byId.keys()][0] : undefined);
    if (fallback !== undefined && !byId.has(fallback))
      throw invalid(`The default agent "${fallback}" is not one of the agents (${[...byId.keys()].join(', ')})`);
    return new AgentSet(byId, fallback);
  }

  /** The agents' ids. */
  get ids(): string[] {
    return [...this.byId.keys()];
  }

  /**
   * The agent of a turn on session `sessionId`: the one the request names, else the session's,
   * else the default; `INVALID_ARGUMENT` when it is none of this server's agents.
   */
  agentFor(requested: string | undefined, stored: string | undefined, sessionId: string): ServerAgent {
    if (requested !== undefined) {
      const agent = this.byId.get(requested);
      if (agent === undefined)
        throw invalid(
          `agentId: this server has no agent ${JSON.stringify(requested.slice(0, 80))}; its agents: ${this.ids.join(', ')}`,
        );
      return agent;
    }
    const id = stored ?? this.defaultAgentId;
    if (id === undefined)
      throw invalid(`Session ${sessionId} has no agent and this server has no default agent: give agentId`);
    const agent = this.byId.get(id);
    if (agent === undefined)
      throw invalid(
        `Session ${sessionId} belongs to agent ${JSON.stringify(id.slice(0, 80))}, which this server does not run: give agentId (${this.ids.join(', ')}) to reassign it`,
      );
    return agent;
  }

  /**
   * A `Conversation` running `agent`'s turns over `store` (the request's tenant view), for one
   * request. Not kept across requests: its manager's cache would hold sessions that another
   * server sharing the database may have changed since (the commit would then refuse the turn
   * with a needless `CONFLICT`); a turn reads its session anyway, so a fresh one costs nothing.
   */
  conversation(store: SessionStore, agent: ServerAgent): Conversation {
    return new Conversation(conversationOptions(store, agent));
  }
}
