/**
 * Which failures of a Redis client mean "the server cannot be reached right now" (the connection
 * was refused, reset, closed or timed out, or the server is loading its data or busy), as opposed
 * to an error reply about the command itself (`NOSCRIPT`, a Lua error, `WRONGTYPE`), which the
 * driver handles as it always did. The one place that knows `ioredis`'s messages.
 * @module
 */

/** Why a connection failed, in the words of `UnavailableError`'s `reason`. */
export type RedisFailureReason = 'CONNECTION' | 'TIMEOUT' | 'LOADING' | 'BUSY';

/** A connection-level failure: why, and whether the command certainly never ran. */
export interface RedisConnectionFailure {
  readonly reason: RedisFailureReason;
  /** True when the command was not written, or the server refused to run it: it cannot have taken effect. */
  readonly notSent: boolean;
}

// Socket errors of Node: the peer refused, reset or vanished. Only ECONNREFUSED proves nothing was sent.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ECONNABORTED', 'EAI_AGAIN']);

// What ioredis says, and the replies of a server that refuses every command for now.
const MESSAGES: ReadonlyArray<readonly [RegExp, RedisFailureReason, boolean]> = [
  [/^Stream isn't writeable/, 'CONNECTION', true],
  [/^Connection is closed/, 'CONNECTION', false],
  [/^Command aborted due to connection close/, 'CONNECTION', false],
  [/^Reached the max retries per request limit/, 'CONNECTION', false],
  [/^Command timed out/, 'TIMEOUT', false],
  [/^Socket timeout/, 'TIMEOUT', false],
  [/^connect ETIMEDOUT/, 'TIMEOUT', true],
  // Redis is loading its dataset (after a restart, from the AOF or RDB) and runs no command.
  [/^LOADING\b/, 'LOADING', true],
  // A script ran past lua-time-limit: Redis refuses other commands until it ends.
  [/^BUSY\b/, 'BUSY', true],
  [/^MASTERDOWN\b/, 'CONNECTION', true],
];

function fieldOf(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

/** The connection-level failure `error` is, or undefined for anything else (error replies included). */
export function redisConnectionFailure(error: unknown, depth = 0): RedisConnectionFailure | undefined {
  if (depth > 3 || typeof error !== 'object' || error === null) return undefined;
  if (fieldOf(error, 'name') === 'MaxRetriesPerRequestError') return { reason: 'CONNECTION', notSent: false };
  const message = fieldOf(error, 'message');
  if (typeof message === 'string') {
    for (const [pattern, reason, notSent] of MESSAGES) if (pattern.test(message)) return { reason, notSent };
  }
  const code = fieldOf(error, 'code');
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return { reason: code === 'ETIMEDOUT' ? 'TIMEOUT' : 'CONNECTION', notSent: code === 'ECONNREFUSED' };
  // Node reports a refused connection to every address of a host as an AggregateError.
  const errors = fieldOf(error, 'errors');
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = redisConnectionFailure(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return redisConnectionFailure(fieldOf(error, 'cause'), depth + 1);
}
