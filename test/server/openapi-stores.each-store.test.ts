/**
 * The OpenAPI conformance samples (openapi-conformance.ts) over every store that keeps its data
 * outside the process — file, SQLite, Postgres, Redis and Redis Cluster, each a throwaway server
 * here (or the CHATSTATE_TEST_*_URL given), skipped with its reason when it cannot run (under
 * CI=true, the servers must run): each answer's status is one the document declares, with a body
 * its schema accepts, and every declared status is brought about.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/stores/open-store.js';
import { cliStores } from '../cli/cli-stores.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { expectEveryStatusDeclared, startServers, type Servers } from './openapi-conformance.js';
import { asDocument, type OpenApiDocument } from './openapi-doc.js';

describeEachStore(
  cliStores().filter((kind) => kind.shared),
  'the OpenAPI document over the $name store',
  (kind) => {
    let skipped: string | undefined;
    let servers: Servers | undefined;
    let doc: OpenApiDocument | undefined;

    beforeAll(async () => {
      skipped = await kind.start();
      if (skipped !== undefined) return;
      servers = await startServers(async () => openStore(await kind.freshUrl()));
      const served = await servers.server.call('GET', '/openapi.json');
      expect(served.status).toBe(200);
      doc = asDocument(served.json);
    }, 180_000);
    afterAll(async () => {
      await servers?.close();
      await kind.stop();
    });

    it('declares every status the server answers, with the body it answers', async (context) => {
      if (servers === undefined || doc === undefined) return context.skip(skipped);
      await expectEveryStatusDeclared(servers, doc);
    }, 120_000);
  },
);
