import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresConnectionFailure } from './connection-errors.js';

/** A server-reported error as `pg` builds it: its own class, with a SQLSTATE and a severity. */
function serverError(code: string, message = 'from the server'): Error {
  return Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code, severity: 'ERROR' });
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('postgresConnectionFailure', () => {
  it('a refused connection (a real one) failed before anything was sent', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await closedPort(), user: 'nobody' });
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(postgresConnectionFailure(error)).toEqual({ reason: 'CONNECTION', notSent: true });
  });

  it("knows pg's and pg-pool's messages for dropped connections and timeouts", () => {
    const cases: Array<[string, string, boolean]> = [
      ['Connection terminated unexpectedly', 'CONNECTION', false],
      ['Connection terminated', 'CONNECTION', false],
      ['Connection terminated due to connection timeout', 'TIMEOUT', true],
      ['timeout exceeded when trying to connect', 'TIMEOUT', true],
      ['Query read timeout', 'TIMEOUT', false],
      ['Client has encountered a connection error and is not queryable', 'CONNECTION', true],
    ];
    for (const [message, reason, notSent] of cases)
      expect(postgresConnectionFailure(new Error(message)), message).toEqual({ reason, notSent });
  });

  it('socket errno codes: only ECONNREFUSED proves nothing was sent', () => {
    const withCode = (code: string) => Object.assign(new Error(`read ${code}`), { code, syscall: 'read' });
    expect(postgresConnectionFailure(withCode('ECONNRESET'))).toEqual({ reason: 'CONNECTION', notSent: false });
    expect(postgresConnectionFailure(withCode('EPIPE'))).toEqual({ reason: 'CONNECTION', notSent: false });
    expect(postgresConnectionFailure(withCode('ETIMEDOUT'))).toEqual({ reason: 'TIMEOUT', notSent: false });
    expect(postgresConnectionFailure(withCode('EHOSTUNREACH'))).toEqual({ reason: 'CONNECTION', notSent: false });
    expect(postgresConnectionFailure(new AggregateError([withCode('ECONNREFUSED')], 'connect'))).toEqual({
      reason: 'CONNECTION',
      notSent: true,
    });
    expect(postgresConnectionFailure(new Error('wrapped', { cause: withCode('ECONNRESET') }))).toEqual({
      reason: 'CONNECTION',
      notSent: false,
    });
  });

  it('SQLSTATEs of a server going away or not ready are failures; SQL errors are not', () => {
    expect(postgresConnectionFailure(serverError('57P01'))).toEqual({ reason: 'SHUTDOWN', notSent: false });
    expect(postgresConnectionFailure(serverError('57P02'))).toEqual({ reason: 'SHUTDOWN', notSent: false });
    expect(postgresConnectionFailure(serverError('57P03'))).toEqual({ reason: 'STARTING', notSent: true });
    expect(postgresConnectionFailure(serverError('08006'))).toEqual({ reason: 'CONNECTION', notSent: false });
    expect(postgresConnectionFailure(serverError('53300'))).toEqual({ reason: 'TOO_MANY_CONNECTIONS', notSent: true });
    // A protocol violation is a bug in the request (e.g. a parameter too few), not an outage.
    for (const code of ['23505', '42601', '42P01', '40P01', '57014', '08P01'])
      expect(postgresConnectionFailure(serverError(code)), code).toBeUndefined();
    // A SQL error whose text happens to look like a connection message is still a SQL error.
    expect(postgresConnectionFailure(serverError('P0001', 'Connection terminated'))).toBeUndefined();
    expect(postgresConnectionFailure(new Error('something else'))).toBeUndefined();
    expect(postgresConnectionFailure('Connection terminated')).toBeUndefined();
    expect(postgresConnectionFailure(undefined)).toBeUndefined();
  });
});
