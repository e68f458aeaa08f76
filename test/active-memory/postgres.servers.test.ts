/**
 * The active-memory spec on a real Postgres server (a throwaway cluster, or
 * `CHATSTATE_TEST_POSTGRES_URL`); skipped with its reason without one, failed under `CI=true`.
 */
import { describeWithPostgres } from '../support/postgres-server.js';
import { postgresSubject } from './harness.js';
import { runActiveMemorySpec } from './spec.js';

describeWithPostgres('active memory on postgres', (server) => {
  runActiveMemorySpec(postgresSubject(() => server().url));
});
