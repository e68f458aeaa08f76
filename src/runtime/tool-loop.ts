/**
 * The tool loop both `Conversation` and `chatWithState` run: call the model, run the tools it asks
 * for, give it their results, and repeat until it answers without tool calls or the iteration
 * bound is reached. It only computes the turn's messages; storing them is the caller's job, so a
 * failure anywhere in the loop leaves nothing behind.
 * @module
 */
import { ChatstateError, CollaboratorError, errorMessage } from '../errors.js';
import { recordModelCall } from '../internal/gen-ai-metrics.js';
import {
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  OPERATION_CHAT,
  genAiProvider,
} from '../internal/gen-ai-names.js';
import { errorType, traced } from '../internal/tracing.js';
import { Message } from '../message/message.js';
import type { ToolCall } from '../message/schema.js';
import { concatSequence, type MessageSequence } from '../session/message-log.js';
import { toModelError, unreadableAnswer } from '../models/model-error.js';
import type { ChatModel, ChatRequest, ChatResponse, ToolSpec } from '../models/types.js';
import type { Usage } from '../tokens/usage.js';
import { throwIfAborted } from './abort.js';
import { RequestFitter, knownLimit, type ContextPolicy, type FittedView, type TurnFit } from './request-fit.js';
import { runToolCalls } from './run-tools.js';
import type { Tool, ToolContext } from './types.js';

/** What one run of the loop needs. */
export interface ToolLoopInput {
  readonly model: ChatModel;
  /** The system prompt of every call (never part of the history). */
  readonly system?: string | readonly Message[];
  /** The history before this turn (a session's `history`, or an array). */
  readonly history: MessageSequence;
  /** The turn's input, appended to the history (may be empty: the history already ends with it). */
  readonly input: readonly Message[];
  readonly tools: readonly Tool[];
  /** Most model calls. */
  readonly maxIterations: number;
  /** Tool calls of one answer running at once. */
  readonly toolConcurrency: number;
  readonly signal?: AbortSignal;
  /** The context of one tool call. */
  readonly contextFor: (call: ToolCall) => ToolContext;
  /** How each request's messages are chosen and fitted to the model's context (the whole history without). */
  readonly context?: ContextPolicy;
  /** Sent as `ChatRequest.cacheKey`: the same for every call of a conversation, so its prefix stays in one cache. */
  readonly cacheKey?: string;
}

/** The usage of the last call and how many messages (history first) its prompt was. */
export interface MeasuredPrompt {
  readonly usage: Usage;
  readonly promptLength: number;
}

/** What the loop produced. */
export interface ToolLoopResult {
  /** The input, then every message the model and the tools added; the final answer is last. */
  readonly messages: readonly Message[];
  /** The final answer (an assistant message without tool calls). */
  readonly reply: Message;
  /** Usage summed over the calls (input tokens are counted once per call). */
  readonly usage: Usage;
  /** The final call's usage, when it reported one and its prompt was the whole history (not a window). */
  readonly measured?: MeasuredPrompt;
  /** Model calls made (calls repeated after the provider refused them as too long included). */
  readonly iterations: number;
  /** What was done to fit the requests, when the provider refused one or the counter said it would. */
  readonly fitted?: TurnFit;
}

/** Most times one model call is fitted again after the provider refused it as too long. */
const MAX_REFITS = 3;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The usage a model reported, when it is well-formed (a malformed one is ignored, never fatal). */
function checkedUsage(usage: unknown): Usage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { inputTokens, outputTokens, cachedInputTokens, cacheWriteInputTokens } = usage as Record<string, unknown>;
  if (!isCount(inputTokens)) return undefined;
  return {
    inputTokens,
    ...(isCount(outputTokens) ? { outputTokens } : {}),
    ...(isCount(cachedInputTokens) ? { cachedInputTokens } : {}),
    ...(isCount(cacheWriteInputTokens) ? { cacheWriteInputTokens } : {}),
  };
}

/** `total` plus `usage`; an optional count is present once any call reported it. */
export function addUsage(total: Usage, usage: Usage | undefined): Usage {
  if (usage === undefined) return total;
  const sum = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const outputTokens = sum(total.outputTokens, usage.outputTokens);
  const cachedInputTokens = sum(total.cachedInputTokens, usage.cachedInputTokens);
  const cacheWriteInputTokens = sum(total.cacheWriteInputTokens, usage.cacheWriteInputTokens);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    ...(outputTokens === undefined ? {} : { outputTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteInputTokens === undefined ? {} : { cacheWriteInputTokens }),
  };
}

/**
 * `reply` with the usage of the call that wrote it in `metadata.usage` (and the model that
 * answered): stored with the turn, it gives a session's usage totals and, with prices, its cost.
 */
function withCallUsage(reply: Message, usage: Usage | undefined, modelId: unknown): Message {
  if (usage === undefined) return reply;
  // A model written by hand may name none: the usage is kept without it.
  const named = typeof modelId === 'string' && modelId !== '' ? { model: modelId } : {};
  return Message.with(reply, { metadata: { ...reply.metadata, usage: { ...named, ...usage } } });
}

/** The assistant message of a response, or `MODEL_FAILED` for anything else. */
function answerOf(response: ChatResponse, model: ChatModel): Message {
  if (typeof response !== 'object' || response === null)
    throw unreadableAnswer(model.provider, 'complete() returned no response');
  let message: Message;
  try {
    message = Message.from(response.message);
  } catch (error) {
    throw unreadableAnswer(model.provider, `the answer is not a valid message: ${errorMessage(error)}`, error);
  }
  if (message.role !== 'assistant')
    throw unreadableAnswer(model.provider, `the answer has role ${message.role}, not assistant`);
  return message;
}

/** One model call, in a `chat {model}` span (with its usage) and the client metrics. */
async function callModel(model: ChatModel, request: ChatRequest): Promise<ChatResponse> {
  const provider = genAiProvider(model.provider);
  return traced(
    `${OPERATION_CHAT} ${model.model}`,
    {
      kind: 'client',
      attributes: () => ({
        [GEN_AI_OPERATION_NAME]: OPERATION_CHAT,
        [GEN_AI_PROVIDER_NAME]: provider,
        [GEN_AI_REQUEST_MODEL]: model.model,
      }),
    },
    async (span) => {
      const started = performance.now();
      const measure = { operation: OPERATION_CHAT, provider, requestModel: model.model };
      let response: ChatResponse;
      try {
        response = await model.complete(request);
      } catch (error) {
        const failure = toModelError(error, model.provider, request.signal);
        recordModelCall({ ...measure, errorType: errorType(failure), seconds: (performance.now() - started) / 1000 });
        throw failure;
      }
      const usage = typeof response === 'object' && response !== null ? checkedUsage(response.usage) : undefined;
      const responseModel = typeof response?.modelId === 'string' ? response.modelId : undefined;
      recordModelCall({
        ...measure,
        responseModel,
        seconds: (performance.now() - started) / 1000,
        inputTokens: usage?.inputTokens,
        outputTokens: usage?.outputTokens,
      });
      span.set(() => ({
        [GEN_AI_RESPONSE_MODEL]: responseModel,
        [GEN_AI_RESPONSE_FINISH_REASONS]:
          typeof response?.finishReason === 'string' ? [response.finishReason] : undefined,
        [GEN_AI_USAGE_INPUT_TOKENS]: usage?.inputTokens,
        [GEN_AI_USAGE_OUTPUT_TOKENS]: usage?.outputTokens,
        [GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage?.cachedInputTokens,
        [GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: usage?.cacheWriteInputTokens,
      }));
      return response;
    },
  );
}

function toolLoopLimit(maxIterations: number): ChatstateError {
  return new CollaboratorError(
    'TOOL_LOOP_LIMIT',
    `The model still asked for tools after ${maxIterations} calls; nothing was stored`,
    {
      details: { maxIterations },
    },
  );
}

/** What is wrong with `tool` as a runtime tool (no `execute` function, a `recall` that is not a boolean), or `undefined`. */
export function toolProblem(tool: unknown): string | undefined {
  const { execute, recall } = (typeof tool === 'object' && tool !== null ? tool : {}) as Partial<Tool>;
  if (typeof execute !== 'function') return 'has no execute function';
  if (recall !== undefined && typeof recall !== 'boolean') return 'has a recall option that is not a boolean';
  return undefined;
}

/** The tool specs sent to the model (a tool's `execute` stays here). */
export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map(({ name, description, parameters }) => ({
    name,
    ...(description === undefined ? {} : { description }),
    ...(parameters === undefined ? {} : { parameters }),
  }));
}

/** Records what fitting did over a loop's calls. */
class FitLog {
  private reason: TurnFit['reason'] | undefined;
  private retries = 0;
  private shortened = 0;
  private compacted = false;
  private leftOut = 0;

  constructor(
    private readonly policy: ContextPolicy | undefined,
    private readonly model: ChatModel,
  ) {}

  /** Notes a request about to be sent; `total` is the history and turn it was chosen from. */
  sent(view: FittedView, total: number): void {
    this.leftOut = total - view.messages.length;
    this.shortened = Math.max(this.shortened, view.shortened);
    if (view.compacted) this.compacted = true;
    if ((view.shortened > 0 || view.compacted) && this.reason === undefined) this.reason = 'predicted';
  }

  refused(): void {
    this.reason = 'overflow';
    this.retries += 1;
  }

  result(): TurnFit | undefined {
    if (this.reason === undefined) return undefined;
    const known = this.policy === undefined ? undefined : knownLimit(this.policy, this.model.model);
    return {
      reason: this.reason,
      retries: this.retries,
      ...(known === undefined ? {} : { limitTokens: known.contextTokens, limitSource: known.source }),
      shortenedToolOutputs: this.shortened,
      leftOutMessages: Math.max(0, this.leftOut),
      compacted: this.compacted,
    };
  }
}

/**
 * One model call for the turn so far, fitted to the model's context: a request the provider
 * refuses as too long is fitted again with what the refusal taught (at most `MAX_REFITS` times).
 */
async function fittedCall(
  input: ToolLoopInput,
  fitter: RequestFitter | undefined,
  log: FitLog,
  turn: readonly Message[],
  specs: readonly ToolSpec[],
): Promise<{ response: ChatResponse; view: FittedView }> {
  const { model, history, signal } = input;
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(signal, model.provider);
    const view: FittedView =
      fitter === undefined
        ? { messages: concatSequence(history, turn), full: true, counted: () => 0, shortened: 0, compacted: false }
        : await fitter.view(history, turn, signal);
    log.sent(view, history.length + turn.length);
    try {
      const response = await callModel(model, {
        messages: view.messages,
        ...(input.system === undefined ? {} : { system: input.system }),
        ...(specs.length > 0 ? { tools: specs } : {}),
        ...(input.cacheKey === undefined ? {} : { cacheKey: input.cacheKey }),
        ...(signal === undefined ? {} : { signal }),
      });
      return { response, view };
    } catch (error) {
      if (fitter === undefined || attempt >= MAX_REFITS || !ChatstateError.hasCode(error, 'CONTEXT_OVERFLOW'))
        throw error;
      const before = fitter.budget();
      input.context?.limits.observeOverflow(model.model, error, view.counted());
      // A refusal that taught nothing new (the same budget again) must still send less.
      const after = fitter.budget();
      if (before !== undefined && after !== undefined && after >= before) fitter.tighten();
      log.refused();
    }
  }
}

/** Runs the loop; throws `ABORTED`, `TOOL_LOOP_LIMIT` or the model's error (nothing is stored by it either way). */
export async function runToolLoop(input: ToolLoopInput): Promise<ToolLoopResult> {
  const { model, history, signal } = input;
  const byName = new Map(input.tools.map((tool) => [tool.name, tool]));
  const specs = toolSpecs(input.tools);
  const turn: Message[] = [...input.input];
  let usage: Usage = { inputTokens: 0 };
  const fitter = input.context === undefined ? undefined : new RequestFitter(input.context, model, input.system, specs);
  const log = new FitLog(input.context, model);
  for (let iteration = 1; ; iteration++) {
    const { response, view } = await fittedCall(input, fitter, log, turn, specs);
    const reported = checkedUsage(response.usage);
    // Only a limit turns the ratio into a budget: until one is known, a whole history is not counted for it.
    if (reported !== undefined && fitter?.budget() !== undefined)
      input.context?.limits.observeUsage(model.model, view.counted(), reported.inputTokens);
    const reply = withCallUsage(answerOf(response, model), reported, response.modelId ?? model.model);
    usage = addUsage(usage, reported);
    const promptLength = history.length + turn.length;
    turn.push(reply);
    if (reply.toolCalls === undefined || reply.toolCalls.length === 0) {
      const measured = reported !== undefined && view.full ? { usage: reported, promptLength } : undefined;
      const fitted = log.result();
      return {
        messages: turn,
        reply,
        usage,
        iterations: iteration + (fitted?.retries ?? 0),
        ...(measured === undefined ? {} : { measured }),
        ...(fitted === undefined ? {} : { fitted }),
      };
    }
    // The bound counts model calls: the answer to these tools would be one call too many.
    if (iteration >= input.maxIterations) throw toolLoopLimit(input.maxIterations);
    const results = await runToolCalls(reply.toolCalls, {
      tools: byName,
      contextFor: input.contextFor,
      concurrency: input.toolConcurrency,
      signal,
      provider: model.provider,
    });
    turn.push(...results);
  }
}
