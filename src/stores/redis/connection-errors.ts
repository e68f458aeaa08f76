/**
 * Which failures of a Redis client mean "the server cannot be reached right now" (the connection
 * was refused, reset, closed or timed out, or the server is loading its data or busy), as opposed
 * to an error reply about the command itself (`NOSCRIPT`, a Lua error, `WRONGTYPE`), which the
 * driver handles as it always did. The one place that knows `ioredis`'s messages.
 * @module
 */
import { fieldOf, findFailure, socketFailure, type ConnectionFailure } from '../network.js';

/** Why a connection failed, in the words of `UnavailableError`'s `reason`. */
export type RedisFailureReason = 'CONNECTION' | 'TIMEOUT' | 'LOADING' | 'BUSY';

/** A connection-level failure of Redis: why, and whether the command certainly never ran. */
export type RedisConnectionFailure = ConnectionFailure<RedisFailureReason>;

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
  // Redis Cluster: the cluster (or the slot's master) is down, or a slot is moving; no command ran.
  [/^CLUSTERDOWN\b/, 'CONNECTION', true],
  [/^TRYAGAIN\b/, 'CONNECTION', true],
  // ioredis's Cluster: no node map yet, or none of its nodes answers; nothing was sent.
  [/^Cluster isn't ready/, 'CONNECTION', true],
  [/^Failed to refresh slots cache/, 'CONNECTION', true],
  [/^None of startup nodes is available/, 'CONNECTION', true],
  [/^Cluster is ended/, 'CONNECTION', true],
  // Redirected until ioredis gave up: the last node may have run the command.
  [/^Too many Cluster redirections/, 'CONNECTION', false],
  // A script stopped by a cluster that went down while it ran: what it wrote before is unknown.
  [/Script attempted to execute a (?:write )?command while the cluster is down/, 'CONNECTION', false],
];

/** The connection-level failure `error` itself is (not its causes). */
function classify(error: object): RedisConnectionFailure | undefined {
  const name = fieldOf(error, 'name');
  if (name === 'MaxRetriesPerRequestError') return { reason: 'CONNECTION', notSent: false };
  if (name === 'ClusterAllFailedError') return { reason: 'CONNECTION', notSent: true };
  const message = fieldOf(error, 'message');
  if (typeof message === 'string') {
    for (const [pattern, reason, notSent] of MESSAGES) if (pattern.test(message)) return { reason, notSent };
  }
  return socketFailure(fieldOf(error, 'code'));
}

/** The connection-level failure `error` is, or undefined for anything else (error replies included). */
export function redisConnectionFailure(error: unknown): RedisConnectionFailure | undefined {
  return findFailure(error, classify);
}
