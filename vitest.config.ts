import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Suites `npm run test:quick` (`vitest run --mode quick`) leaves out: the fast inner loop. The full
 * run (`npm test`) keeps them all.
 */
export const SLOW_SUITES = [
  // Crash harnesses: kill child processes mid-write and rebuild every crash state (minutes).
  'test/stores/*-crash*.test.ts',
  // Outages: stop, stall and restart real Postgres and Redis servers.
  'test/stores/*-outage.test.ts',
  // Random inputs by the thousand (fast-check).
  'test/fuzz/**',
  'test/properties/**',
  // Suites that start a throwaway Postgres or Redis server, or a Redis Cluster (redis-cluster*)
  // (the drivers' unit tests in src/ stay).
  'test/stores/postgres*.test.ts',
  'test/stores/redis*.test.ts',
  'test/server/outage-redis-cluster.test.ts',
  // The OpenAPI samples over every store with a server (openapi.test.ts keeps them over memory).
  'test/server/openapi-stores.test.ts',
  'test/active-memory/postgres.test.ts',
  'test/active-memory/redis.test.ts',
  'test/active-memory/redis-cluster.test.ts',
  // Starts Chromium and drives the web session browser (half a minute).
  'test/web/browser.test.ts',
];

/**
 * The test names `npm run test:quick` runs in the suites it keeps: all but the store conformance
 * suite's cross-process spec, which starts child processes (seconds a test, for every store).
 */
export const QUICK_TEST_NAMES = /^(?!.*cross-process: )/;

export default defineConfig(({ mode }) => ({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    ...(mode === 'quick'
      ? { exclude: [...configDefaults.exclude, ...SLOW_SUITES], testNamePattern: QUICK_TEST_NAMES }
      : {}),
    // The type tests (test/types/*.test-d.ts) are plain TypeScript: `npm run typecheck` (tsc) checks
    // them, so Vitest's experimental typecheck mode is not used.
    testTimeout: 60_000,
    pool: 'forks',
  },
}));
