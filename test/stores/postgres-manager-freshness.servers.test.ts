/**
 * The `SessionManager`'s cache against another writer on the same Postgres (two store objects, two
 * pools): see test/support/manager-freshness.ts. Each test gets its own schema.
 */
import { postgresStore } from '../../src/stores/postgres/index.js';
import { managerFreshnessTests } from '../support/manager-freshness.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';

describeWithPostgres('SessionManager freshness: postgres', (server) => {
  const schemas = new WeakMap<object, string>();
  managerFreshnessTests(
    'postgres (two stores, one database)',
    async () => {
      const schema = freshSchema('freshness');
      const stores = {
        mine: await postgresStore(server().url, { schema, maxConnections: 3 }),
        other: await postgresStore(server().url, { schema, maxConnections: 3 }),
      };
      schemas.set(stores, schema);
      return stores;
    },
    async (stores) => {
      await stores.mine.close();
      await stores.other.close();
      await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${schemas.get(stores) as string}" CASCADE`);
    },
    true,
  );
});
