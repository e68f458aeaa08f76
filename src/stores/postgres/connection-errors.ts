/**
 * Which failures of `pg` mean "the server cannot be reached right now" (the connection was
 * refused, reset, timed out or shut down), as opposed to an error the server reported about the
 * SQL itself (a constraint, a syntax error, a missing table), which the driver passes on or
 * translates as it always did. The one place that knows `pg`'s messages and the SQLSTATEs of a
 * dying server.
 * @module
 */
import { fieldOf, findFailure, socketFailure, type ConnectionFailure } from '../network.js';

/** Why a connection failed, in the words of `UnavailableError`'s `reason`. */
export type PostgresFailureReason = 'CONNECTION' | 'TIMEOUT' | 'SHUTDOWN' | 'STARTING' | 'TOO_MANY_CONNECTIONS';

/** A connection-level failure of Postgres: why, and whether the request certainly never reached the server. */
export type PostgresConnectionFailure = ConnectionFailure<PostgresFailureReason>;

// What `pg` and `pg-pool` say when a connection ends or a timeout fires (their errors carry no code).
const MESSAGES: ReadonlyArray<readonly [RegExp, PostgresFailureReason, boolean]> = [
  [/^Connection terminated due to connection timeout/, 'TIMEOUT', true],
  [/^timeout exceeded when trying to connect/, 'TIMEOUT', true],
  [/^timeout expired/, 'TIMEOUT', true],
  [/^Query read timeout/, 'TIMEOUT', false],
  [/^Connection terminated/, 'CONNECTION', false],
  [/^Client has encountered a connection error and is not queryable/, 'CONNECTION', true],
  [/^Client was closed and is not queryable/, 'CONNECTION', true],
];

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections.
 * Not 08P01 protocol_violation: the server answers a malformed request (a statement given the wrong
 * number of parameters) with it and keeps the connection; retrying would fail the same way.
 */
function stateReason(state: string): PostgresFailureReason | undefined {
  if (state === '08P01') return undefined;
  if (state.startsWith('08')) return 'CONNECTION';
  if (state === '57P01' || state === '57P02') return 'SHUTDOWN';
  if (state === '57P03') return 'STARTING';
  if (state === '53300') return 'TOO_MANY_CONNECTIONS';
  return undefined;
}

/** The connection-level failure `error` itself is (not its causes). */
function classify(error: object): PostgresConnectionFailure | undefined {
  const code = fieldOf(error, 'code');
  // A SQLSTATE comes with a severity (pg's DatabaseError); an errno code without one.
  if (typeof code === 'string' && typeof fieldOf(error, 'severity') === 'string') {
    const reason = stateReason(code);
    return reason === undefined
      ? undefined
      : { reason, notSent: reason === 'STARTING' || reason === 'TOO_MANY_CONNECTIONS' };
  }
  const socket = socketFailure(code);
  if (socket !== undefined) return socket;
  const message = fieldOf(error, 'message');
  if (typeof message === 'string') {
    for (const [pattern, reason, notSent] of MESSAGES) if (pattern.test(message)) return { reason, notSent };
  }
  return undefined;
}

/** The connection-level failure `error` is, or undefined for anything else (SQL errors included). */
export function postgresConnectionFailure(error: unknown): PostgresConnectionFailure | undefined {
  return findFailure(error, classify);
}
