/**
 * Fitting a request to the model's context: what the tool loop sends, so that a turn never fails
 * because the conversation grew. The stored session is never touched: only the request is cut.
 * In order: the window leaves older turns out (cut in steps, so the prompt's prefix stays cached),
 * the in-flight turn's oversized tool outputs are shortened for the request, and when that is not
 * enough the conversation's compactor runs over the request. The budget comes from the configured
 * window and from what `ModelLimits` knows (a table, or what a provider said when it refused).
 * @module
 */
import { truncateToolOutputs } from '../compaction/truncate-tool-outputs.js';
import type { Message } from '../message/message.js';
import type { ModelWindow } from '../models/context-windows.js';
import type { ChatModel, ToolSpec } from '../models/types.js';
import { concatSequence, type MessageSequence } from '../session/message-log.js';
import type { TokenCounter } from '../tokens/counter.js';
import { steppedWindow, type ContextView } from './context-window.js';
import type { KnownLimit, LimitSource, ModelLimits } from './model-limits.js';
import type { TurnCompactor } from './types.js';

/** How the context of a request is chosen. */
export interface ContextPolicy {
  readonly counter: TokenCounter;
  /** A configured budget for the messages, in counter units (`contextWindow: number`). */
  readonly budget?: number;
  /** The share of the budget a cut of the window leaves (the rest is room to grow between cuts). */
  readonly lowMark: number;
  /** `'auto'`: models' windows from the table (and `models`) limit the requests too. */
  readonly tokens?: 'auto' | number;
  /** Context windows of models the table lacks or that differ from it. */
  readonly models: Readonly<Record<string, ModelWindow>>;
  /** What is learned of each model's limit and of its count against the counter. */
  readonly limits: ModelLimits;
  /** Runs over the request when the window and shortening are not enough. */
  readonly compactor?: TurnCompactor;
}

/** What was done to make a turn's requests fit, when more than the window's usual work was needed. */
export interface TurnFit {
  /** `overflow`: the provider refused a request as too long; `predicted`: the counter said it would be. */
  readonly reason: 'overflow' | 'predicted';
  /** Model calls repeated after the provider refused them. */
  readonly retries: number;
  /** The limit the requests were fitted to (prompt and answer, provider tokens), when known. */
  readonly limitTokens?: number;
  /** Where that limit came from. */
  readonly limitSource?: LimitSource;
  /** Tool outputs of this turn shortened in the request (the stored turn keeps them whole). */
  readonly shortenedToolOutputs: number;
  /** Messages of the stored history left out of the last request. */
  readonly leftOutMessages: number;
  /** True when the compactor ran over the request. */
  readonly compacted: boolean;
}

/** A request's messages, their count by the counter, and what fitting did. */
export interface FittedView extends ContextView {
  /** The whole prompt (system, tools, messages) by the counter: counted when first asked (a whole long history is not counted for nothing). */
  counted(): number;
  readonly shortened: number;
  readonly compacted: boolean;
}

/** The most a tool output of the turn in flight may take of the budget, together. */
const TURN_SHARE = 0.6;
/** The least a shortened tool output keeps, in tokens. */
const MIN_TOOL_OUTPUT = 64;
/** Budgets derived from a limit aim this far below it: the counter's ratio is learned, not known. */
const SAFETY = 0.95;

/** The limit `policy` knows for `model`, if any. */
export function knownLimit(policy: ContextPolicy, model: string): KnownLimit | undefined {
  return policy.limits.limit(model, policy.tokens, policy.models);
}

function sum(messages: readonly Message[], counter: TokenCounter): number {
  let total = 0;
  for (const message of messages) total += counter.countMessage(message);
  return total;
}

/** Fits the requests of one tool loop. */
export class RequestFitter {
  private readonly fixed: number;
  private tightened = 1;

  constructor(
    private readonly policy: ContextPolicy,
    private readonly model: ChatModel,
    system: string | readonly Message[] | undefined,
    tools: readonly ToolSpec[],
  ) {
    const { counter } = policy;
    const systemTokens =
      system === undefined ? 0 : typeof system === 'string' ? counter.countText(system) : sum(system, counter);
    this.fixed = systemTokens + (tools.length === 0 ? 0 : counter.countText(JSON.stringify(tools)));
  }

  /** The messages' budget in counter units, or undefined when nothing limits them. */
  budget(): number | undefined {
    const known = knownLimit(this.policy, this.model.model);
    let budget = this.policy.budget;
    if (known !== undefined) {
      const ratio = this.policy.limits.ratio(this.model.model);
      const fromLimit = Math.floor(((known.contextTokens - known.answerTokens) / ratio) * SAFETY) - this.fixed;
      budget = Math.min(budget ?? Infinity, fromLimit);
    }
    if (budget === undefined) return undefined;
    return Math.max(1, Math.floor(budget * this.tightened));
  }

  /** Counts a prompt of `messages` (system and tools included) when first asked; `messagesTokens` when already known. */
  private counted(messages: readonly Message[], messagesTokens?: number): () => number {
    let total = messagesTokens === undefined ? undefined : this.fixed + messagesTokens;
    return () => (total ??= this.fixed + sum(messages, this.policy.counter));
  }

  /** After the provider refused `view` without saying by how much the estimate was off: aim lower next time. */
  tighten(): void {
    this.tightened *= 0.8;
  }

  /** The request for `history` followed by the turn so far. */
  async view(history: MessageSequence, turn: readonly Message[], signal?: AbortSignal): Promise<FittedView> {
    const budget = this.budget();
    const { counter } = this.policy;
    if (budget === undefined) {
      const messages = concatSequence(history, turn);
      return { messages, full: true, counted: this.counted(messages), shortened: 0, compacted: false };
    }
    const shortenedTurn = this.shortenTurn(turn, budget);
    const window = steppedWindow(
      history,
      shortenedTurn.messages,
      { high: budget, low: Math.floor(budget * this.policy.lowMark) },
      counter,
    );
    let messages = window.messages;
    let compacted = false;
    const compactor = this.policy.compactor;
    // Counted only where a compactor may need it (and then not again for the prompt's count).
    let tokens = compactor === undefined ? undefined : sum(messages, counter);
    if (compactor !== undefined && (tokens as number) > budget) {
      // Pinned messages or a huge turn: the compactor may still find room (it only shapes this request).
      const result = await compactor.compact({ messages, counter, ...(signal === undefined ? {} : { signal }) });
      if (result.error === undefined && result.compacted) {
        messages = result.messages;
        compacted = true;
        tokens = undefined;
      }
    }
    return {
      messages,
      full: window.full && shortenedTurn.count === 0 && !compacted,
      counted: this.counted(messages, tokens),
      shortened: shortenedTurn.count,
      compacted,
    };
  }

  /** The turn with its tool outputs shortened when together they would take more than their share of `budget`. */
  private shortenTurn(turn: readonly Message[], budget: number): { messages: readonly Message[]; count: number } {
    const { counter } = this.policy;
    let tools = 0;
    let toolTokens = 0;
    for (const message of turn)
      if (message.role === 'tool') {
        tools += 1;
        toolTokens += counter.countMessage(message);
      }
    const room = Math.floor(budget * TURN_SHARE);
    if (tools === 0 || toolTokens <= room) return { messages: turn, count: 0 };
    const cap = Math.max(MIN_TOOL_OUTPUT, Math.floor(room / tools));
    const result = truncateToolOutputs({ maxTokens: cap, keepRecentTurns: 0 }).compact({ messages: turn, counter });
    return { messages: result.messages, count: result.modified.count };
  }
}
