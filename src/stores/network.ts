/**
 * What the server stores (Postgres, Redis) share about their connections: their URLs, their
 * timeouts, the socket errors that mean a server cannot be reached, the walk through wrapped errors
 * that finds one, the error that says so, and waits that end in bounded time without keeping the
 * process alive.
 * @module
 */
import { InvalidInputError, UnavailableError, errorMessage } from '../errors.js';

/**
 * A store's connection URL, parsed; `INVALID_ARGUMENT` when it is not a URL or its scheme is not one
 * of `protocols` (e.g. `['redis:', 'rediss:']`). The URL is never echoed: it may carry a password.
 */
export function parseConnectionUrl(url: string, store: string, protocols: readonly string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: the connection URL is not a valid URL`, {
      cause: error,
    });
  }
  if (!protocols.includes(parsed.protocol)) {
    const expected = protocols.map((protocol) => `${protocol}//`).join(' or ');
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: expected a ${expected} URL, got ${parsed.protocol}`);
  }
  return parsed;
}

/** How long a server store waits, in milliseconds. */
export interface ConnectionLimits {
  /** For a connection: a pooled one to be free, or a new one to connect, start up and be ready. */
  readonly connectTimeoutMs: number;
  /** For the answer to one statement or command. */
  readonly commandTimeoutMs: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

/** A store's timeout options with their defaults; `INVALID_ARGUMENT` naming `store` when one is not a positive integer. */
export function connectionLimits(
  store: string,
  options: { readonly connectTimeoutMs?: number; readonly commandTimeoutMs?: number },
): ConnectionLimits {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  for (const [name, value] of [
    ['connectTimeoutMs', connectTimeoutMs],
    ['commandTimeoutMs', commandTimeoutMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new InvalidInputError('INVALID_ARGUMENT', `${store}: ${name} must be a positive integer`);
  }
  return { connectTimeoutMs, commandTimeoutMs };
}

/** A connection-level failure: why, and whether the request certainly never reached the server. */
export interface ConnectionFailure<Reason extends string> {
  readonly reason: Reason;
  /** True when the request was not sent, or the server refused to run it: it cannot have taken effect. */
  readonly notSent: boolean;
}

// Socket errors of Node: the peer refused, reset or vanished. Only ECONNREFUSED proves nothing was sent.
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ECONNABORTED',
  'EAI_AGAIN',
]);

/**
 * `UNAVAILABLE` for a server `store` could not reach while doing `what`: the failure's reason, and
 * whether the request cannot have taken effect (`not-applied`) or may have (`unknown`).
 */
export function unreachable(
  store: string,
  failure: ConnectionFailure<string>,
  outcome: 'not-applied' | 'unknown',
  cause: unknown,
  what: string,
): UnavailableError {
  return new UnavailableError(
    `${store}: the server cannot be reached (${what}): ${errorMessage(cause)}`,
    { store, reason: failure.reason, outcome },
    { cause },
  );
}

/** The failure a Node socket error code stands for, or undefined when `code` is not one. */
export function socketFailure(code: unknown): ConnectionFailure<'CONNECTION' | 'TIMEOUT'> | undefined {
  if (typeof code !== 'string' || !SOCKET_CODES.has(code)) return undefined;
  return { reason: code === 'ETIMEDOUT' ? 'TIMEOUT' : 'CONNECTION', notSent: code === 'ECONNREFUSED' };
}

/** A field of a thrown value, whatever it is. */
export function fieldOf(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

/** The failure `classify` finds in `error`, in the errors it aggregates (Node's refusal by every address of a host) or in its causes, a few levels deep. */
export function findFailure<T>(error: unknown, classify: (error: object) => T | undefined, depth = 0): T | undefined {
  if (depth > 3 || typeof error !== 'object' || error === null) return undefined;
  const found = classify(error);
  if (found !== undefined) return found;
  const errors = fieldOf(error, 'errors');
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const nested = findFailure(inner, classify, depth + 1);
      if (nested !== undefined) return nested;
    }
  }
  return findFailure(fieldOf(error, 'cause'), classify, depth + 1);
}

/** `promise`, or a rejection with `error()` once `ms` have passed; its timer never keeps the process alive and is cleared as soon as either settles. */
export async function withinDeadline<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(error()), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
