/**
 * Runs the tool calls of one assistant answer: concurrently (up to a bound), results in call
 * order. Whatever goes wrong with one call — an unknown tool, arguments that are not JSON, a tool
 * that throws or returns something that is not JSON — becomes a tool result the model can read
 * and react to, never a failed turn. Only an abort fails the turn.
 * @module
 */
import { NOT_RECALLED } from '../active-memory/not-recalled.js';
import { errorMessage } from '../errors.js';
import {
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_NAME,
  GEN_AI_TOOL_TYPE,
  OPERATION_EXECUTE_TOOL,
} from '../internal/gen-ai-names.js';
import { traced } from '../internal/tracing.js';
import { Message } from '../message/message.js';
import type { JsonValue, ProviderName, ToolCall } from '../message/schema.js';
import { raceAbort, throwIfAborted } from './abort.js';
import type { Tool, ToolContext } from './types.js';

/** Why a tool call produced an error result (kept in the result's `metadata.toolError`). */
export type ToolErrorKind = 'unknown_tool' | 'invalid_arguments' | 'failed' | 'invalid_result';

/** What `runToolCalls` needs. */
export interface RunToolsOptions {
  /** Tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** The context of one call. */
  readonly contextFor: (call: ToolCall) => ToolContext;
  /** Calls running at once. */
  readonly concurrency: number;
  readonly signal: AbortSignal | undefined;
  /** For the `ABORTED` error. */
  readonly provider: ProviderName;
}

function errorResult(call: ToolCall, kind: ToolErrorKind, text: string, tool?: Tool): Message {
  return Message.tool(call.id, `Error: ${text}`, {
    name: call.name,
    metadata: { toolError: kind, ...(tool?.recall === false ? NOT_RECALLED : {}) },
  });
}

/** The content of a tool result: a string as is, any other JSON value as JSON text. */
function resultText(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  // A tool that returns nothing still answers its call.
  const text = JSON.stringify(value ?? null) as string | undefined;
  if (typeof text !== 'string') throw new TypeError('the result is not a JSON value');
  return text;
}

/** One call in an `execute_tool {tool}` span; a call whose result is an error marks the span failed with its kind. */
function runTraced(call: ToolCall, options: RunToolsOptions): Promise<Message> {
  return traced(
    `${OPERATION_EXECUTE_TOOL} ${call.name}`,
    {
      attributes: () => ({
        [GEN_AI_OPERATION_NAME]: OPERATION_EXECUTE_TOOL,
        [GEN_AI_TOOL_NAME]: call.name,
        [GEN_AI_TOOL_CALL_ID]: call.id,
        [GEN_AI_TOOL_TYPE]: 'function',
      }),
    },
    async (span) => {
      const result = await runOne(call, options);
      const kind = result.metadata.toolError;
      if (typeof kind === 'string') span.fail(kind, `${call.name}: ${kind}`);
      return result;
    },
  );
}

async function runOne(call: ToolCall, options: RunToolsOptions): Promise<Message> {
  const tool = options.tools.get(call.name);
  if (tool === undefined) {
    const known = [...options.tools.keys()];
    const hint = known.length === 0 ? 'no tools are available' : `available tools: ${known.join(', ')}`;
    return errorResult(call, 'unknown_tool', `there is no tool named ${JSON.stringify(call.name)}; ${hint}.`);
  }
  let args: JsonValue;
  try {
    args = JSON.parse(call.arguments === '' ? '{}' : call.arguments) as JsonValue;
  } catch (error) {
    return errorResult(
      call,
      'invalid_arguments',
      `the arguments of ${call.name} are not valid JSON (${errorMessage(error)}); send one JSON object that matches its parameters.`,
      tool,
    );
  }
  let value: JsonValue;
  try {
    value = await raceAbort(
      Promise.resolve().then(() => tool.execute(args, options.contextFor(call))),
      options.signal,
      options.provider,
    );
  } catch (error) {
    // A tool failing because the turn was aborted is the abort, not a result for the model.
    throwIfAborted(options.signal, options.provider);
    return errorResult(call, 'failed', `${call.name} failed: ${errorMessage(error)}`, tool);
  }
  try {
    return Message.tool(call.id, resultText(value), {
      name: call.name,
      ...(tool.recall === false ? { metadata: NOT_RECALLED } : {}),
    });
  } catch (error) {
    // Not JSON (a BigInt, a cycle) or too large for a message: the model hears why.
    return errorResult(
      call,
      'invalid_result',
      `the result of ${call.name} could not be sent: ${errorMessage(error)}`,
      tool,
    );
  }
}

/** Runs `calls` (at most `concurrency` at once) and returns one tool message per call, in call order. */
export async function runToolCalls(calls: readonly ToolCall[], options: RunToolsOptions): Promise<Message[]> {
  const results = new Array<Message>(calls.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (failure === undefined && next < calls.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await runTraced(calls[index] as ToolCall, options);
      } catch (error) {
        // The first abort ends every worker: no new call starts after it.
        failure ??= { error };
      }
    }
  }
  const workers = Math.max(1, Math.min(options.concurrency, calls.length));
  await Promise.all(Array.from({ length: workers }, () => worker()));
  if (failure !== undefined) throw failure.error;
  return results;
}
