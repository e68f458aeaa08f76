/**
 * The Postgres store through real outages (test/support/outage-scenarios.ts): the server killed
 * (`pg_ctl stop -m immediate`) and started again, connections reset and stalled by the fault proxy,
 * the reply to a COMMIT lost. Here: how the scenarios reach Postgres, and the caller's own pool.
 */
import { expect, it } from 'vitest';
import pg from 'pg';
import { postgresStore, type PgPoolLike } from '../../src/stores/postgres/index.js';
import { POSTGRES_COMMIT } from '../support/fault-proxy.js';
import { outageScenarios } from '../support/outage-scenarios.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import {
  FAST_MS,
  TIMEOUTS,
  attemptAll,
  expectAllUnavailable,
  expectRecovered,
  outageOperations,
} from '../support/store-outage.js';

// An external server (CHATSTATE_TEST_POSTGRES_URL) cannot be killed by the tests: those run on a throwaway one.
const external = (process.env.CHATSTATE_TEST_POSTGRES_URL ?? '') !== '';

describeWithPostgres('postgres store: outages', (server) => {
  const schema = freshSchema('outage');
  const throwaway = (action: 'kill' | 'restart') => async (): Promise<void> => {
    const run = server()[action];
    if (run === undefined) throw new Error('not a throwaway server');
    await run();
  };

  outageScenarios({
    name: 'postgres',
    connections: 'pool',
    url: () => server().url,
    proxyUrl: (port) => {
      const url = new URL(server().url);
      url.port = String(port);
      return url.toString();
    },
    storeUrl: () => `${server().url}?schema=${schema}`,
    open: (url) => postgresStore(url, { schema, ...TIMEOUTS }),
    server: external
      ? { cannotKill: 'CHATSTATE_TEST_POSTGRES_URL is set, and an external server is not ours to kill' }
      : { kill: throwaway('kill'), restart: throwaway('restart') },
    commit: { request: POSTGRES_COMMIT, reply: 'COMMIT acknowledgement' },
    // Each call waits on a connection of its own: one of the stalled calls times out itself.
    expectations: { stall: { slackMs: 50, timeoutMayBeTheWriters: false, newCallsWaitForReadyConnection: false } },
    cleanup: async () => {
      await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    },
    extras: (scope) => {
      it("on the caller's own pool too: a connection reset while checked out is UNAVAILABLE, not a crash", async () => {
        const pool = new pg.Pool({ connectionString: scope.proxyUrl(), max: 4 });
        // The pool's own listener for idle connections is the caller's to attach, as pg documents.
        pool.on('error', () => undefined);
        try {
          const store = await postgresStore(pool as PgPoolLike, { schema, ...TIMEOUTS });
          await store.load('base');
          await scope.proxy.setMode('stall');
          const inFlight = attemptAll(outageOperations(store, 'caller-pool'));
          await new Promise((resolve) => setTimeout(resolve, 200));
          await scope.proxy.setMode('reset');
          expectAllUnavailable(await inFlight, 'postgres', 200 + FAST_MS);
          await scope.proxy.setMode('pass');
          await expectRecovered(store, 'caller-pool-after');
          await store.close();
          expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        } finally {
          await scope.proxy.setMode('pass');
          await pool.end();
        }
      });
    },
  });
});
