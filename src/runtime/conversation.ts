/**
 * ✱ `Conversation`: a turn is Coreason's cycle with goaitools' rules — load the session, call the
 * model with a fresh system prompt, run the tools it asks for until it answers; then the manager
 * ends the turn (`SessionManager.runTurn`): every new message in one atomic write, compaction after
 * the final answer, continuation at the boundary. A failed turn stores nothing.
 * @module
 */
import { createHash } from 'node:crypto';
import type { SessionHandle } from '../active-memory/types.js';
import { KNOWLEDGE_GRAPH_PREFIX, KNOWLEDGE_PREFIX } from '../active-memory/knowledge.js';
import { WORKING_MEMORY_PREFIX } from '../active-memory/working-memory.js';
import { isPreambleMessage } from '../compaction/turns.js';
import { InvalidInputError } from '../errors.js';
import { assertValidId } from '../ids.js';
import {
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  OPERATION_INVOKE_AGENT,
  SESSION_ID,
  SESSION_PREVIOUS_ID,
  genAiProvider,
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
} from '../internal/gen-ai-names.js';
import { traced, type TraceSpan } from '../internal/tracing.js';
import type { SessionChange, SessionManager, TurnContext, TurnOutcome } from '../manager/index.js';
import type { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';
import type { MessageSequence } from '../session/message-log.js';
import type { Session } from '../session/session.js';
import { throwIfAborted } from './abort.js';
import { continueHistory } from './context-window.js';
import {
  resolveConversationOptions,
  toolsOf,
  workingMemoryOf,
  type ConversationOptions,
  type ResolvedConversationOptions,
} from './conversation-options.js';
import { runToolLoop, type ToolLoopResult } from './tool-loop.js';
import { findPriorTurn, inputMessages, type CheckedInput, type PriorTurn, type TurnInput } from './turn-input.js';
import { endsWithTurn, turnSession } from './turn-memory.js';
import { workingMemoryJsonSchema, workingMemorySection } from './working-memory-tool.js';
import type { Agent, SendOptions, ToolContext, TurnResult } from './types.js';

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `Conversation: ${message}`);
}

function checkSendOptions(options: SendOptions): void {
  if (typeof options !== 'object' || options === null) throw invalid('send options must be an object');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw invalid('signal must be an AbortSignal');
  for (const name of ['agentId', 'userId'] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > 256))
      throw invalid(`${name} must be a non-empty string`);
  }
}

async function systemPrompt(agent: Agent, session: Session): Promise<string | undefined> {
  const system = agent.system;
  if (system === undefined) return undefined;
  const text = typeof system === 'string' ? system : await system(session);
  if (typeof text !== 'string') throw invalid(`the system prompt of agent "${agent.id}" must be a string`);
  return text.length === 0 ? undefined : text;
}

/** True when every message of `session` is in its leading system preamble (or it has none). */
function onlyPreamble(session: Session): boolean {
  const history = session.history;
  for (let i = 0; i < history.length; i++) if (!isPreambleMessage(history.at(i) as Message)) return false;
  return true;
}

/** What the work of a turn hands back to `send`: a reply found in the store (a retry), or a model run. */
type Ran =
  | { readonly kind: 'answered'; readonly reply: Message; readonly messages: readonly Message[] }
  | { readonly kind: 'ran'; readonly loop: ToolLoopResult; readonly history: MessageSequence };

/**
 * The tools' signal: it also fires when the turn ends, so that a tool still running after an abort
 * learns it is over. Made when a tool first runs: a turn without tool calls aborts nothing (an
 * abort dispatches to every listener the model client left on its signal).
 */
function turnLifetime(signal: AbortSignal | undefined): { signal(): AbortSignal; end(): void } {
  let ended: AbortController | undefined;
  let toolSignal: AbortSignal | undefined;
  return {
    signal(): AbortSignal {
      if (toolSignal === undefined) {
        ended = new AbortController();
        toolSignal = signal === undefined ? ended.signal : AbortSignal.any([signal, ended.signal]);
      }
      return toolSignal;
    },
    end(): void {
      ended?.abort();
    },
  };
}

/** What the turn changes: its messages, the variables its tools set, the measured usage, the agent. */
function changeOf(base: Session, working: Session, changed: Session, loop: ToolLoopResult): SessionChange {
  return {
    messages: loop.messages,
    ...(changed.variables !== working.variables ? { variables: changed.variables } : {}),
    ...(working.agentId !== base.agentId && working.agentId !== undefined ? { agentId: working.agentId } : {}),
    // Absent after a window (its usage measured the window, not a prefix of the session): the recorded usage stays.
    ...(loop.measured === undefined
      ? {}
      : { lastUsage: { ...loop.measured.usage, messageCount: loop.measured.promptLength } }),
  };
}

/** ✱ Conversations over a store: `send` runs one turn of a session. */
export class Conversation {
  /** The manager sessions are read through and turns end in: its cache keeps a long session in memory between turns. */
  readonly manager: SessionManager;
  private readonly options: ResolvedConversationOptions;

  constructor(options: ConversationOptions) {
    this.options = resolveConversationOptions(options);
    this.manager = this.options.manager;
  }

  /**
   * Runs one turn of session `sessionId` (created when it does not exist) and returns the reply,
   * the session as stored, the messages the turn appended and the usage. Input messages that are
   * already stored (same ids) make it a retry: the stored reply is returned and the model is not
   * called (`iterations` 0). Throws, storing nothing: the model's `ModelError`, `ABORTED`,
   * `TOOL_LOOP_LIMIT`, `CONFLICT` when the session changed during the turn, or `INVALID_ARGUMENT`
   * for input that would start the session with system messages (the agent's `system` is the prompt).
   */
  async send(sessionId: string, input: TurnInput, options: SendOptions = {}): Promise<TurnResult> {
    assertValidId(sessionId, 'session id');
    // Knowledge, working memory and graph session ids are derived from user ids: a turn creating one could squat another user's.
    for (const [prefix, what] of [
      [KNOWLEDGE_PREFIX, 'knowledge sessions'],
      [WORKING_MEMORY_PREFIX, 'working memories'],
      [KNOWLEDGE_GRAPH_PREFIX, 'knowledge graphs'],
    ] as const) {
      if (sessionId.startsWith(prefix))
        throw new InvalidInputError(
          'INVALID_ID',
          `Conversation: session ids starting with "${prefix}" are reserved for ${what}`,
        );
    }
    checkSendOptions(options);
    const checked = inputMessages(input);
    return traced(
      OPERATION_INVOKE_AGENT,
      { attributes: () => ({ [GEN_AI_OPERATION_NAME]: OPERATION_INVOKE_AGENT, [GEN_AI_CONVERSATION_ID]: sessionId }) },
      async (span) => {
        const result = await this.turn(sessionId, checked, options, span);
        span.set(() => turnAttributes(result));
        return result;
      },
    );
  }

  /** `send` once its arguments are checked, in the turn's span. */
  private async turn(
    sessionId: string,
    checked: CheckedInput,
    options: SendOptions,
    span: TraceSpan,
  ): Promise<TurnResult> {
    const lifetime = turnLifetime(options.signal);
    try {
      const end = await this.manager.runTurn(
        sessionId,
        (base, context) => this.run(base, context, checked, options, lifetime.signal, span),
        {
          ...(options.userId === undefined ? {} : { userId: options.userId }),
          ...(this.options.compactor === undefined ? {} : { compactor: this.options.compactor }),
          counter: this.options.counter,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          continueAtBoundary: this.options.continueAtBoundary,
        },
      );
      const { value: ran, session } = end;
      const continued = {
        ...(end.continuedFrom === undefined ? {} : { continuedFrom: end.continuedFrom }),
        ...(end.continuedTo === undefined ? {} : { continuedTo: end.continuedTo }),
      };
      if (ran.kind === 'answered')
        return {
          reply: ran.reply,
          session,
          messages: ran.messages,
          usage: { inputTokens: 0 },
          iterations: 0,
          ...continued,
        };
      // The committed history is the one the model was sent plus this turn's messages.
      continueHistory(ran.history, end.committed.history);
      return {
        reply: end.messages.at(-1) ?? ran.loop.reply,
        session,
        messages: end.messages,
        usage: ran.loop.usage,
        iterations: ran.loop.iterations,
        ...(end.compaction === undefined ? {} : { compaction: end.compaction }),
        ...(ran.loop.fitted === undefined ? {} : { fitted: ran.loop.fitted }),
        ...continued,
      };
    } finally {
      lifetime.end();
    }
  }

  /** Saves what the conversation's own manager holds and closes it (a manager or store given to it stays open). */
  async close(): Promise<void> {
    if (this.options.ownsManager) await this.manager.close();
  }

  /** The work of a turn on `base` (the end of its chain, as the manager found it): the model and its tools. */
  private async run(
    base: Session,
    context: TurnContext,
    checked: CheckedInput,
    options: SendOptions,
    toolSignal: () => AbortSignal,
    span: TraceSpan,
  ): Promise<TurnOutcome<Ran>> {
    const input = checked.messages;
    // Only ids the caller chose can be stored already (a retry); searching for fresh ones costs a pass over the history.
    const prior: PriorTurn = checked.callerIds ? await priorTurn(base, input, context) : { kind: 'new' };
    if (prior.kind === 'answered') return { value: { kind: 'answered', reply: prior.reply, messages: prior.messages } };
    // goaitools: a prompt is supplied per call, never stored. Input that would start the stored
    // history with system messages is a prompt given the wrong way (it would be resent, stale, forever).
    if (prior.kind === 'new' && input[0] !== undefined && isPreambleMessage(input[0]) && onlyPreamble(base)) {
      throw invalid(
        "system messages at the start of a session are its system prompt, which is never stored: give it as the agent's system",
      );
    }
    const agent = this.agentFor(base, options.agentId);
    const provider = agent.model.provider;
    span.rename(`${OPERATION_INVOKE_AGENT} ${agent.id}`);
    span.set(() => ({
      [GEN_AI_AGENT_NAME]: agent.id,
      [GEN_AI_AGENT_ID]: agent.id,
      [GEN_AI_PROVIDER_NAME]: genAiProvider(provider),
      [GEN_AI_REQUEST_MODEL]: agent.model.model,
    }));
    throwIfAborted(options.signal, provider);
    // A new session keeps the agent of its first turn; an explicit agentId reassigns the session.
    const reassign = base.agentId !== agent.id && (base.version === 0 || options.agentId !== undefined);
    const working = reassign ? base.withAgent(agent.id) : base;
    const prompt = await systemPrompt(agent, working);
    const state = turnSession(working);
    const workingMemory = working.userId === undefined ? undefined : workingMemoryOf(agent);
    const temp = new Map<string, JsonValue>();
    let handle: SessionHandle | undefined;
    const memory = (): SessionHandle => {
      const signal = toolSignal();
      return (handle ??= endsWithTurn(
        this.options.memory({
          store: this.manager.store,
          sessionId: base.id,
          session: state,
          temp,
          agentId: agent.id,
          signal,
          ...(workingMemory === undefined ? {} : { workingMemory }),
        }),
        signal,
        provider,
      ));
    };
    // The working memory is read once per turn: the model sees its own updates in the tool results.
    const system =
      workingMemory === undefined
        ? prompt
        : [prompt, workingMemorySection(await memory().readWorkingMemory(), workingMemoryJsonSchema(workingMemory))]
            .filter((part) => part !== undefined)
            .join('\n\n');
    const contextFor = (call: { id: string }): ToolContext => ({
      sessionId: base.id,
      toolCallId: call.id,
      signal: toolSignal(),
      get memory(): SessionHandle {
        return memory();
      },
    });
    const loop = await runToolLoop({
      model: agent.model,
      ...(system === undefined ? {} : { system }),
      history: working.history,
      input: prior.kind === 'new' ? input : [],
      tools: toolsOf(agent),
      maxIterations: this.options.maxIterations,
      toolConcurrency: this.options.toolConcurrency,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      contextFor,
      context: this.options.context,
      cacheKey: cacheKeyOf(base.id),
    });
    // An abort that came after the answer still means "do not store this turn".
    throwIfAborted(options.signal, provider);
    return {
      value: { kind: 'ran', loop, history: working.history },
      change: changeOf(base, working, state.get(), loop),
    };
  }

  private agentFor(session: Session, requested: string | undefined): Agent {
    const id = requested ?? session.agentId ?? this.options.defaultAgentId;
    if (id === undefined)
      throw invalid(`session ${JSON.stringify(session.id)} has no agent and there is no default agent: pass agentId`);
    const agent = this.options.agents.get(id);
    if (agent === undefined)
      throw invalid(
        `unknown agent ${JSON.stringify(id.slice(0, 80))}; agents: ${[...this.options.agents.keys()].join(', ')}`,
      );
    return agent;
  }
}

/** What a turn's span tells of its end: the session written (and the one it continued), the usage. */
function turnAttributes(result: TurnResult): Record<string, string | number | undefined> {
  const previous = result.session.metadata.continuedFrom;
  return {
    [SESSION_ID]: result.session.id,
    [SESSION_PREVIOUS_ID]: typeof previous === 'string' ? previous : undefined,
    [GEN_AI_USAGE_INPUT_TOKENS]: result.usage.inputTokens,
    [GEN_AI_USAGE_OUTPUT_TOKENS]: result.usage.outputTokens,
    [GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: result.usage.cachedInputTokens,
  };
}

/**
 * The provider cache key of a session: a hash of its id (stable across turns and processes, so the
 * provider routes its requests to the cache that holds its prefix; the id itself is not sent).
 */
function cacheKeyOf(sessionId: string): string {
  return `chatstate-${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`;
}

/**
 * Where `input` is stored already: in `session`, or — when `session` is a continuation — in the
 * session it continued, where the turn that filled it was stored (a retry after the continuation
 * must not run that turn again).
 */
async function priorTurn(session: Session, input: readonly Message[], context: TurnContext): Promise<PriorTurn> {
  const prior = findPriorTurn(session.history, input);
  if (prior.kind !== 'new') return prior;
  const predecessor = await context.predecessor();
  if (predecessor === undefined) return prior;
  const earlier = findPriorTurn(predecessor.history, input);
  return earlier.kind === 'answered' ? earlier : prior;
}
