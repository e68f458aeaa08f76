/**
 * Tool results as MCP clients read them: the answer as JSON text (what the reference memory server
 * sends) and as structured content; a failure is a tool error result (`isError`) saying the
 * chatstate error code and message, so the model reads what went wrong and the server goes on.
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ChatstateError, errorMessage } from '../errors.js';

/** A result whose text is `shown` as JSON (default: `structured`) and whose structured content is `structured`. */
export function jsonResult(structured: Record<string, unknown>, shown: unknown = structured): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(shown, null, 2) }],
    structuredContent: structured,
  };
}

/** A result that says `text`. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** The tool error result of `error`: `CODE: message` (INTERNAL for an error that is not chatstate's). */
export function errorResult(error: unknown): CallToolResult {
  const code = ChatstateError.isInstance(error) ? error.code : 'INTERNAL';
  const message = errorMessage(error);
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    structuredContent: { error: { code, message } },
    isError: true,
  };
}

/** `run` as a tool callback: its result, or its error as a tool error result (never a thrown error). */
export function guarded<A>(run: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await run(args);
    } catch (error) {
      return errorResult(error);
    }
  };
}
