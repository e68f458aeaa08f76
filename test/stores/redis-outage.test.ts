/**
 * The Redis store through real outages: the server SIGKILLed and started again (`appendonly yes`,
 * `appendfsync always`, so what it acknowledged survives), connections reset (RST) and stalled by a
 * TCP proxy (test/support/fault-proxy.ts), the reply to the append script lost. Every operation
 * must fail fast with a typed, retryable `UNAVAILABLE`, nothing may wait in a queue to run after
 * its caller gave up, the process must never crash (an unhandled error fails the run, and a child
 * process checks its own exit), and once the server is back the same store instance must work and
 * hold everything it acknowledged.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import type { SessionStore } from '../../src/store/types.js';
import { openStore } from '../../src/stores/open-store.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { SCRIPTS } from '../../src/stores/redis/scripts.js';
import { redisEvalSha, startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { redisTestServer } from '../support/redis-server.js';
import {
  AckLedger,
  FAST_MS,
  STALL_MS,
  TIMEOUTS,
  attemptAll,
  eventually,
  expectAllUnavailable,
  expectLostAckStoredOnce,
  expectRecovered,
  expectUnavailable,
  outageOperations,
  runOutageChild,
  seedOutageData,
  until,
} from '../support/store-outage.js';

const STORE = 'redis';
const server = await redisTestServer({ durable: true });
if (server.url === undefined) console.warn(`[redis] outages skipped: ${server.skip}`);
const skip = server.url === undefined ? `skipped: ${server.skip}` : '';
// An external server (CHATSTATE_TEST_REDIS_URL) cannot be killed by the tests: those run on a throwaway one.
const killable = server.url !== undefined && server.throwaway;
const killNote = server.url !== undefined && !server.throwaway ? 'skipped: CHATSTATE_TEST_REDIS_URL is set, and an external server is not ours to kill' : '';

describe.skipIf(server.url === undefined)(`redis store: outages ${skip}`, () => {
  const url = server.url as string;
  const prefix = `outage:${randomBytes(6).toString('hex')}:`;
  let proxy: FaultProxy;
  /** Straight to the server: for kills. */
  let direct: SessionStore;
  /** Through the proxy: for resets and stalls. */
  let proxied: SessionStore;
  const opened: SessionStore[] = [];

  const proxyUrl = (): string => `redis://127.0.0.1:${proxy.port}`;
  const open = async (target: string, options: { connectTimeoutMs?: number; commandTimeoutMs?: number } = {}): Promise<SessionStore> => {
    const store = await redisStore(target, { prefix, ...TIMEOUTS, ...options });
    opened.push(store);
    return store;
  };
  const kill = async (): Promise<void> => {
    if (server.url === undefined || server.kill === undefined) throw new Error('not a throwaway server');
    await server.kill();
  };
  const restart = async (): Promise<void> => {
    if (server.url === undefined || server.restart === undefined) throw new Error('not a throwaway server');
    await server.restart();
  };

  beforeAll(async () => {
    proxy = await startFaultProxy(Number(new URL(url).port));
    direct = await open(url);
    proxied = await open(proxyUrl());
    await seedOutageData(direct);
  });

  afterAll(async () => {
    await proxy?.setMode('pass').catch(() => undefined);
    for (const store of opened) await store.close();
    await proxy?.close();
    if (server.url !== undefined && !server.throwaway) {
      // A shared server keeps what the suite wrote: its keys go (the prefix is hex and colons, a literal pattern).
      const admin = new Redis(url);
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await admin.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await admin.quit();
    }
    if (server.url !== undefined) await server.stop();
  });

  it.skipIf(!killable)(`server killed: every operation fails fast with UNAVAILABLE, and after a restart the same store serves it and lost nothing it acknowledged ${killNote}`, async () => {
    const ledger = new AckLedger(direct, 'kill', STORE);
    try {
      await until(() => ledger.acked.length > 5);
      await kill();
      try {
        expectAllUnavailable(await attemptAll(outageOperations(direct, 'killed')), STORE, FAST_MS);
        expectAllUnavailable(await attemptAll(outageOperations(proxied, 'killed-proxied')), STORE, FAST_MS);
        // The background writer meets the outage too before the server comes back.
        await until(() => ledger.failures.length > 0);
      } finally {
        await restart();
      }
      await expectRecovered(direct, 'after-kill');
      await expectRecovered(proxied, 'after-kill-proxied');
    } finally {
      await ledger.stop();
    }
    ledger.expectOnlyUnavailable();
    expect(ledger.failures.length).toBeGreaterThan(0);
    await ledger.expectAllStored();
  });

  it('connections reset, in flight and new: UNAVAILABLE at once, no crash, and the same store works when the resets stop', async () => {
    const ledger = new AckLedger(proxied, 'reset', STORE);
    try {
      await until(() => ledger.acked.length > 5);
      // Stalled first, so that every command is in flight when the RST comes.
      await proxy.setMode('stall');
      const inFlight = attemptAll(outageOperations(proxied, 'reset-in-flight'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await proxy.setMode('reset');
      const attempts = await inFlight;
      expectAllUnavailable(attempts, STORE, 200 + FAST_MS);
      // The append script was sent: whether it ran is unknown, and the caller is told so.
      expect(attempts.find((attempt) => attempt.name === 'append')?.error).toMatchObject({ details: { outcome: 'unknown' } });
      expectAllUnavailable(await attemptAll(outageOperations(proxied, 'reset-new')), STORE, FAST_MS);
      await proxy.setMode('pass');
      await expectRecovered(proxied, 'after-reset');
    } finally {
      await proxy.setMode('pass');
      await ledger.stop();
    }
    ledger.expectOnlyUnavailable();
    expect(ledger.failures.length).toBeGreaterThan(0);
    await ledger.expectAllStored(direct);
  });

  it('a stalled server: every operation fails within the timeouts, the stuck connection is replaced, and late replies never reach a later call', async () => {
    const ledger = new AckLedger(proxied, 'stall', STORE);
    try {
      await until(() => ledger.acked.length > 5);
      await proxy.setMode('stall');
      try {
        const attempts = await attemptAll(outageOperations(proxied, 'stalled'));
        const slowest = expectAllUnavailable(attempts, STORE, STALL_MS);
        expect(slowest).toBeGreaterThanOrEqual(TIMEOUTS.commandTimeoutMs - 100);
        // The first command to time out (maybe the background writer's) replaces the connection,
        // and the others in flight on it fail with it: one TIMEOUT at least, the rest CONNECTION.
        const reasons = [...attempts.map((attempt) => attempt.error), ...ledger.failures].map((error) => (error as { details?: { reason?: string } }).details?.reason);
        expect(reasons).toContain('TIMEOUT');
        // While the stall lasts, new calls wait at most for a ready connection.
        expectAllUnavailable(await attemptAll(outageOperations(proxied, 'stalled-again')), STORE, STALL_MS);
      } finally {
        // Held-back replies flow again: they must not reach the calls made after the stall.
        await proxy.setMode('pass');
      }
      await expectRecovered(proxied, 'after-stall');
    } finally {
      await ledger.stop();
    }
    ledger.expectOnlyUnavailable();
    await ledger.expectAllStored(direct);
  });

  it.skipIf(!killable)(`opening while the server is down, refusing, resetting or stalled: UNAVAILABLE within the connect timeout ${killNote}`, async () => {
    const faults: Array<['refuse' | 'reset' | 'stall', number]> = [
      ['refuse', FAST_MS],
      ['reset', FAST_MS],
      ['stall', TIMEOUTS.connectTimeoutMs + 1500],
    ];
    for (const [mode, within] of faults) {
      await proxy.setMode(mode);
      const started = performance.now();
      const error = await redisStore(proxyUrl(), { prefix, ...TIMEOUTS }).catch((caught: unknown) => caught);
      expectUnavailable(error, STORE, mode);
      expect(performance.now() - started, mode).toBeLessThan(within);
    }
    await proxy.setMode('pass');
    await kill();
    try {
      const started = performance.now();
      const error = await openStore(`${url}?prefix=${prefix}`).catch((caught: unknown) => caught);
      expect(expectUnavailable(error, STORE, 'openStore').outcome).toBe('not-applied');
      expect(performance.now() - started).toBeLessThan(FAST_MS);
      // In a process of its own: the failed open leaves no reconnecting client or timer behind.
      const child = await runOutageChild(['open', `${url}?prefix=${prefix}`], undefined, 20_000);
      expect(child.errors, child.stderr).toEqual(['UNAVAILABLE true CONNECTION not-applied']);
      expect(child.code, child.stderr).toBe(0);
      const ms = Number(child.lines.find((line) => line.startsWith('MS '))?.slice(3));
      expect(ms).toBeLessThan(FAST_MS);
    } finally {
      await restart();
    }
    const reopened = await eventually(() => open(url));
    expect((await reopened.load('base')).messages.length).toBeGreaterThanOrEqual(3);
  });

  it.skipIf(!killable)(`close during an outage finishes in bounded time: connection stalled or reset, server killed ${killNote}`, async () => {
    const stalled = await open(proxyUrl());
    await stalled.load('base');
    await proxy.setMode('stall');
    const pending = stalled.get('base').catch((error: unknown) => error);
    let started = performance.now();
    await stalled.close();
    expectUnavailable(await pending, STORE, 'the call in flight at close');
    expect(performance.now() - started).toBeLessThan(STALL_MS + TIMEOUTS.connectTimeoutMs);
    await proxy.setMode('pass');

    const reset = await open(proxyUrl());
    await reset.load('base');
    await proxy.setMode('reset');
    started = performance.now();
    await reset.close();
    expect(performance.now() - started).toBeLessThan(FAST_MS);
    await proxy.setMode('pass');

    const killed = await open(url);
    await killed.load('base');
    await kill();
    try {
      started = performance.now();
      await killed.close();
      expect(performance.now() - started).toBeLessThan(FAST_MS);
    } finally {
      await restart();
    }
    await eventually(() => direct.load('base'));
  });

  it('an append whose script reply was lost, retried with the same ids, is stored once', async () => {
    await expectLostAckStoredOnce(proxied, proxy, STORE, redisEvalSha(SCRIPTS.append.sha));
  });

  it('a write applied but not confirmed by the replicas asked for is UNAVAILABLE with outcome applied', async () => {
    const confirming = await redisStore(url, { prefix, ...TIMEOUTS, confirm: { replicas: 1, timeoutMs: 20 } });
    opened.push(confirming);
    const error = await confirming.append('base', [Message.user('unconfirmed', { id: 'unconfirmed-1' })]).catch((caught: unknown) => caught);
    expect(expectUnavailable(error, STORE, 'WAIT')).toMatchObject({ reason: 'UNCONFIRMED', outcome: 'applied', replicas: 0, wanted: 1 });
    // Applied: the message is there, and a retry reports it as a duplicate.
    expect((await direct.readMessages('base', { limit: 1 })).map((message) => message.id)).toEqual(['unconfirmed-1']);
    expect((await direct.append('base', [Message.user('unconfirmed', { id: 'unconfirmed-1' })])).duplicates).toEqual(['unconfirmed-1']);
  });

  it("on the caller's own client too: bounded, typed, and its commands are not left to run later", async () => {
    // An ioredis client with its defaults (offline queue on, 20 retries): the store cannot change them.
    const client = new Redis(proxyUrl(), { lazyConnect: false });
    client.on('error', () => undefined);
    try {
      const store = await redisStore(client, { prefix, ...TIMEOUTS });
      await store.load('base');
      await proxy.setMode('refuse');
      client.disconnect(true);
      await until(() => client.status === 'reconnecting');
      const attempts = await attemptAll(outageOperations(store, 'caller-client'));
      expectAllUnavailable(attempts, STORE, STALL_MS);
      // Not sent while the client had no connection: nothing of them is queued to run later.
      for (const attempt of attempts) expect(attempt.error, attempt.name).toMatchObject({ details: { outcome: 'not-applied' } });
      await proxy.setMode('pass');
      await expectRecovered(store, 'caller-client-after');
      expect(await store.get('saved-caller-client')).toBeUndefined();
      await store.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await proxy.setMode('pass');
      client.disconnect();
    }
  });

  it.skipIf(!killable)(`a process appending while the server is killed gets typed errors, exits normally, and lost nothing acknowledged ${killNote}`, async () => {
    let outage: Promise<void> | undefined;
    const child = await runOutageChild(['append', `${url}?prefix=${prefix}`, 'child-loop', '15', '30000'], (_line, { acked }) => {
      if (outage === undefined && acked.length >= 20) {
        outage = (async () => {
          await kill();
          await new Promise((resolve) => setTimeout(resolve, 500));
          await restart();
        })();
      }
    });
    await outage;
    expect(child.signal, child.stderr).toBeNull();
    expect(child.code, child.stderr).toBe(0);
    expect(child.lines.filter((line) => line.startsWith('UNTYPED'))).toEqual([]);
    expect(child.lines.at(-1)).toBe('DONE');
    expect(child.errors.length).toBeGreaterThan(0);
    for (const error of child.errors) expect(error).toMatch(/^UNAVAILABLE true [A-Z_]+ (not-applied|unknown)$/);
    const stored = (await eventually(() => direct.load('child-loop'))).messages.map((message) => message.id);
    for (const id of child.acked) expect(stored.filter((storedId) => storedId === id), id).toHaveLength(1);
  });
});
