/**
 * One JSON shape for every error the server answers — `{ code, message, details }` — and one HTTP
 * status for each error code, in one table.
 * @module
 */
import { ChatstateError, errorMessage, type ErrorCode } from '../errors.js';
import { etagOf } from './etag.js';

/** The HTTP status of each error code. */
export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  INVALID_MESSAGE: 400,
  INVALID_SESSION: 400,
  INVALID_ID: 400,
  INVALID_ARGUMENT: 400,
  STATE_REJECTED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TOO_LARGE: 413,
  PROVIDER_RULE: 422,
  TOOL_LOOP_LIMIT: 422,
  // The request is valid but too long for the model: retrying it as it is cannot help (not a 502, which is retryable).
  CONTEXT_OVERFLOW: 422,
  RATE_LIMITED: 429,
  // The store holds data this server cannot read: damage, or keys that do not open it.
  CORRUPT: 500,
  WRONG_KEY: 500,
  MISSING_COLLABORATOR: 500,
  MISSING_DEPENDENCY: 500,
  ARCHIVE_FAILED: 500,
  TOOL_FAILED: 500,
  INTERNAL: 500,
  UNSUPPORTED: 501,
  MODEL_FAILED: 502,
  SUMMARY_FAILED: 502,
  UNAVAILABLE: 503,
  STORAGE_FAILED: 503,
  CLOSED: 503,
  ABORTED: 503,
});

/** Seconds a client should wait before retrying a 503 (the `Retry-After` header). */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The `Retry-After` of an answer: a fixed wait for a 503 (the store, or this server, is not
 * available now), and for a 429 the wait the model provider asked for, when it asked.
 */
function retryAfter(status: number, details: Readonly<Record<string, unknown>>): Record<string, string> {
  if (status === 503) return { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  const wait = details['retryAfterMs'];
  if (status === 429 && typeof wait === 'number' && Number.isFinite(wait) && wait >= 0)
    return { 'Retry-After': String(Math.ceil(wait / 1000)) };
  return {};
}

/** The body of every error answer. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** An error answer: its status, body and headers. */
export interface ErrorAnswer {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The answer for `error`. A chatstate error keeps its code and details; anything else is an
 * `INTERNAL` 500 whose message says nothing of the server's insides (the log has the stack).
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (!ChatstateError.isInstance(error)) {
    return {
      status: 500,
      body: { code: 'INTERNAL', message: 'Internal server error', details: {} },
      headers: {},
    };
  }
  const status = STATUS_OF_CODE[error.code] ?? 500;
  const headers: Record<string, string> = { ...retryAfter(status, error.details) };
  // A version conflict names the session's version now: the client retries with it as If-Match, no read needed.
  const actual = error.details.actual;
  if (error.code === 'CONFLICT' && typeof actual === 'number' && Number.isSafeInteger(actual))
    headers.ETag = etagOf(actual);
  return { status, body: { code: error.code, message: errorMessage(error), details: error.details }, headers };
}
