/**
 * A scripted `ChatModel` for unit tests of the runtime loop: it answers a fixed list of steps in
 * order and records every request. A `ChatModel` is a collaborator users implement; the real
 * adapters are tested end to end against the protocol server.
 */
import { Message } from '../../src/message/message.js';
import type { ProviderName } from '../../src/message/schema.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/models/types.js';
import type { Usage } from '../../src/tokens/usage.js';

/** One scripted answer: a response, an error to throw, or a function of the request. */
export type ScriptStep =
  ChatResponse | { readonly error: unknown } | ((request: ChatRequest) => ChatResponse | Promise<ChatResponse>);

/** A scripted model and what it was asked. */
export interface ScriptedModel extends ChatModel {
  /** Every request received, in order. */
  readonly requests: ChatRequest[];
  /** Steps not used yet. */
  readonly remaining: number;
  /** Adds steps at the end of the script. */
  push(...steps: ScriptStep[]): void;
}

/** A model answering `steps` in order; past the end it throws (a test asked for more calls than it meant to). */
export function scriptedModel(
  steps: readonly ScriptStep[] = [],
  options: { provider?: ProviderName; model?: string } = {},
): ScriptedModel {
  const queue = [...steps];
  const requests: ChatRequest[] = [];
  return {
    provider: options.provider ?? 'openaiChat',
    model: options.model ?? 'scripted',
    requests,
    get remaining() {
      return queue.length;
    },
    push: (...more) => void queue.push(...more),
    async complete(request) {
      requests.push(request);
      const step = queue.shift();
      if (step === undefined) throw new Error(`scripted model: no answer left for call ${requests.length}`);
      if (typeof step === 'function') return step(request);
      if ('error' in step) throw step.error;
      return step;
    },
  };
}

/** A final answer with `text`. */
export function say(text: string, usage: Usage = { inputTokens: 10, outputTokens: 5 }): ChatResponse {
  return { message: Message.assistant(text), usage, finishReason: 'stop' };
}

/** An answer asking for tool calls; `arguments` may be a value (sent as JSON) or raw text. */
export function callTools(
  calls: ReadonlyArray<{ id?: string; name: string; arguments?: unknown; raw?: string }>,
  usage: Usage = { inputTokens: 10, outputTokens: 5 },
): ChatResponse {
  const toolCalls = calls.map((call, index) => ({
    id: call.id ?? `call_${index + 1}_${Math.random().toString(36).slice(2, 8)}`,
    name: call.name,
    arguments: call.raw ?? JSON.stringify(call.arguments ?? {}),
  }));
  return { message: Message.assistant('', { toolCalls }), usage, finishReason: 'tool_calls' };
}

/** A step that waits for the request's signal to abort, then throws as an aborted client does. */
export function waitForAbort(): ScriptStep {
  return (request) =>
    new Promise<ChatResponse>((_, reject) => {
      const signal = request.signal;
      if (signal === undefined) {
        reject(new Error('waitForAbort: the request has no signal'));
        return;
      }
      const fail = (): void => reject(Object.assign(new Error('Request was aborted.'), { name: 'AbortError' }));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
}
