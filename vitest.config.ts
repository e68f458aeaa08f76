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
  // Suites that start a throwaway Postgres or Redis server (the drivers' unit tests in src/ stay).
  'test/stores/postgres*.test.ts',
  'test/stores/redis*.test.ts',
  'test/active-memory/postgres.test.ts',
  'test/active-memory/redis.test.ts',
];

export default defineConfig(({ mode }) => ({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    ...(mode === 'quick' ? { exclude: [...configDefaults.exclude, ...SLOW_SUITES] } : {}),
    // The type tests (test/types/*.test-d.ts) are plain TypeScript: `npm run typecheck` (tsc) checks
    // them, so Vitest's experimental typecheck mode is not used.
    testTimeout: 60_000,
    pool: 'forks',
  },
}));
