/**
 * Turns whatever an official client threw into one `ModelError`, so callers see the same codes for
 * every provider: `ABORTED` for the caller's signal, `RATE_LIMITED` for 429, `CONTEXT_OVERFLOW` for
 * a request longer than the model's context window, `MODEL_FAILED` else.
 * @module
 */
import { ChatstateError, ModelError, errorMessage, type ModelErrorDetails } from '../errors.js';
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

/** What a provider said of a request longer than the model's context window: its figures, when it gave them. */
export interface ContextOverflow {
  /** The context window in tokens. */
  readonly limitTokens?: number;
  /** The tokens the provider counted against it. */
  readonly requestedTokens?: number;
}

/** Provider messages longer than this are read only this far: the words that matter come first. */
const MAX_TEXT = 10_000;

// The codes of an overflow: OpenAI's `context_length_exceeded` (Chat Completions and Responses, in the
// error body and in a failed response), Anthropic's 413 `request_too_large` (bytes, not tokens).
const OVERFLOW_CODES: ReadonlySet<string> = new Set(['context_length_exceeded', 'request_too_large']);

// The providers' words for an overflow, for bodies without such a code (Anthropic's 400, Gemini's
// INVALID_ARGUMENT) and for OpenAI-compatible servers that copy OpenAI's message without its code.
const OVERFLOW_WORDS: readonly RegExp[] = [
  /maximum context length is/i, // OpenAI Chat Completions
  /exceeds the context window/i, // OpenAI Responses
  /prompt is too long/i, // Anthropic
  /exceed context limit/i, // Anthropic: input length and `max_tokens` exceed context limit
  /input token count.{0,40}exceeds the maximum number of tokens/i, // Gemini
];

// A figure as providers print it: digits, or digits in groups of three with commas. Anything else
// (a stray comma, a decimal point) fails the whole pattern, so a figure is never half read.
const N = String.raw`(\d{1,3}(?:,\d{3})+|\d+)`;

/** One figure of an overflow message: which one, and the pattern whose groups add up to it. */
interface FigurePattern {
  readonly figure: keyof ContextOverflow;
  readonly pattern: RegExp;
}

const FIGURES: readonly FigurePattern[] = [
  // "This model's maximum context length is 128000 tokens. However, your messages resulted in 130123 tokens."
  { figure: 'limitTokens', pattern: new RegExp(String.raw`maximum context length is ${N} tokens`, 'i') },
  // "… However, you requested 4268 tokens (4012 in the messages, 256 in the completion)."
  {
    figure: 'requestedTokens',
    pattern: new RegExp(String.raw`(?:your messages resulted in|you requested) ${N} tokens`, 'i'),
  },
  // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"
  { figure: 'requestedTokens', pattern: new RegExp(String.raw`prompt is too long: ${N} tokens >`, 'i') },
  { figure: 'limitTokens', pattern: new RegExp(String.raw`prompt is too long: \S+ tokens > ${N} maximum`, 'i') },
  // Anthropic: "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648"
  { figure: 'requestedTokens', pattern: new RegExp(String.raw`exceed context limit: ${N} \+ ${N} >`, 'i') },
  { figure: 'limitTokens', pattern: new RegExp(String.raw`exceed context limit: \S+ \+ \S+ > ${N}`, 'i') },
  // Gemini: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."
  { figure: 'requestedTokens', pattern: new RegExp(String.raw`input token count \(${N}\)`, 'i') },
  {
    figure: 'limitTokens',
    pattern: new RegExp(String.raw`exceeds the maximum number of tokens allowed \(${N}\)`, 'i'),
  },
];

/** A path of fields from a thrown value, each read through `field` (hostile getters read as absent). */
function at(value: unknown, ...path: readonly string[]): unknown {
  return path.reduce<unknown>((current, name) => field(current, name), value);
}

/** The JSON body an `ai` APICallError kept as text (`responseBody`), parsed; `undefined` when it is not JSON. */
function responseBodyOf(error: unknown): unknown {
  const text = field(error, 'responseBody');
  if (typeof text !== 'string' || text.length > 1_000_000) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The sum of the figures `match` caught, or `undefined` when one is missing or the sum is not a safe integer. */
function figureOf(match: RegExpExecArray | null): number | undefined {
  if (match === null) return undefined;
  let sum = 0;
  for (const digits of match.slice(1)) {
    const value = digits === undefined ? Number.NaN : Number(digits.replaceAll(',', ''));
    sum += value;
  }
  return Number.isSafeInteger(sum) && sum > 0 ? sum : undefined;
}

/**
 * The overflow a client's error (or a failed response's `error` object) reports, with the figures
 * the provider gave, or `undefined` when it is not one. A 429 never is (OpenAI's 429 "Request too
 * large … tokens per min" is a rate limit), nor a 5xx: only a 4xx or an error without a status.
 */
export function contextOverflowOf(error: unknown): ContextOverflow | undefined {
  const status = statusOf(error);
  if (status !== undefined && (status < 400 || status >= 500 || status === 429)) return undefined;
  // Where each client keeps the provider's body: openai's `error` is the body's `error` object,
  // @anthropic-ai/sdk's `error` the whole body, ai's `data` the parsed body and `responseBody` its text.
  const bodies = [error, field(error, 'error'), at(error, 'error', 'error'), at(error, 'data', 'error')];
  const body = responseBodyOf(error);
  bodies.push(body, field(body, 'error'));
  const codes = bodies.flatMap((value) => [field(value, 'code'), field(value, 'type')]);
  const texts = [...bodies.map((value) => field(value, 'message')), field(error, 'apiMessage')]
    .filter((text): text is string => typeof text === 'string')
    .map((text) => text.slice(0, MAX_TEXT));
  const overflowing =
    status === 413 ||
    codes.some((code) => typeof code === 'string' && OVERFLOW_CODES.has(code)) ||
    texts.some((text) => OVERFLOW_WORDS.some((words) => words.test(text)));
  if (!overflowing) return undefined;
  const overflow: { -readonly [K in keyof ContextOverflow]: number } = {};
  for (const { figure, pattern } of FIGURES) {
    if (overflow[figure] !== undefined) continue;
    for (const text of texts) {
      const value = figureOf(pattern.exec(text));
      if (value !== undefined) {
        overflow[figure] = value;
        break;
      }
    }
  }
  return overflow;
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
  const overflow = contextOverflowOf(error);
  if (overflow !== undefined) return contextOverflowError(provider, overflow, errorMessage(error), details, error);
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

/**
 * The `CONTEXT_OVERFLOW` error for a request the provider found longer than the model's context
 * window: never retryable, since the same request overflows again; it must be made shorter.
 */
export function contextOverflowError(
  provider: ProviderName,
  overflow: ContextOverflow,
  providerMessage: string,
  details: Omit<ModelErrorDetails, 'provider' | 'retryable'> = {},
  cause?: unknown,
): ModelError {
  const { limitTokens, requestedTokens } = overflow;
  const figures =
    limitTokens === undefined
      ? ''
      : requestedTokens === undefined
        ? ` of ${limitTokens} tokens`
        : ` (${requestedTokens} tokens > ${limitTokens})`;
  return new ModelError(
    'CONTEXT_OVERFLOW',
    `${provider}: the request does not fit the model's context window${figures}: ${providerMessage}`,
    { ...details, ...overflow, provider, retryable: false },
    { cause },
  );
}
