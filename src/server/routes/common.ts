/**
 * Pieces every route definition uses: a JSON response and the error responses it may give; and
 * the few helpers that let a handler's answer type-check against its route's response schema
 * where the library's types say less than its values hold (`sent`: readonly values; `stored`:
 * stored messages' seq; `sessionBody`: a session's JSON) or the body is bytes (`storedJson`).
 * @module
 */
import type { z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';
import type { Message } from '../../message/message.js';
import type { Session } from '../../session/session.js';
import type { DeepReadonly } from '../api-types.js';
import { errorSchema } from '../schemas.js';

/** A JSON response of `schema`. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}

/** A required JSON request body of `schema`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { 'application/json': { schema } }, required: true } as const;
}

const ERROR_DESCRIPTIONS = {
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
} as const;

/** A status a route may answer with an error body. */
export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** The error responses `statuses`, each with the one error body, keyed by exactly those statuses (for the route's types). */
export function errors<const S extends readonly ErrorStatus[]>(
  ...statuses: S
): { [Status in S[number]]: ReturnType<typeof json<typeof errorSchema>> } {
  // Object.fromEntries forgets its keys; they are `statuses`, one each.
  return Object.fromEntries(statuses.map((status) => [status, json(errorSchema, ERROR_DESCRIPTIONS[status])])) as {
    [Status in S[number]]: ReturnType<typeof json<typeof errorSchema>>;
  };
}

/**
 * `body` as the response body of `schema`: checked against the schema's shape, readonly or not.
 * The library's values are deeply readonly while zod infers mutable types, and JSON does not tell
 * the two apart; this is the one place the server says so, instead of a cast in every handler.
 */
export function sent<S extends z.ZodType>(_schema: S, body: DeepReadonly<z.output<S>>): z.output<S> {
  return body as z.output<S>;
}

/**
 * A JSON answer of bytes sent as they are (a session as the store serialized it: a large one is
 * never parsed and serialized again), typed as the route's JSON response of `schema`. The one
 * body whose shape types cannot check: the store wrote it from that shape, and the OpenAPI
 * conformance tests check it against the document.
 */
export function storedJson<S extends z.ZodType, U extends ContentfulStatusCode>(
  c: Context,
  _schema: S,
  bytes: Uint8Array,
  status: U,
): Response & TypedResponse<JSONParsed<z.output<S>>, U, 'json'> {
  // Node's Buffer is a Uint8Array over an ArrayBufferLike; a Response body wants an ArrayBuffer's.
  const response: Response = c.body(bytes as Uint8Array<ArrayBuffer>, status, { 'Content-Type': 'application/json' });
  return response as Response & TypedResponse<JSONParsed<z.output<S>>, U, 'json'>;
}

/** A message as a store returns it: with its sequence number. */
export type StoredMessage = Message & { readonly seq: number };

/**
 * Messages typed as a store returns them. A store gives every message it stores or returns a
 * sequence number; the `Message` type leaves it optional for messages not stored yet.
 */
export function stored(message: Message): StoredMessage;
export function stored(messages: readonly Message[]): readonly StoredMessage[];
export function stored(value: Message | readonly Message[]): StoredMessage | readonly StoredMessage[] {
  return value as StoredMessage | readonly StoredMessage[];
}

/**
 * A stored session's JSON form, typed field by field: `toJSON` is typed as what `Session.fromJSON`
 * reads (messages and values unchecked), but its messages, variables and metadata are the
 * session's own, so they are given here as the session types them (the same values, the same JSON).
 */
export function sessionBody(session: Session) {
  return {
    ...session.toJSON(),
    messages: stored(session.messages),
    variables: session.variables,
    metadata: session.metadata,
  };
}
