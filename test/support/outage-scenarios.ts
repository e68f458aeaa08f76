/**
 * The outage scenarios every server store must survive, written once: the server killed and started
 * again, connections reset (RST) and stalled by the fault proxy (fault-proxy.ts), opening while the
 * server is down, close during an outage, the lost acknowledgement of an append, and a child process
 * appending through a kill. Every operation must fail fast with a typed, retryable `UNAVAILABLE`, the
 * process must never crash, and once the server is back the same store instance must work and hold
 * everything it acknowledged.
 *
 * A store's test file runs them through an `OutageHarness` (how to open the store and reach its
 * server, how to kill it, and what only that store promises), inside its own `describe`. The tools
 * the scenarios use are in store-outage.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { openStore } from '../../src/stores/open-store.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
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
  warmRecall,
  until,
} from './store-outage.js';

/** Stops and starts the server the scenarios run on (a throwaway one, started for the test file). */
export interface ServerControl {
  /** Kills the server the hard way (no shutdown), keeping its data. */
  kill(): Promise<void>;
  /** Starts the killed server again, on the same port and data. */
  restart(): Promise<void>;
}

/** What a failed write reports of itself (`UNAVAILABLE` details `outcome`). */
export type Outcome = 'not-applied' | 'unknown' | 'applied';

/** What one store promises beyond what every store does; each is checked where its scenario runs. */
export interface OutageExpectations {
  /** The outcome of the append in flight when its connection is reset; unset, any outcome. */
  readonly resetAppendOutcome?: Outcome;
  /** A stalled server. */
  readonly stall: {
    /** How much sooner than `commandTimeoutMs` the slowest stalled call may fail. */
    readonly slackMs: number;
    /**
     * Whether the `TIMEOUT` that must show may be the background writer's rather than a call's:
     * on one shared connection the first command to time out replaces it, and the others in flight
     * on it fail with it (`CONNECTION`); in a pool one of the calls times out itself.
     */
    readonly timeoutMayBeTheWriters: boolean;
    /** Whether new calls made while the stall lasts are checked too: they wait at most for a ready connection. */
    readonly newCallsWaitForReadyConnection: boolean;
  };
}

/** What the scenarios give the extras of a store: the suite's proxy and stores, ready once its tests run. */
export interface OutageScope {
  /** The fault proxy in front of the server (back in `pass` after each scenario). */
  readonly proxy: FaultProxy;
  /** The suite's store straight to the server. */
  readonly direct: SessionStore;
  /** The suite's store through the proxy. */
  readonly proxied: SessionStore;
  /** The URL of the server through the proxy. */
  proxyUrl(): string;
}

/** How the scenarios drive one store. Functions are called while tests run, once the server is up. */
export interface OutageHarness {
  /** The store's name, as its errors carry it (`details.store`). */
  readonly name: string;
  /** How the store holds its connections, as the titles say: `pool` (several) or `single` (one, shared by every call). */
  readonly connections: 'pool' | 'single';
  /** The server's URL, straight to it. */
  url(): string;
  /** The server's URL through the proxy listening on `port`. */
  proxyUrl(port: number): string;
  /** The server's URL with the suite's store options in its query, for `openStore` and child processes. */
  storeUrl(): string;
  /** Opens the store on `url` with `TIMEOUTS` and the suite's namespace (schema, key prefix). */
  open(url: string): Promise<SessionStore>;
  /** Kills and restarts the server; or, for a server that is not ours to kill (an external one), why the tests that would skip. */
  readonly server: ServerControl | { readonly cannotKill: string };
  /** The lost acknowledgement: the request bytes that commit an append, and what its reply is called in the title. */
  readonly commit: { readonly request: Buffer; readonly reply: string };
  /** What only this store promises. */
  readonly expectations: OutageExpectations;
  /** Removes what the suite wrote, after its stores closed. */
  cleanup?(): Promise<void>;
  /** Registers the tests of this store only (with `it`); they run after the lost acknowledgement. */
  extras?(scope: OutageScope): void;
}

const reasonOf = (error: unknown): unknown =>
  (error as { details?: { reason?: unknown } } | undefined)?.details?.reason;

/** Registers the outage scenarios for `harness`, with their `beforeAll`/`afterAll`; call inside a `describe`. */
export function outageScenarios(harness: OutageHarness): void {
  const { name: store, expectations } = harness;
  const control = 'cannotKill' in harness.server ? undefined : harness.server;
  const cannotKill = 'cannotKill' in harness.server ? harness.server.cannotKill : undefined;
  // The reason goes into the title of each test that kills the server, as the skip's reason.
  const killNote = cannotKill === undefined ? '' : `skipped: ${cannotKill}`;
  const pooled = harness.connections === 'pool';

  let proxy: FaultProxy;
  /** Straight to the server: for kills. */
  let direct: SessionStore;
  /** Through the proxy: for resets and stalls. */
  let proxied: SessionStore;
  const opened: SessionStore[] = [];

  const proxyUrl = (): string => harness.proxyUrl(proxy.port);
  const open = async (url: string): Promise<SessionStore> => {
    const opening = await harness.open(url);
    opened.push(opening);
    return opening;
  };
  const kill = async (): Promise<void> => {
    if (control === undefined) throw new Error('not a throwaway server');
    await control.kill();
  };
  const restart = async (): Promise<void> => {
    if (control === undefined) throw new Error('not a throwaway server');
    await control.restart();
  };

  beforeAll(async () => {
    proxy = await startFaultProxy(Number(new URL(harness.url()).port));
    direct = await open(harness.url());
    proxied = await open(proxyUrl());
    await seedOutageData(direct);
    await warmRecall(direct);
    await warmRecall(proxied);
  });

  afterAll(async () => {
    await proxy?.setMode('pass').catch(() => undefined);
    for (const opening of opened) await opening.close();
    await proxy?.close();
    await harness.cleanup?.();
  });

  it.skipIf(cannotKill !== undefined)(
    `server killed: every operation fails fast with UNAVAILABLE, and after a restart the same store serves it and lost nothing it acknowledged ${killNote}`,
    async () => {
      const ledger = new AckLedger(direct, 'kill', store);
      try {
        await until(() => ledger.acked.length > 5);
        await kill();
        try {
          expectAllUnavailable(await attemptAll(outageOperations(direct, 'killed')), store, FAST_MS);
          // The proxied store meets the dead server too (the proxy drops its connections).
          expectAllUnavailable(await attemptAll(outageOperations(proxied, 'killed-proxied')), store, FAST_MS);
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
    },
  );

  it('connections reset, in flight and new: UNAVAILABLE at once, no crash, and the same store works when the resets stop', async () => {
    const ledger = new AckLedger(proxied, 'reset', store);
    try {
      await until(() => ledger.acked.length > 5);
      // Stalled first, so that every operation is in flight (sent, on a connection) when the RST comes.
      await proxy.setMode('stall');
      const inFlight = attemptAll(outageOperations(proxied, 'reset-in-flight'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await proxy.setMode('reset');
      const attempts = await inFlight;
      expectAllUnavailable(attempts, store, 200 + FAST_MS);
      if (expectations.resetAppendOutcome !== undefined) {
        // The append was sent: the caller is told what the store can know of whether it ran.
        expect(attempts.find((attempt) => attempt.name === 'append')?.error).toMatchObject({
          details: { outcome: expectations.resetAppendOutcome },
        });
      }
      // New calls while every connection is reset.
      expectAllUnavailable(await attemptAll(outageOperations(proxied, 'reset-new')), store, FAST_MS);
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

  const replaced = pooled ? 'stuck connections are replaced' : 'the stuck connection is replaced';
  it(`a stalled server: every operation fails within the timeouts, ${replaced}, and late replies never reach a later call`, async () => {
    const ledger = new AckLedger(proxied, 'stall', store);
    try {
      await until(() => ledger.acked.length > 5);
      await proxy.setMode('stall');
      try {
        const attempts = await attemptAll(outageOperations(proxied, 'stalled'));
        const slowest = expectAllUnavailable(attempts, store, STALL_MS);
        expect(slowest).toBeGreaterThanOrEqual(TIMEOUTS.commandTimeoutMs - expectations.stall.slackMs);
        // One TIMEOUT at least: the calls did not fail for some other reason while nothing was answered.
        const failures = [
          ...attempts.map((attempt) => attempt.error),
          ...(expectations.stall.timeoutMayBeTheWriters ? ledger.failures : []),
        ];
        expect(failures.map(reasonOf)).toContain('TIMEOUT');
        if (expectations.stall.newCallsWaitForReadyConnection) {
          // While the stall lasts, new calls wait at most for a ready connection.
          expectAllUnavailable(await attemptAll(outageOperations(proxied, 'stalled-again')), store, STALL_MS);
        }
      } finally {
        // Held-back replies flow again: a reply to a call that gave up must not reach a later one.
        await proxy.setMode('pass');
      }
      await expectRecovered(proxied, 'after-stall');
    } finally {
      await ledger.stop();
    }
    ledger.expectOnlyUnavailable();
    await ledger.expectAllStored(direct);
  });

  it.skipIf(cannotKill !== undefined)(
    `opening while the server is down, refusing, resetting or stalled: UNAVAILABLE within the connect timeout ${killNote}`,
    async () => {
      const faults: Array<['refuse' | 'reset' | 'stall', number]> = [
        ['refuse', FAST_MS],
        ['reset', FAST_MS],
        ['stall', TIMEOUTS.connectTimeoutMs + 1500],
      ];
      for (const [mode, within] of faults) {
        await proxy.setMode(mode);
        const started = performance.now();
        const error = await harness.open(proxyUrl()).catch((caught: unknown) => caught);
        expectUnavailable(error, store, mode);
        expect(performance.now() - started, mode).toBeLessThan(within);
      }
      await proxy.setMode('pass');
      await kill();
      try {
        const started = performance.now();
        const error = await openStore(harness.storeUrl()).catch((caught: unknown) => caught);
        expect(expectUnavailable(error, store, 'openStore').outcome).toBe('not-applied');
        expect(performance.now() - started).toBeLessThan(FAST_MS);
        // In a process of its own: the failed open leaves nothing behind (a client, a socket, a timer) that keeps the process alive.
        const child = await runOutageChild(['open', harness.storeUrl()], undefined, 20_000);
        expect(child.errors, child.stderr).toEqual(['UNAVAILABLE true CONNECTION not-applied']);
        expect(child.code, child.stderr).toBe(0);
        const ms = Number(child.lines.find((line) => line.startsWith('MS '))?.slice(3));
        expect(ms).toBeLessThan(FAST_MS);
      } finally {
        await restart();
      }
      const reopened = await eventually(() => open(harness.url()));
      expect((await reopened.load('base')).messages.length).toBeGreaterThanOrEqual(3);
    },
  );

  it.skipIf(cannotKill !== undefined)(
    `close during an outage finishes in bounded time: ${pooled ? 'connections' : 'connection'} stalled or reset, server killed ${killNote}`,
    async () => {
      const stalled = await open(proxyUrl());
      // Concurrent reads, so that a pool holds more than one connection.
      await Promise.all([stalled.load('base'), stalled.list(), stalled.summary('other')]);
      await proxy.setMode('stall');
      const pending = stalled.get('base').catch((error: unknown) => error);
      let started = performance.now();
      await stalled.close();
      expectUnavailable(await pending, store, 'the call in flight at close');
      expect(performance.now() - started).toBeLessThan(STALL_MS + TIMEOUTS.connectTimeoutMs);
      await proxy.setMode('pass');

      const reset = await open(proxyUrl());
      await reset.load('base');
      await proxy.setMode('reset');
      started = performance.now();
      await reset.close();
      expect(performance.now() - started).toBeLessThan(FAST_MS);
      await proxy.setMode('pass');

      const killed = await open(harness.url());
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
    },
  );

  it(`an append whose ${harness.commit.reply} was lost, retried with the same ids, is stored once`, async () => {
    await expectLostAckStoredOnce(proxied, proxy, store, harness.commit.request);
  });

  harness.extras?.({
    get proxy() {
      return proxy;
    },
    get direct() {
      return direct;
    },
    get proxied() {
      return proxied;
    },
    proxyUrl,
  });

  it.skipIf(cannotKill !== undefined)(
    `a process appending while the server is killed gets typed errors, exits normally, and lost nothing acknowledged ${killNote}`,
    async () => {
      let outage: Promise<void> | undefined;
      const child = await runOutageChild(
        ['append', harness.storeUrl(), 'child-loop', '15', '30000'],
        (_line, { acked }) => {
          if (outage === undefined && acked.length >= 20) {
            outage = (async () => {
              await kill();
              await new Promise((resolve) => setTimeout(resolve, 500));
              await restart();
            })();
          }
        },
      );
      await outage;
      expect(child.signal, child.stderr).toBeNull();
      expect(child.code, child.stderr).toBe(0);
      expect(child.lines.filter((line) => line.startsWith('UNTYPED'))).toEqual([]);
      expect(child.lines.at(-1)).toBe('DONE');
      expect(child.errors.length).toBeGreaterThan(0);
      for (const error of child.errors) expect(error).toMatch(/^UNAVAILABLE true [A-Z_]+ (not-applied|unknown)$/);
      const stored = (await eventually(() => direct.load('child-loop'))).messages.map((message) => message.id);
      for (const id of child.acked)
        expect(
          stored.filter((storedId) => storedId === id),
          id,
        ).toHaveLength(1);
    },
  );
}
