/**
 * A `ChatModel` with a context limit, for the runtime's fitting tests: it counts each prompt with
 * its own tokenizer (o200k over its own serialization, as a provider does, so its count differs
 * from chatstate's estimate), refuses a prompt over its limit with `CONTEXT_OVERFLOW` as the
 * adapters report it, and otherwise plays a tool-using agent: each user turn it calls the `read`
 * tool `toolRounds` times, then answers. The official clients against a provider server are
 * tested with the provider simulator; this one runs hundreds of turns in a second.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { ModelError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/models/types.js';

/** Options of `limitedModel`. */
export interface LimitedModelOptions {
  /** Prompt tokens (by its own count) above which a request is refused. */
  readonly limit: number;
  /** Tool calls per user turn before the answer. @default 1 */
  readonly toolRounds?: number;
  /** Whether the refusal states the limit and the prompt's size, as OpenAI and Anthropic do. @default true */
  readonly statesFigures?: boolean;
  readonly model?: string;
}

/** What the model saw. */
export interface LimitedModel extends ChatModel {
  /** Every request's prompt size by the model's count, and whether it was refused. */
  readonly calls: Array<{ readonly tokens: number; readonly refused: boolean; readonly request: ChatRequest }>;
}

const textCounts = new Map<string, number>();

function count(text: string): number {
  let tokens = textCounts.get(text);
  if (tokens === undefined) {
    tokens = countTokens(text);
    if (textCounts.size < 50_000) textCounts.set(text, tokens);
  }
  return tokens;
}

function messageTokens(message: Message): number {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = message.toolCalls?.map((call) => `${call.name}(${call.arguments})`).join('\n') ?? '';
  return 4 + count(message.role) + count(content) + (calls === '' ? 0 : count(calls));
}

/** The prompt's size as this model counts it: system, tools, messages. */
export function promptTokens(request: ChatRequest): number {
  let tokens = 3;
  if (typeof request.system === 'string') tokens += 4 + count(request.system);
  else if (request.system !== undefined) for (const message of request.system) tokens += messageTokens(message);
  if (request.tools !== undefined && request.tools.length > 0) tokens += count(JSON.stringify(request.tools));
  for (const message of request.messages) tokens += messageTokens(message);
  return tokens;
}

/** A model that refuses prompts over `options.limit` and otherwise calls `read` then answers. */
export function limitedModel(options: LimitedModelOptions): LimitedModel {
  const rounds = options.toolRounds ?? 1;
  const calls: LimitedModel['calls'] = [];
  const model = options.model ?? 'limited';
  let next = 0;
  return {
    provider: 'openaiChat',
    model,
    calls,
    complete(request: ChatRequest): Promise<ChatResponse> {
      const tokens = promptTokens(request);
      const refused = tokens > options.limit;
      calls.push({ tokens, refused, request });
      if (refused) {
        const figures = options.statesFigures === false ? {} : { limitTokens: options.limit, requestedTokens: tokens };
        return Promise.reject(
          new ModelError(
            'CONTEXT_OVERFLOW',
            `openaiChat: this model's maximum context length is ${options.limit} tokens; the messages resulted in ${tokens}`,
            { provider: 'openaiChat', retryable: false, status: 400, ...figures },
          ),
        );
      }
      // Tool results since the newest user message decide: read until `rounds` results are in.
      let results = 0;
      for (let i = request.messages.length - 1; i >= 0; i--) {
        const message = request.messages[i] as Message;
        if (message.role === 'user') break;
        if (message.role === 'tool') results += 1;
      }
      const usage = { inputTokens: tokens, outputTokens: 20 };
      if (results < rounds) {
        next += 1;
        const toolCalls = [{ id: `call_${next}`, name: 'read', arguments: JSON.stringify({ page: next }) }];
        return Promise.resolve({
          message: Message.assistant('', { toolCalls }),
          usage,
          finishReason: 'tool_calls',
          modelId: model,
        });
      }
      return Promise.resolve({
        message: Message.assistant(`Done after ${results} reads.`),
        usage,
        finishReason: 'stop',
        modelId: model,
      });
    },
  };
}
