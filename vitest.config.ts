import { defineConfig } from 'vitest/config';

/**
 * The test tiers, decided by where a test lives and what it needs (its file name says so; see
 * "Testing" in the README and `scripts/check-test-tiers.mjs`, which lint runs):
 *
 * - `unit`: pure code, co-located with it under `src/` (`*.test.ts`).
 * - `stores`: `test/**` suites that need nothing but this machine: the embedded stores (memory,
 *   file, SQLite), child processes, local HTTP servers. Suites over every store
 *   (`*.each-store.test.ts`) run here on the embedded stores.
 * - `servers`: suites that need real Postgres, Redis or Redis Cluster servers
 *   (`*.servers.test.ts`), and the every-store suites again on those servers.
 * - `slow`: crash harnesses, outages, properties and fuzzing at full size, the browser, load
 *   (`*.slow.test.ts`), on every store.
 *
 * `npm test` runs every tier; `npm run test:unit` the first, `npm run test:quick` the first two.
 * `CHATSTATE_TEST_STORES=sqlite npm run test:quick` narrows a run to the stores it names.
 */
const EMBEDDED_STORES = 'memory,file,sqlite';
const SERVER_STORES = 'postgres,redis,redis-cluster';

export default defineConfig({
  test: {
    // The type tests (test/types/*.test-d.ts) are plain TypeScript: `npm run typecheck` (tsc) checks
    // them, so Vitest's experimental typecheck mode is not used.
    testTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on this 2-core machine (Vitest's default is one fewer worker than cores):
    // most suites wait on child processes, servers and sockets rather than on the CPU, and one
    // worker left a core idle for most of a run.
    maxWorkers: 2,
    projects: [
      // Pure code: its files share worker processes (a fresh process per file was two thirds of the
      // tier's time); a test that changes global state puts it back.
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      {
        extends: true,
        test: {
          name: 'stores',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.servers.test.ts', 'test/**/*.slow.test.ts'],
          env: { CHATSTATE_TIER_STORES: EMBEDDED_STORES },
        },
      },
      {
        extends: true,
        test: {
          name: 'servers',
          include: ['test/**/*.servers.test.ts', 'test/**/*.each-store.test.ts'],
          env: { CHATSTATE_TIER_STORES: SERVER_STORES },
        },
      },
      { extends: true, test: { name: 'slow', include: ['test/**/*.slow.test.ts'] } },
    ],
  },
});
