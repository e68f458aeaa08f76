/**
 * Pieces every route definition uses: a JSON response and the error responses it may give.
 * @module
 */
import type { z } from '@hono/zod-openapi';
import { errorSchema } from '../schemas.js';

/** A JSON response of `schema`. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}

/** A required JSON request body of `schema`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { 'application/json': { schema } }, required: true } as const;
}

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input (INVALID_ARGUMENT, INVALID_ID, INVALID_MESSAGE, …)',
  401: 'No key, or a key the server does not know (UNAUTHORIZED)',
  403: 'The key may not do this (FORBIDDEN)',
  404: 'No such session, or not the caller’s (NOT_FOUND)',
  409: 'A concurrent write came first (CONFLICT)',
  412: 'If-Match names a version that is not the session’s (CONFLICT); ETag gives the session’s version now',
  413: 'The body is too large (TOO_LARGE)',
  422: 'The model still asked for tools after the agent’s most model calls (TOOL_LOOP_LIMIT), broke a provider rule (PROVIDER_RULE), or the request is longer than the model’s context window (CONTEXT_OVERFLOW)',
  429: 'The model provider is rate limiting (RATE_LIMITED); Retry-After says how long, when the provider did',
  501: 'This server is not set up for this (UNSUPPORTED): no state key, or no agents',
  502: 'The model call failed (MODEL_FAILED)',
  503: 'The store cannot be reached now (UNAVAILABLE), the server is closing (CLOSED), or the turn was aborted (ABORTED); retry after Retry-After',
};

/** The error responses `statuses`, each with the one error body. */
export function errors(...statuses: readonly number[]): Record<number, ReturnType<typeof json<typeof errorSchema>>> {
  return Object.fromEntries(
    statuses.map((status) => [status, json(errorSchema, ERROR_DESCRIPTIONS[status] ?? 'Error')]),
  );
}
