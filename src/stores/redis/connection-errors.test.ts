import { createServer } from 'node:net';
import { Redis, ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisConnectionFailure } from './connection-errors.js';

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

const reply = (message: string): Error => new (ReplyError as new (message: string) => Error)(message);

describe('redisConnectionFailure', () => {
  it('a refused connection (a real one) and a command on a client without a connection were never sent', async () => {
    const client = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    const refused = await client.connect().catch((caught: unknown) => caught);
    const unsent = await client.call('PING').catch((caught: unknown) => caught);
    client.disconnect();
    expect(redisConnectionFailure(refused)).toMatchObject({ reason: 'CONNECTION' });
    expect(redisConnectionFailure(unsent)).toMatchObject({ reason: 'CONNECTION' });
    expect(
      redisConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })),
    ).toEqual({ reason: 'CONNECTION', notSent: true });
    expect(redisConnectionFailure(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toEqual(
      { reason: 'CONNECTION', notSent: true },
    );
  });

  it("knows ioredis's messages for dropped connections and timeouts: the command may have run", () => {
    const maxRetries = Object.assign(
      new Error(
        'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
      ),
      { name: 'MaxRetriesPerRequestError' },
    );
    expect(redisConnectionFailure(maxRetries)).toEqual({ reason: 'CONNECTION', notSent: false });
    expect(redisConnectionFailure(new Error('Connection is closed.'))).toEqual({
      reason: 'CONNECTION',
      notSent: false,
    });
    expect(redisConnectionFailure(new Error('Command aborted due to connection close'))).toEqual({
      reason: 'CONNECTION',
      notSent: false,
    });
    expect(redisConnectionFailure(new Error('Command timed out'))).toEqual({ reason: 'TIMEOUT', notSent: false });
    expect(redisConnectionFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toEqual({
      reason: 'CONNECTION',
      notSent: false,
    });
    expect(redisConnectionFailure(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toEqual({
      reason: 'CONNECTION',
      notSent: false,
    });
  });

  it('replies of a server that runs no command for now are failures; other error replies are not', () => {
    expect(redisConnectionFailure(reply('LOADING Redis is loading the dataset in memory'))).toEqual({
      reason: 'LOADING',
      notSent: true,
    });
    expect(
      redisConnectionFailure(
        reply('BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'),
      ),
    ).toEqual({ reason: 'BUSY', notSent: true });
    expect(
      redisConnectionFailure(reply('MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.')),
    ).toEqual({ reason: 'CONNECTION', notSent: true });
    for (const message of [
      'NOSCRIPT No matching script.',
      'ERR user_script:1: Script attempted to access nonexistent global variable',
      'WRONGTYPE Operation against a key holding the wrong kind of value',
    ]) {
      expect(redisConnectionFailure(reply(message)), message).toBeUndefined();
    }
    expect(redisConnectionFailure(undefined)).toBeUndefined();
  });

  it("knows Redis Cluster's refusals and ioredis Cluster's failures, and which of them may have run", () => {
    for (const message of [
      'CLUSTERDOWN The cluster is down',
      'CLUSTERDOWN Hash slot not served',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      "Cluster isn't ready and enableOfflineQueue options is false",
      'Failed to refresh slots cache.',
      'None of startup nodes is available',
      'Cluster is ended.',
    ]) {
      expect(redisConnectionFailure(reply(message)), message).toEqual({ reason: 'CONNECTION', notSent: true });
    }
    const allFailed = Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' });
    expect(redisConnectionFailure(allFailed)).toEqual({ reason: 'CONNECTION', notSent: true });
    for (const message of [
      'Too many Cluster redirections. Last error: Error: Connection is closed.',
      'ERR Script attempted to execute a write command while the cluster is down script: 1a2b',
    ]) {
      expect(redisConnectionFailure(reply(message)), message).toEqual({ reason: 'CONNECTION', notSent: false });
    }
    // A script that reaches a second slot is a bug of the store, never an outage.
    expect(
      redisConnectionFailure(reply('ERR Script attempted to access keys that do not hash to the same slot')),
    ).toBeUndefined();
  });
});
