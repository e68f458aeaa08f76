/**
 * Turns whatever an official client threw into one `ModelError`, so callers see the same codes for
 * every provider: `ABORTED` for the caller's signal, `RATE_LIMITED` for 429, `MODEL_FAILED` else.
 * @module
 */
import { ChatstateError, ModelError, errorMessage } from '../errors.js';
import type { ProviderName } from '../message/schema.js';

function field(error: unknown, name: string): unknown {
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    return (error as Record<string, unknown>)[name];
  } catch {
    return undefined; // a hostile getter must not turn error reporting into a second failure
  }
}

function statusOf(error: unknown): number | undefined {
  // openai / @anthropic-ai/sdk put it in `status`, the `ai` package in `statusCode`.
  for (const name of ['status', 'statusCode']) {
    const value = field(error, name);
    if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value < 600) return value;
  }
  return undefined;
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true) return true;
  const name = field(error, 'name');
  return name === 'AbortError' || name === 'APIUserAbortError' || name === 'ResponseAborted';
}

/** Longest wait a `retry-after` is believed for (a day): anything longer is a misread header. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** One response header of a client's error: `headers` (a `Headers`, openai and @anthropic-ai/sdk) or `responseHeaders` (a record, `ai`). */
function header(error: unknown, name: string): string | undefined {
  const headers = field(error, 'headers') ?? field(error, 'responseHeaders');
  if (typeof headers !== 'object' || headers === null) return undefined;
  try {
    const value =
      typeof (headers as Headers).get === 'function'
        ? (headers as Headers).get(name)
        : (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The wait the provider asked for, in milliseconds: `retry-after-ms` (OpenAI), else `retry-after`
 * in seconds or as an HTTP date. `undefined` without one, or for one that cannot be read.
 */
function retryAfterOf(error: unknown): number | undefined {
  const ms = header(error, 'retry-after-ms');
  let wait = ms === undefined ? undefined : Number(ms);
  if (wait === undefined || !Number.isFinite(wait)) {
    const after = header(error, 'retry-after')?.trim();
    if (after === undefined || after === '') return undefined;
    wait = /^\d+(?:\.\d+)?$/.test(after) ? Number(after) * 1000 : Date.parse(after) - Date.now();
  }
  if (!Number.isFinite(wait)) return undefined;
  return Math.min(Math.max(0, Math.ceil(wait)), MAX_RETRY_AFTER_MS);
}

/** `true` for failures a later identical call may not hit: 408, 409, 429, 5xx, or no HTTP answer at all. */
function retryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The `ModelError` for a failed call of `provider`'s client (a `ChatstateError` passes through). */
export function toModelError(error: unknown, provider: ProviderName, signal?: AbortSignal): ChatstateError {
  if (ChatstateError.isInstance(error)) return error;
  const requestIdValue = field(error, 'requestID') ?? field(error, 'request_id');
  const requestId = typeof requestIdValue === 'string' ? requestIdValue : undefined;
  if (isAbort(error, signal)) {
    return new ModelError(
      'ABORTED',
      `${provider}: the model call was aborted`,
      { provider, retryable: false, ...(requestId ? { requestId } : {}) },
      { cause: error },
    );
  }
  const status = statusOf(error);
  const sdkRetryable = field(error, 'isRetryable');
  const retryable = typeof sdkRetryable === 'boolean' ? sdkRetryable : retryableStatus(status);
  const retryAfterMs = retryAfterOf(error);
  const details = {
    provider,
    retryable,
    ...(status === undefined ? {} : { status }),
    ...(requestId ? { requestId } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
  const what = status === undefined ? 'the model call failed' : `the model call failed with HTTP ${status}`;
  return new ModelError(
    status === 429 ? 'RATE_LIMITED' : 'MODEL_FAILED',
    `${provider}: ${what}: ${errorMessage(error)}`,
    details,
    { cause: error },
  );
}

/** A `MODEL_FAILED` error for an answer the adapter could not read (never retryable: the same call gives the same answer). */
export function unreadableAnswer(provider: ProviderName, why: string, cause?: unknown): ModelError {
  return new ModelError(
    'MODEL_FAILED',
    `${provider}: the model's answer could not be read: ${why}`,
    { provider, retryable: false },
    { cause },
  );
}
