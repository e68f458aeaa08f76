/**
 * The Redis store through real outages (test/support/outage-scenarios.ts): the server SIGKILLed and
 * started again (`appendonly yes`, `appendfsync always`, so what it acknowledged survives),
 * connections reset and stalled by the fault proxy, the reply to the append script lost. Here: how
 * the scenarios reach Redis, what its one shared connection promises, a write the replicas did not
 * confirm, and the caller's own client (nothing may wait in a queue to run after its caller gave up).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { SCRIPTS } from '../../src/stores/redis/scripts.js';
import { redisEvalSha } from '../support/fault-proxy.js';
import { outageScenarios } from '../support/outage-scenarios.js';
import { deleteKeysUnder, redisTestServer } from '../support/redis-server.js';
import {
  STALL_MS,
  TIMEOUTS,
  attemptAll,
  expectAllUnavailable,
  expectRecovered,
  expectUnavailable,
  outageOperations,
  until,
} from '../support/store-outage.js';

const STORE = 'redis';
const server = await redisTestServer({ durable: true });
if (server.url === undefined) console.warn(`[redis] outages skipped: ${server.skip}`);
const skip = server.url === undefined ? `skipped: ${server.skip}` : '';

describe.skipIf(server.url === undefined)(`redis store: outages ${skip}`, () => {
  const url = server.url as string;
  const prefix = `outage:${randomBytes(6).toString('hex')}:`;
  const throwaway = (action: 'kill' | 'restart') => async (): Promise<void> => {
    const run = server.url === undefined ? undefined : server[action];
    if (run === undefined) throw new Error('not a throwaway server');
    await run();
  };

  outageScenarios({
    name: STORE,
    connections: 'single',
    url: () => url,
    proxyUrl: (port) => `redis://127.0.0.1:${port}`,
    storeUrl: () => `${url}?prefix=${prefix}`,
    open: (target) => redisStore(target, { prefix, ...TIMEOUTS }),
    // An external server (CHATSTATE_TEST_REDIS_URL) cannot be killed by the tests: those run on a throwaway one.
    server:
      server.url !== undefined && !server.throwaway
        ? { cannotKill: 'CHATSTATE_TEST_REDIS_URL is set, and an external server is not ours to kill' }
        : { kill: throwaway('kill'), restart: throwaway('restart') },
    commit: { request: redisEvalSha(SCRIPTS.append.sha), reply: 'script reply' },
    expectations: {
      // The append script was sent when the connection was reset: whether it ran is unknown, and the caller is told so.
      resetAppendOutcome: 'unknown',
      // Every call shares one connection: the first command to time out (maybe the background
      // writer's, sent a little earlier) replaces it, and the others in flight on it fail with it.
      stall: { slackMs: 100, timeoutMayBeTheWriters: true, newCallsWaitForReadyConnection: true },
    },
    cleanup: async () => {
      if (server.url !== undefined && !server.throwaway) {
        // A shared server keeps what the suite wrote: its keys go.
        const admin = new Redis(url);
        await deleteKeysUnder(admin, prefix);
        await admin.quit();
      }
      if (server.url !== undefined) await server.stop();
    },
    extras: (scope) => {
      it('a write applied but not confirmed by the replicas asked for is UNAVAILABLE with outcome applied', async () => {
        const confirming = await redisStore(url, { prefix, ...TIMEOUTS, confirm: { replicas: 1, timeoutMs: 20 } });
        try {
          const error = await confirming
            .append('base', [Message.user('unconfirmed', { id: 'unconfirmed-1' })])
            .catch((caught: unknown) => caught);
          expect(expectUnavailable(error, STORE, 'WAIT')).toMatchObject({
            reason: 'UNCONFIRMED',
            outcome: 'applied',
            replicas: 0,
            wanted: 1,
          });
          // Applied: the message is there, and a retry reports it as a duplicate.
          expect((await scope.direct.readMessages('base', { limit: 1 })).map((message) => message.id)).toEqual([
            'unconfirmed-1',
          ]);
          expect(
            (await scope.direct.append('base', [Message.user('unconfirmed', { id: 'unconfirmed-1' })])).duplicates,
          ).toEqual(['unconfirmed-1']);
        } finally {
          await confirming.close();
        }
      });

      it("on the caller's own client too: bounded, typed, and its commands are not left to run later", async () => {
        // An ioredis client with its defaults (offline queue on, 20 retries): the store cannot change them.
        const client = new Redis(scope.proxyUrl(), { lazyConnect: false });
        client.on('error', () => undefined);
        try {
          const store = await redisStore(client, { prefix, ...TIMEOUTS });
          await store.load('base');
          await scope.proxy.setMode('refuse');
          client.disconnect(true);
          await until(() => client.status === 'reconnecting');
          const attempts = await attemptAll(outageOperations(store, 'caller-client'));
          expectAllUnavailable(attempts, STORE, STALL_MS);
          // Not sent while the client had no connection: nothing of them is queued to run later.
          for (const attempt of attempts)
            expect(attempt.error, attempt.name).toMatchObject({ details: { outcome: 'not-applied' } });
          await scope.proxy.setMode('pass');
          await expectRecovered(store, 'caller-client-after');
          expect(await store.get('saved-caller-client')).toBeUndefined();
          await store.close();
          expect(await client.ping()).toBe('PONG');
        } finally {
          await scope.proxy.setMode('pass');
          client.disconnect();
        }
      });
    },
  });
});
