/**
 * ✱ `Conversation`: a turn is Coreason's cycle with goaitools' rules — load the session, call the
 * model with a fresh system prompt, run the tools it asks for until it answers, append every new
 * message in one atomic write, compact after the final answer, save. A failed turn stores nothing.
 * @module
 */
import type { SessionHandle } from '../active-memory/types.js';
import { KNOWLEDGE_PREFIX } from '../active-memory/knowledge.js';
import { isPreambleMessage } from '../compaction/turns.js';
import type { CompactionResult } from '../compaction/types.js';
import { ChatstateError, InvalidInputError } from '../errors.js';
import { assertValidId } from '../ids.js';
import { chainCycle, continuationMakesProgress, hasOpenToolExchange, linkTarget } from '../manager/continuation.js';
import { KeyedLock } from '../manager/keyed-lock.js';
import type { SessionChange } from '../manager/commit.js';
import type { SessionManager } from '../manager/session-manager.js';
import type { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';
import { Session } from '../session/session.js';
import { throwIfAborted } from './abort.js';
import { unchangedBy } from './compaction-step.js';
import { continueHistory } from './context-window.js';
import { resolveConversationOptions, toolsOf, type ConversationOptions, type ResolvedConversationOptions } from './conversation-options.js';
import { runToolLoop, type ToolLoopResult } from './tool-loop.js';
import { findPriorTurn, inputMessages, type CheckedInput, type PriorTurn, type TurnInput } from './turn-input.js';
import { endsWithTurn, turnSession } from './turn-memory.js';
import type { Agent, SendOptions, ToolContext, TurnResult } from './types.js';

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `Conversation: ${message}`);
}

function checkSendOptions(options: SendOptions): void {
  if (typeof options !== 'object' || options === null) throw invalid('send options must be an object');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw invalid('signal must be an AbortSignal');
  for (const name of ['agentId', 'userId'] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > 256)) throw invalid(`${name} must be a non-empty string`);
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

/** What the turn changes: its messages, the variables its tools set, the measured usage, the agent. */
function changeOf(base: Session, working: Session, changed: Session, loop: ToolLoopResult): SessionChange {
  return {
    messages: loop.messages,
    ...(changed.variables !== working.variables && { variables: changed.variables }),
    ...(working.agentId !== base.agentId && working.agentId !== undefined && { agentId: working.agentId }),
    // Absent after a window (its usage measured the window, not a prefix of the session): the recorded usage stays.
    ...(loop.measured !== undefined && { lastUsage: { ...loop.measured.usage, messageCount: loop.measured.promptLength } }),
  };
}

/** ✱ Conversations over a store: `send` runs one turn of a session. */
export class Conversation {
  /** The manager sessions are read through: its cache keeps a long session in memory between turns. */
  readonly manager: SessionManager;
  private readonly options: ResolvedConversationOptions;
  // Turns of one session run one after another in this process: the second sees the first's answer.
  private readonly turns = new KeyedLock();

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
    // Knowledge session ids are derived from user ids: a turn creating one could squat another user's.
    if (sessionId.startsWith(KNOWLEDGE_PREFIX)) {
      throw new InvalidInputError('INVALID_ID', `Conversation: session ids starting with "${KNOWLEDGE_PREFIX}" are reserved for knowledge sessions`);
    }
    checkSendOptions(options);
    const checked = inputMessages(input);
    return this.turns.run(sessionId, () => this.turn(sessionId, checked, options));
  }

  /** Saves what the conversation's own manager holds and closes it (a manager or store given to it stays open). */
  async close(): Promise<void> {
    if (this.options.ownsManager) await this.manager.close();
  }

  private async turn(sessionId: string, checked: CheckedInput, options: SendOptions): Promise<TurnResult> {
    const input = checked.messages;
    const base = await this.newest(sessionId, options.userId);
    // The session the turn runs on: the end of the chain `sessionId` starts.
    const turnId = base.id;
    // Only ids the caller chose can be stored already (a retry); searching for fresh ones costs a pass over the history.
    const prior: PriorTurn = checked.callerIds ? await this.priorTurn(base, input, options.userId) : { kind: 'new' };
    const continued = (session: Session): { continuedFrom?: string } => (session.id === sessionId ? {} : { continuedFrom: sessionId });
    if (prior.kind === 'answered') {
      return { reply: prior.reply, session: base, messages: prior.messages, usage: { inputTokens: 0 }, iterations: 0, ...continued(base) };
    }
    // goaitools: a prompt is supplied per call, never stored. Input that would start the stored
    // history with system messages is a prompt given the wrong way (it would be resent, stale, forever).
    if (prior.kind === 'new' && input[0] !== undefined && isPreambleMessage(input[0]) && onlyPreamble(base)) {
      throw invalid('system messages at the start of a session are its system prompt, which is never stored: give it as the agent\'s system');
    }
    const agent = this.agentFor(base, options.agentId);
    const provider = agent.model.provider;
    throwIfAborted(options.signal, provider);
    // A new session keeps the agent of its first turn; an explicit agentId reassigns the session.
    const reassign = base.agentId !== agent.id && (base.version === 0 || options.agentId !== undefined);
    const working = reassign ? base.withAgent(agent.id) : base;
    const system = await systemPrompt(agent, working);

    // The tools' signal also fires when the turn ends, so that a tool still running after an abort
    // learns it is over. Made when a tool first runs: a turn without tool calls aborts nothing
    // (an abort dispatches to every listener the model client left on its signal).
    let ended: AbortController | undefined;
    let toolSignal: AbortSignal | undefined;
    const turnSignal = (): AbortSignal => {
      if (toolSignal === undefined) {
        ended = new AbortController();
        toolSignal = options.signal === undefined ? ended.signal : AbortSignal.any([options.signal, ended.signal]);
      }
      return toolSignal;
    };
    const state = turnSession(working);
    const temp = new Map<string, JsonValue>();
    let handle: SessionHandle | undefined;
    const memory = (): SessionHandle => {
      const signal = turnSignal();
      return (handle ??= endsWithTurn(this.options.memory({ store: this.manager.store, sessionId: turnId, session: state, temp, agentId: agent.id, signal }), signal, provider));
    };
    const contextFor = (call: { id: string }): ToolContext => ({
      sessionId: turnId,
      toolCallId: call.id,
      signal: turnSignal(),
      get memory(): SessionHandle {
        return memory();
      },
    });
    try {
      const window = this.options.contextWindow;
      const loop = await runToolLoop({
        model: agent.model,
        ...(system !== undefined && { system }),
        history: working.history,
        input: prior.kind === 'new' ? input : [],
        tools: toolsOf(agent),
        maxIterations: this.options.maxIterations,
        toolConcurrency: this.options.toolConcurrency,
        ...(options.signal !== undefined && { signal: options.signal }),
        contextFor,
        ...(window !== undefined && { window: { budget: window, counter: this.options.counter } }),
      });
      // An abort that came after the answer still means "do not store this turn".
      throwIfAborted(options.signal, provider);
      const committed = await this.manager.commit(base, changeOf(base, working, state.get(), loop));
      const count = loop.messages.length;
      const stored = committed.history;
      const messages = stored.at(-1)?.id === loop.reply.id ? stored.slice(stored.length - count) : loop.messages;
      const reply = messages.at(-1) ?? loop.reply;
      // The committed history is the one the model was sent plus this turn's messages.
      if (window !== undefined) continueHistory(working.history, committed.history);
      const { session, compaction } = await this.compactAfterAnswer(committed, options.signal);
      const successor = await this.continueWhenFull(session);
      return {
        reply,
        session,
        messages,
        usage: loop.usage,
        iterations: loop.iterations,
        ...(compaction !== undefined && { compaction }),
        ...continued(session),
        ...(successor !== undefined && { continuedTo: successor }),
      };
    } finally {
      ended?.abort();
    }
  }

  /**
   * The newest session of `sessionId`'s continuation chain (the session itself when it was never
   * continued), or a new one; `INVALID_ARGUMENT` when one is another user's, `CORRUPT` for links
   * that loop or point nowhere valid.
   */
  private async newest(sessionId: string, userId: string | undefined): Promise<Session> {
    let session: Session;
    try {
      session = await this.owned(sessionId, userId);
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return Session.create({ id: sessionId, ...(userId !== undefined && { userId }) });
      throw error;
    }
    const visited = new Set([sessionId]);
    // A turn on a continued session lands at the end of its chain, as `SessionManager.append` does.
    for (let next = linkTarget(session, 'continuedTo'); next !== undefined; next = linkTarget(session, 'continuedTo')) {
      if (visited.has(next)) throw chainCycle(sessionId);
      visited.add(next);
      session = await this.owned(next, userId);
    }
    return session;
  }

  /** The stored session (through the manager's cache); `INVALID_ARGUMENT` when it is another user's. */
  private async owned(sessionId: string, userId: string | undefined): Promise<Session> {
    const session = await this.manager.load(sessionId);
    // Without this check a caller could run a turn (and its memory tools) on someone else's session.
    if (userId !== undefined && session.userId !== userId) throw invalid(`session ${JSON.stringify(sessionId)} does not belong to this user`);
    return session;
  }

  /**
   * Where `input` is stored already: in `session`, or — when `session` is a continuation — in the
   * session it continued, where the turn that filled it was stored (a retry after the continuation
   * must not run that turn again).
   */
  private async priorTurn(session: Session, input: readonly Message[], userId: string | undefined): Promise<PriorTurn> {
    const prior = findPriorTurn(session.history, input);
    const previous = linkTarget(session, 'continuedFrom');
    if (prior.kind !== 'new' || previous === undefined) return prior;
    let predecessor: Session;
    try {
      predecessor = await this.owned(previous, userId);
    } catch (error) {
      if (ChatstateError.hasCode(error, 'NOT_FOUND')) return prior;
      throw error;
    }
    const earlier = findPriorTurn(predecessor.history, input);
    return earlier.kind === 'answered' ? earlier : prior;
  }

  /**
   * Penguin's boundary, after the turn is stored (so a failed turn still stores nothing): with
   * `continueAtBoundary`, a session holding the manager's `maxMessagesPerSession` messages is
   * continued, and later turns run in the successor. Returns its id. A continuation that fails
   * (another writer came first) leaves the turn as stored; the next turn checks again.
   */
  private async continueWhenFull(session: Session): Promise<string | undefined> {
    if (!this.options.continueAtBoundary || !this.manager.checkBoundary(session)) return undefined;
    if (!continuationMakesProgress(session) || hasOpenToolExchange(session)) return undefined;
    try {
      return (await this.manager.continueSession(session.id)).id;
    } catch (error) {
      if (ChatstateError.hasCode(error, 'CONFLICT')) return undefined;
      throw error;
    }
  }

  private agentFor(session: Session, requested: string | undefined): Agent {
    const id = requested ?? session.agentId ?? this.options.defaultAgentId;
    if (id === undefined) throw invalid(`session ${JSON.stringify(session.id)} has no agent and there is no default agent: pass agentId`);
    const agent = this.options.agents.get(id);
    if (agent === undefined) throw invalid(`unknown agent ${JSON.stringify(id.slice(0, 80))}; agents: ${[...this.options.agents.keys()].join(', ')}`);
    return agent;
  }

  /**
   * goaitools: compaction runs after a final answer only, on the stored turn, and is stored with
   * `expectedVersion`. Its failure never fails the turn (whose messages are stored): the report
   * says why and the session stays as committed. The turn's `signal` reaches a summarizer: an abort
   * while it runs ends the compaction (reported, nothing changed), not the stored turn.
   */
  private async compactAfterAnswer(committed: Session, signal: AbortSignal | undefined): Promise<{ session: Session; compaction?: CompactionResult }> {
    const compactor = this.options.compactor;
    if (compactor === undefined) return { session: committed };
    let outcome: { session: Session; result: CompactionResult | undefined };
    try {
      outcome = await committed.compact(compactor, { counter: this.options.counter, ...(signal !== undefined && { signal }) });
    } catch (error) {
      return { session: committed, compaction: unchangedBy(committed, compactor.name, error) };
    }
    const result = outcome.result;
    if (result === undefined) return { session: committed };
    if (!result.compacted) return { session: committed, compaction: result };
    try {
      // Measured usage describes the uncompacted prompt: `compact` dropped it, and so does the store.
      const change = { messages: [], history: outcome.session.messages, lastUsage: outcome.session.lastUsage ?? null };
      return { session: await this.manager.commit(committed, change), compaction: result };
    } catch (error) {
      // Another writer stored something after the turn: the compaction is dropped, not forced over it.
      return { session: committed, compaction: { ...unchangedBy(committed, result.strategy, error), tokensBefore: result.tokensBefore, tokensAfter: result.tokensBefore } };
    }
  }
}
