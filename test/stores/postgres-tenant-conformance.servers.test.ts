/**
 * A tenant's view of a Postgres store is a store: the conformance kit runs against `tenantStore`
 * over a real server (see `test/tenancy/tenant-store-conformance.test.ts` for the embedded stores),
 * with another tenant's session of the same id and user beside it in the same schema.
 */
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { adminQuery, describeWithPostgres, freshSchema, schemaContents } from '../support/postgres-server.js';
import { wrappedStore } from '../support/wrapped-store.js';

describeWithPostgres('postgres tenant view', (server) => {
  /** The store under each view, and its schema. */
  const under = new WeakMap<SessionStore, { store: SessionStore; schema: string }>();

  function underOf(view: SessionStore): { store: SessionStore; schema: string } {
    const found = under.get(view);
    if (found === undefined) throw new Error('not a view this suite created');
    return found;
  }

  /** Tenant `acme`'s view; a new schema also holds tenant `other`'s session of the same id and user. */
  async function view(schema: string, options: Parameters<typeof postgresStore>[1], fresh: boolean) {
    const store = await postgresStore(server().url, { ...options, schema, maxConnections: 4 });
    if (fresh)
      await tenantStore(store, { tenant: 'other' }).save(Session.create({ id: 'neighbour', userId: 'user-alice' }));
    const scoped = tenantStore(store, { tenant: 'acme' });
    under.set(scoped, { store, schema });
    return scoped;
  }

  runStoreConformance({
    name: 'tenant view (postgres)',
    create: (options) => view(freshSchema('tenant'), options, true),
    async destroy(scoped) {
      const { store, schema } = underOf(scoped);
      await scoped.close();
      await store.close();
      await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
    async reopen(scoped, options) {
      // The kit only closes a second handle: this one's store (its connections) closes with it.
      const second = await view(underOf(scoped).schema, options, false);
      const { store } = underOf(second);
      return wrappedStore(second, { close: () => second.close().then(() => store.close()) });
    },
    // The whole schema: the other tenant's rows too, so a tenant's forget is seen not to leave its
    // user's text anywhere in the store under the view.
    contents: (scoped) => schemaContents(server().url, underOf(scoped).schema),
    capabilities: { textSearch: true, changeFeed: 'all' },
    skip: { 'cross-process': "the kit's child processes open the store's URL, not a tenant's view" },
  });
});
