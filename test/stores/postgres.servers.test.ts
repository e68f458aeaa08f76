/**
 * The conformance suite against a real Postgres server (a throwaway cluster, or
 * `CHATSTATE_TEST_POSTGRES_URL`). Every store gets its own schema, dropped after its test, so
 * tests never see each other's sessions even on a shared server.
 */
import { postgresStore } from '../../src/stores/postgres/index.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { schemaBackup } from '../support/backups.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';
import { adminQuery, describeWithPostgres, freshSchema, schemaContents } from '../support/postgres-server.js';

describeWithPostgres('postgres', (server) => {
  const schemas = new WeakMap<SessionStore, string>();

  function schemaOf(store: SessionStore): string {
    const schema = schemas.get(store);
    if (schema === undefined) throw new Error('not a store this suite created');
    return schema;
  }

  function urlOf(schema: string): string {
    const url = new URL(server().url);
    url.searchParams.set('schema', schema);
    return url.toString();
  }

  runStoreConformance({
    name: 'postgres',
    async create(options) {
      const schema = freshSchema('conf');
      const store = await postgresStore(server().url, { ...options, schema, maxConnections: 4 });
      schemas.set(store, schema);
      return store;
    },
    async destroy(store) {
      await store.close();
      await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${schemaOf(store)}" CASCADE`);
    },
    async reopen(store, options) {
      return postgresStore(server().url, { ...options, schema: schemaOf(store), maxConnections: 4 });
    },
    contents: (store) => schemaContents(server().url, schemaOf(store)),
    // The schema's tables copied, rows included, into a schema of their own.
    async backup(store) {
      const copy = freshSchema('copy');
      return schemaBackup(
        server().url,
        schemaOf(store),
        copy,
        async (options) => postgresStore(server().url, { ...options, schema: copy, maxConnections: 4 }),
        () => schemaContents(server().url, copy),
      );
    },
    crossProcess: { url: (store) => urlOf(schemaOf(store)), register: BUILT_IN_STORES },
    capabilities: { textSearch: true, changeFeed: 'all' },
    // What no store writes (a negative version), as a hand edit would.
    async damage(store, id) {
      await adminQuery(server().url, `UPDATE "${schemaOf(store)}".chatstate_sessions SET version = -1 WHERE id = $1`, [
        id,
      ]);
    },
  });
});
