/**
 * The Postgres store through real outages: the server killed (`pg_ctl stop -m immediate`) and
 * started again, connections reset (RST) and stalled by a TCP proxy (test/support/fault-proxy.ts),
 * the reply to a COMMIT lost. Every operation must fail fast with a typed, retryable `UNAVAILABLE`,
 * the process must never crash (an unhandled 'error' event fails the run, and a child process
 * checks its own exit), and once the server is back the same store instance must work and hold
 * everything it acknowledged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import type { SessionStore } from '../../src/store/types.js';
import { openStore } from '../../src/stores/open-store.js';
import { postgresStore, type PgPoolLike } from '../../src/stores/postgres/index.js';
import { POSTGRES_COMMIT, startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
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

const STORE = 'postgres';
// An external server (CHATSTATE_TEST_POSTGRES_URL) cannot be killed by the tests: those run on a throwaway one.
const external = (process.env.CHATSTATE_TEST_POSTGRES_URL ?? '') !== '';
const killable = external ? 'skipped: CHATSTATE_TEST_POSTGRES_URL is set, and an external server is not ours to kill' : '';

describeWithPostgres('postgres store: outages', (server) => {
  const schema = freshSchema('outage');
  let proxy: FaultProxy;
  /** Straight to the server: for kills. */
  let direct: SessionStore;
  /** Through the proxy: for resets and stalls. */
  let proxied: SessionStore;
  const opened: SessionStore[] = [];

  const portOf = (url: string): number => Number(new URL(url).port);
  const proxyUrl = (): string => {
    const url = new URL(server().url);
    url.port = String(proxy.port);
    return url.toString();
  };
  const open = async (url: string, options: { connectTimeoutMs?: number; commandTimeoutMs?: number } = {}): Promise<SessionStore> => {
    const store = await postgresStore(url, { schema, ...TIMEOUTS, ...options });
    opened.push(store);
    return store;
  };
  const kill = async (): Promise<void> => {
    const { kill: stop } = server();
    if (stop === undefined) throw new Error('not a throwaway server');
    await stop();
  };
  const restart = async (): Promise<void> => {
    const { restart: start } = server();
    if (start === undefined) throw new Error('not a throwaway server');
    await start();
  };

  beforeAll(async () => {
    proxy = await startFaultProxy(portOf(server().url));
    direct = await open(server().url);
    proxied = await open(proxyUrl());
    await seedOutageData(direct);
  });

  afterAll(async () => {
    await proxy?.setMode('pass').catch(() => undefined);
    for (const store of opened) await store.close();
    await proxy?.close();
    await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  });

  it.skipIf(external)(`server killed: every operation fails fast with UNAVAILABLE, and after a restart the same store serves it and lost nothing it acknowledged ${killable}`, async () => {
    const ledger = new AckLedger(direct, 'kill', STORE);
    try {
      await until(() => ledger.acked.length > 5);
      await kill();
      try {
        expectAllUnavailable(await attemptAll(outageOperations(direct, 'killed')), STORE, FAST_MS);
        // The proxied store meets the dead server too (the proxy drops its connections).
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
      // Stalled first, so that every operation is in flight on a checked-out connection when the RST comes.
      await proxy.setMode('stall');
      const inFlight = attemptAll(outageOperations(proxied, 'reset-in-flight'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await proxy.setMode('reset');
      expectAllUnavailable(await inFlight, STORE, 200 + FAST_MS);
      // New calls while every connection is reset.
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

  it('a stalled server: every operation fails within the timeouts, stuck connections are replaced, and replies never reach the wrong call', async () => {
    const ledger = new AckLedger(proxied, 'stall', STORE);
    try {
      await until(() => ledger.acked.length > 5);
      await proxy.setMode('stall');
      try {
        const attempts = await attemptAll(outageOperations(proxied, 'stalled'));
        const slowest = expectAllUnavailable(attempts, STORE, STALL_MS);
        expect(slowest).toBeGreaterThanOrEqual(TIMEOUTS.commandTimeoutMs - 50);
        expect(attempts.some((attempt) => (attempt.error as { details: { reason: string } }).details.reason === 'TIMEOUT')).toBe(true);
      } finally {
        // Held-back bytes flow again: a reply to a call that gave up must not reach a later one.
        await proxy.setMode('pass');
      }
      await expectRecovered(proxied, 'after-stall');
    } finally {
      await ledger.stop();
    }
    ledger.expectOnlyUnavailable();
    await ledger.expectAllStored(direct);
  });

  it.skipIf(external)(`opening while the server is down, refusing, resetting or stalled: UNAVAILABLE within the connect timeout ${killable}`, async () => {
    const faults: Array<['refuse' | 'reset' | 'stall', number]> = [
      ['refuse', FAST_MS],
      ['reset', FAST_MS],
      ['stall', TIMEOUTS.connectTimeoutMs + 1500],
    ];
    for (const [mode, within] of faults) {
      await proxy.setMode(mode);
      const started = performance.now();
      const error = await postgresStore(proxyUrl(), { schema, ...TIMEOUTS }).catch((caught: unknown) => caught);
      expectUnavailable(error, STORE, mode);
      expect(performance.now() - started, mode).toBeLessThan(within);
    }
    await proxy.setMode('pass');
    await kill();
    try {
      const started = performance.now();
      const error = await openStore(`${server().url}?schema=${schema}`).catch((caught: unknown) => caught);
      expect(expectUnavailable(error, STORE, 'openStore').outcome).toBe('not-applied');
      expect(performance.now() - started).toBeLessThan(FAST_MS);
      // In a process of its own: the failed open leaves nothing that keeps the process alive.
      const child = await runOutageChild(['open', `${server().url}?schema=${schema}`], undefined, 20_000);
      expect(child.errors, child.stderr).toEqual(['UNAVAILABLE true CONNECTION not-applied']);
      expect(child.code, child.stderr).toBe(0);
      const ms = Number(child.lines.find((line) => line.startsWith('MS '))?.slice(3));
      expect(ms).toBeLessThan(FAST_MS);
    } finally {
      await restart();
    }
    const reopened = await eventually(() => open(server().url));
    expect((await reopened.load('base')).messages.length).toBeGreaterThanOrEqual(3);
  });

  it.skipIf(external)(`close during an outage finishes in bounded time: connections stalled or reset, server killed ${killable}`, async () => {
    const stalled = await open(proxyUrl());
    await Promise.all([stalled.load('base'), stalled.list(), stalled.summary('other')]);
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

    const killed = await open(server().url);
    await Promise.all([killed.load('base'), killed.list()]);
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

  it('an append whose COMMIT acknowledgement was lost, retried with the same ids, is stored once', async () => {
    await expectLostAckStoredOnce(proxied, proxy, STORE, POSTGRES_COMMIT);
  });

  it("on the caller's own pool too: a connection reset while checked out is UNAVAILABLE, not a crash", async () => {
    const pool = new pg.Pool({ connectionString: proxyUrl(), max: 4 });
    // The pool's own listener for idle connections is the caller's to attach, as pg documents.
    pool.on('error', () => undefined);
    try {
      const store = await postgresStore(pool as PgPoolLike, { schema, ...TIMEOUTS });
      await store.load('base');
      await proxy.setMode('stall');
      const inFlight = attemptAll(outageOperations(store, 'caller-pool'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await proxy.setMode('reset');
      expectAllUnavailable(await inFlight, STORE, 200 + FAST_MS);
      await proxy.setMode('pass');
      await expectRecovered(store, 'caller-pool-after');
      await store.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await proxy.setMode('pass');
      await pool.end();
    }
  });

  it.skipIf(external)(`a process appending while the server is killed gets typed errors, exits normally, and lost nothing acknowledged ${killable}`, async () => {
    let outage: Promise<void> | undefined;
    const child = await runOutageChild(['append', `${server().url}?schema=${schema}`, 'child-loop', '15', '30000'], (_line, { acked }) => {
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
