/**
 * A model behind the protocol server that follows a script written in the user's words, in each
 * wire protocol the official clients speak (Chat Completions — which the `ai` provider uses too —,
 * Responses, Anthropic Messages). The server tests drive real clients with it:
 *
 * - `slow MS …` answers after MS milliseconds;
 * - `fail …` answers HTTP 500; `limit …` answers 429 with `retry-after: 7`;
 * - `tool NAME {json}` calls tool NAME with those arguments, then (given the result) answers
 *   `tool said: RESULT`;
 * - `loop …` calls a tool every time (the turn hits its iteration limit);
 * - anything else answers `echo: TEXT`.
 *
 * Each answer reports usage: 10 input tokens per message sent, 5 output tokens.
 */
import type { ReceivedRequest, ReplayedResponse, Responder } from './protocol-server.js';

/** The wire protocol of a request, by its path. */
export type Wire = 'chat' | 'responses' | 'anthropic';

type Json = Record<string, unknown>;

/** The wire of a request path, or `undefined` for a path no client of ours calls. */
export function wireOf(path: string): Wire | undefined {
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/messages')) return 'anthropic';
  return undefined;
}

/** The text of a message's content in any of the three wires (strings, or parts with `text`). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'object' && part !== null ? (part as Json).text : undefined))
    .filter((text): text is string => typeof text === 'string')
    .join('');
}

/** The messages (or Responses input items) of a request body. */
function itemsOf(wire: Wire, body: Json): Json[] {
  const items = wire === 'responses' ? body.input : body.messages;
  if (typeof items === 'string') return [{ role: 'user', content: items }];
  return Array.isArray(items) ? (items as Json[]) : [];
}

/** The text of the last user message of a request (tool results aside). */
export function lastUserText(wire: Wire, body: Json): string {
  const items = itemsOf(wire, body);
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as Json;
    if (item.role !== 'user') continue;
    const text = textOf(item.content);
    // An Anthropic user message of tool results only carries no text: keep looking.
    if (text !== '' || wire !== 'anthropic') return text;
  }
  return '';
}

/** The tool results that end a request (what the model is answering), as text. */
export function trailingToolResults(wire: Wire, body: Json): string[] {
  const items = itemsOf(wire, body);
  const last = items.at(-1);
  if (last === undefined) return [];
  if (wire === 'chat') {
    const results: string[] = [];
    for (let i = items.length - 1; i >= 0 && (items[i] as Json).role === 'tool'; i--)
      results.unshift(textOf((items[i] as Json).content));
    return results;
  }
  if (wire === 'responses') {
    const results: string[] = [];
    for (let i = items.length - 1; i >= 0 && (items[i] as Json).type === 'function_call_output'; i--)
      results.unshift(String((items[i] as Json).output));
    return results;
  }
  if (last.role !== 'user' || !Array.isArray(last.content)) return [];
  return (last.content as Json[])
    .filter((block) => block.type === 'tool_result')
    .map((block) => (typeof block.content === 'string' ? block.content : textOf(block.content)));
}

let counter = 0;

function usage(wire: Wire, messages: number): Json {
  const input = messages * 10;
  if (wire === 'chat') return { prompt_tokens: input, completion_tokens: 5, total_tokens: input + 5 };
  if (wire === 'responses')
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + 5,
    };
  return { input_tokens: input, output_tokens: 5 };
}

/** A text answer in `wire`. */
export function textAnswer(wire: Wire, text: string, body: Json = {}): Json {
  const model = typeof body.model === 'string' ? body.model : 'scripted';
  const used = usage(wire, itemsOf(wire, body).length);
  counter += 1;
  if (wire === 'chat')
    return {
      id: `chatcmpl-${counter}`,
      object: 'chat.completion',
      created: 1_741_569_952,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: used,
    };
  if (wire === 'responses')
    return {
      id: `resp_${counter}`,
      object: 'response',
      created_at: 1_741_476_542,
      status: 'completed',
      model,
      output: [
        {
          type: 'message',
          id: `msg_${counter}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      usage: used,
    };
  return {
    id: `msg_${counter}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: used,
  };
}

/** An answer in `wire` that calls tool `name` with `args`. */
export function toolCallAnswer(wire: Wire, name: string, args: Json, body: Json = {}): Json {
  const model = typeof body.model === 'string' ? body.model : 'scripted';
  const used = usage(wire, itemsOf(wire, body).length);
  counter += 1;
  const callId = `call_${counter}`;
  if (wire === 'chat')
    return {
      id: `chatcmpl-${counter}`,
      object: 'chat.completion',
      created: 1_741_569_952,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: callId, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: used,
    };
  if (wire === 'responses')
    return {
      id: `resp_${counter}`,
      object: 'response',
      created_at: 1_741_476_542,
      status: 'completed',
      model,
      output: [
        {
          type: 'function_call',
          id: `fc_${counter}`,
          call_id: callId,
          name,
          arguments: JSON.stringify(args),
          status: 'completed',
        },
      ],
      usage: used,
    };
  return {
    id: `msg_${counter}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'tool_use', id: `toolu_${counter}`, name, input: args }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: used,
  };
}

/** An error answer in `wire`'s shape. */
function errorAnswer(
  wire: Wire,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): ReplayedResponse {
  const body =
    wire === 'anthropic'
      ? { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } }
      : { error: { message, type: status === 429 ? 'tokens' : 'server_error', param: null, code: null } };
  return { status, body, headers };
}

/** The answer the script gives to `request`. */
export function scriptedAnswer(request: ReceivedRequest): ReplayedResponse | undefined {
  const wire = wireOf(request.path);
  if (wire === undefined || typeof request.body !== 'object' || request.body === null) return undefined;
  const body = request.body as Json;
  const text = lastUserText(wire, body);
  const results = trailingToolResults(wire, body);
  const [command = '', ...rest] = text.trim().split(/\s+/);
  if (command === 'slow') {
    const delayMs = Number(rest[0]);
    return { body: textAnswer(wire, `echo: ${text}`, body), delayMs: Number.isFinite(delayMs) ? delayMs : 1000 };
  }
  if (command === 'fail') return errorAnswer(wire, 500, 'The scripted model failed.');
  if (command === 'limit') return errorAnswer(wire, 429, 'Rate limit reached.', { 'retry-after': '7' });
  if (command === 'loop') return { body: toolCallAnswer(wire, 'recall', { query: 'again' }, body) };
  if (command === 'tool') {
    if (results.length > 0) return { body: textAnswer(wire, `tool said: ${results.join(' | ')}`, body) };
    const [name = 'missing', ...json] = rest;
    const args = json.length === 0 ? {} : (JSON.parse(json.join(' ')) as Json);
    return { body: toolCallAnswer(wire, name, args, body) };
  }
  return { body: textAnswer(wire, `echo: ${text}`, body) };
}

/** The script as a protocol server responder. */
export const scriptedProvider: Responder = scriptedAnswer;
