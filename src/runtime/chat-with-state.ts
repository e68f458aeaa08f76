/**
 * `chatWithState` (goaitools' ChatWithState): one turn for a stateless caller, who keeps the
 * conversation as the opaque blob of `encodeState` and hands it back on the next call. The turn is
 * the same tool loop as `Conversation`'s; leading system messages of the input are the prompt of
 * this call and are never stored; compaction runs after the final answer only.
 * @module
 */
import type { SessionHandle } from '../active-memory/types.js';
import { isPreambleMessage } from '../compaction/turns.js';
import type { CompactionResult } from '../compaction/types.js';
import { ChatstateError, InvalidInputError } from '../errors.js';
import { concatArrays } from '../freeze.js';
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  OPERATION_INVOKE_AGENT,
  SESSION_ID,
  genAiProvider,
} from '../internal/gen-ai-names.js';
import { traced } from '../internal/tracing.js';
import { compactAfterAnswer } from '../manager/index.js';
import { Message } from '../message/message.js';
import { checkTools } from '../models/tools.js';
import type { ChatModel } from '../models/types.js';
import { decodeResolved } from '../state/decode-state.js';
import { encodeState } from '../state/encode-state.js';
import { isEncryptedBlob } from '../state/envelope.js';
import { resolveEncrypt, resolveStateOptions } from '../state/resolve-options.js';
import type { StateKey, StateRejection } from '../state/types.js';
import type { TokenCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';
import type { Usage } from '../tokens/usage.js';
import { resolveContextPolicy, type ContextWindowOption } from './context-options.js';
import { detachedMemory } from './detached-memory.js';
import type { TurnFit } from './request-fit.js';
import { runToolLoop, toolProblem } from './tool-loop.js';
import { inputMessages, type TurnInput } from './turn-input.js';
import type { Tool, ToolContext, TurnCompactor } from './types.js';

/** Options of `chatWithState`. */
export interface ChatWithStateOptions {
  /** The system prompt of this call (never stored); leading system messages of the input are added after it. */
  readonly system?: string;
  readonly tools?: readonly Tool[];
  /** Key the state is signed (and maybe encrypted) with; see `encodeState`. */
  readonly key?: StateKey;
  /** Encrypt the new state. @default true when the given state was encrypted */
  readonly encrypt?: boolean;
  /** Largest state read and written, in bytes. @default 16 MiB */
  readonly maxBytes?: number;
  /** Compacts the history after the final answer. */
  readonly compactor?: TurnCompactor;
  /** Counter for compaction and the context window. @default tokens.estimate */
  readonly counter?: TokenCounter;
  /** Most model calls. @default 8 */
  readonly maxIterations?: number;
  /** Tool calls of one answer running at once. @default 8 */
  readonly toolConcurrency?: number;
  /** What each request holds (see `ConversationOptions.contextWindow`). @default the whole history, until the provider says it is too long */
  readonly contextWindow?: ContextWindowOption;
  /** Active memory for the tools. @default history of the state and `temp` values only */
  readonly memory?: SessionHandle;
  /** The id tools see as `context.sessionId`. @default 'state' */
  readonly sessionId?: string;
  readonly signal?: AbortSignal;
}

/** What `chatWithState` returns. */
export interface ChatWithStateResult {
  /** The final answer. */
  readonly reply: Message;
  /** The new opaque state: keep it and pass it to the next call. */
  readonly state: string;
  /** Messages this call added to the history (the input without its leading system messages, tool exchanges, the reply). */
  readonly messages: readonly Message[];
  /** Usage summed over the calls. */
  readonly usage: Usage;
  /** Model calls made. */
  readonly iterations: number;
  /** Present when the given state was unusable: the conversation started over from an empty history. */
  readonly rejected?: StateRejection;
  /** The compaction after the answer, when one ran. */
  readonly compaction?: CompactionResult;
  /** What was done to fit the requests to the model's context, when more than the window's usual work was needed. */
  readonly fitted?: TurnFit;
}

/**
 * `TOO_LARGE` after the model answered: the new state would be past `maxBytes`. The answer the
 * model was paid for is here (not in `details`, which is for logs and holds no content); the
 * caller's state is unchanged. Compact (the `compactor` option) or raise `maxBytes` and go on.
 */
export class StateTooLargeError extends InvalidInputError {
  /** The final answer. */
  readonly reply: Message;
  /** The messages the call added (input, tool exchanges, reply), as `ChatWithStateResult.messages`. */
  readonly messages: readonly Message[];
  /** Usage summed over the calls. */
  readonly usage: Usage;

  constructor(cause: ChatstateError, answer: { reply: Message; messages: readonly Message[]; usage: Usage }) {
    super(
      'TOO_LARGE',
      `chatWithState: the model answered, but ${cause.message}; the reply is on this error (reply, messages), and the given state is unchanged`,
      {
        cause,
        details: cause.details,
      },
    );
    this.reply = answer.reply;
    this.messages = answer.messages;
    this.usage = answer.usage;
  }
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `chatWithState: ${message}`);
}

function positiveInteger(value: unknown, name: string, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalid(`${name} must be a positive integer`);
  return value;
}

/** The call's system prompt: `system`, then the input's leading system messages. */
function systemOf(system: string | undefined, preamble: readonly Message[]): string | readonly Message[] | undefined {
  if (preamble.length === 0) return system;
  return system === undefined ? preamble : [Message.system(system), ...preamble];
}

/**
 * Runs one turn on the history in `state` (a blob from `encodeState` or an earlier call; `undefined`
 * or `''` to start) plus `inputs`, and returns the reply and the new state. A state that cannot be
 * used (wrong provider, version, key, or damaged) never throws: the history starts empty and
 * `rejected` says why. A failed turn throws (`ModelError`, `ABORTED`, `TOOL_LOOP_LIMIT`) and the
 * caller keeps the state it had: nothing is lost. Bad options throw `INVALID_ARGUMENT`.
 */
export async function chatWithState(
  model: ChatModel,
  state: string | undefined | null,
  inputs: TurnInput,
  options: ChatWithStateOptions = {},
): Promise<ChatWithStateResult> {
  if (typeof model !== 'object' || model === null || typeof model.complete !== 'function')
    throw invalid('needs a ChatModel');
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  // Options are checked before the blob is read: a misconfigured key must fail, not discard the history.
  const resolved = resolveStateOptions({
    provider: model.provider,
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
  });
  // `encrypt: true` without a key must fail now, not after the model was paid for.
  resolveEncrypt(options.encrypt, resolved.ring);
  if (options.system !== undefined && typeof options.system !== 'string') throw invalid('system must be a string');
  const maxIterations = positiveInteger(options.maxIterations, 'maxIterations', 8) as number;
  const toolConcurrency = positiveInteger(options.toolConcurrency, 'toolConcurrency', 8) as number;
  const counter = options.counter ?? estimate;
  const context = resolveContextPolicy(options.contextWindow, counter, options.compactor, invalid);
  const tools = options.tools ?? [];
  if (!Array.isArray(tools)) throw invalid('tools must be an array of tools with execute');
  for (const tool of tools as unknown[]) {
    const problem = toolProblem(tool);
    if (problem !== undefined) throw invalid(`tool "${String((tool as Partial<Tool> | null)?.name)}" ${problem}`);
  }
  // Names, schemas and duplicates, as `Conversation` checks them: a duplicate name would silently run the last one.
  checkTools(tools, undefined, model.provider);

  const decoded = decodeResolved(state, resolved);
  const input = inputMessages(inputs, { allowEmpty: true }).messages;
  // goaitools: the input's leading system messages are this call's preamble, never stored.
  let lead = 0;
  while (lead < input.length && isPreambleMessage(input[lead] as Message)) lead += 1;
  const added = input.slice(lead);
  const history = decoded.messages;
  // Checked before the model is paid for: a provider answers an empty conversation with a 400.
  if (history.length === 0 && added.length === 0)
    throw invalid(
      'there is nothing to answer: the state holds no history and the input no message after its system prompt',
    );
  const sessionId = options.sessionId ?? 'state';
  // Tools without a memory of their own can page through what the model is answering.
  const memory = options.memory ?? detachedMemory(sessionId, concatArrays(history, added));
  const signal = options.signal ?? new AbortController().signal;
  const contextFor = (call: { id: string }): ToolContext => ({ sessionId, toolCallId: call.id, memory, signal });
  const system = systemOf(options.system, input.slice(0, lead));

  return traced(
    OPERATION_INVOKE_AGENT,
    {
      attributes: () => ({
        [GEN_AI_OPERATION_NAME]: OPERATION_INVOKE_AGENT,
        [GEN_AI_PROVIDER_NAME]: genAiProvider(model.provider),
        [GEN_AI_REQUEST_MODEL]: model.model,
        // Only an id the caller chose names the conversation: the default 'state' names none.
        [GEN_AI_CONVERSATION_ID]: options.sessionId,
        [SESSION_ID]: options.sessionId,
      }),
    },
    async (span) => {
      const loop = await runToolLoop({
        model,
        ...(system === undefined ? {} : { system }),
        history,
        input: added,
        tools,
        maxIterations,
        toolConcurrency,
        contextFor,
        signal,
        context,
      });
      let messages: readonly Message[] = concatArrays(history, loop.messages);
      let compaction: CompactionResult | undefined;
      if (options.compactor !== undefined) {
        const lastUsage =
          loop.measured === undefined
            ? undefined
            : { ...loop.measured.usage, messageCount: loop.measured.promptLength };
        compaction = await compactAfterAnswer(options.compactor, {
          messages,
          counter,
          signal,
          ...(lastUsage === undefined ? {} : { lastUsage }),
        });
        if (compaction?.compacted === true) messages = compaction.messages;
      }
      const encrypt = options.encrypt ?? (resolved.ring !== undefined && isEncryptedBlob(state));
      let blob: string;
      try {
        blob = encodeState(messages, {
          provider: model.provider,
          ...(options.key === undefined ? {} : { key: options.key }),
          ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
          encrypt,
        });
      } catch (error) {
        if (ChatstateError.hasCode(error, 'TOO_LARGE'))
          throw new StateTooLargeError(error, { reply: loop.reply, messages: loop.messages, usage: loop.usage });
        throw error;
      }
      const result: ChatWithStateResult = {
        reply: loop.reply,
        state: blob,
        messages: loop.messages,
        usage: loop.usage,
        iterations: loop.iterations,
        ...(decoded.rejected === undefined ? {} : { rejected: decoded.rejected }),
        ...(compaction === undefined ? {} : { compaction }),
        ...(loop.fitted === undefined ? {} : { fitted: loop.fitted }),
      };
      span.set(() => ({
        [GEN_AI_USAGE_INPUT_TOKENS]: loop.usage.inputTokens,
        [GEN_AI_USAGE_OUTPUT_TOKENS]: loop.usage.outputTokens,
        [GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: loop.usage.cachedInputTokens,
      }));
      return result;
    },
  );
}
