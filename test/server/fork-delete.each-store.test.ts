/**
 * `DELETE /sessions/{id}` of a fork over real HTTP, on every store: the fork leaves its source's
 * `metadata.forks` in the caller's tenant only, and a fork whose source is gone says so in its
 * summary and stats (`forkedFrom.missing`), so a client can show the source as gone.
 */
import { afterEach, expect, it } from 'vitest';
import { forkLog } from '../../src/session/fork-log.js';
import type { SessionStore } from '../../src/index.js';
import { describeEveryStore, storesOf } from '../support/stores-under-test.js';
import { startTestServer, type TestServer } from './server-harness.js';

type Row = { id: string; forks?: string[]; forkedFrom?: { sessionId: string; missing?: boolean } };

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

await describeEveryStore(
  'DELETE of a fork',
  (subject) => {
    const stores = storesOf(subject);

    async function serve(): Promise<{ store: SessionStore; server: TestServer }> {
      const store = await stores.open();
      const server = await startTestServer(store);
      servers.push(server);
      return { store, server };
    }

    /** Session `id` of `key`'s tenant, with one message, forked into `forks`. */
    async function sourceWithForks(server: TestServer, key: string, id: string, forks: string[]): Promise<void> {
      const body = { id, userId: 'alice', messages: [{ id: `${id}-m1`, role: 'user', content: 'Porto?' }] };
      expect((await server.call('POST', '/sessions', { key, body })).status).toBe(201);
      for (const fork of forks) {
        const made = await server.call('POST', `/sessions/${id}/fork`, {
          key,
          body: { atMessageId: `${id}-m1`, id: fork },
        });
        expect(made.status).toBe(201);
      }
    }

    it("removes the fork from its source's forks, in the caller's tenant only", async () => {
      const { store, server } = await serve();
      const { adminA, aliceA, adminB } = server.keys;
      await sourceWithForks(server, adminA, 'trip', ['trip-a', 'trip-b']);
      // Tenant B has sessions of the same ids.
      await sourceWithForks(server, adminB, 'trip', ['trip-a']);
      expect((await server.call('DELETE', '/sessions/trip-a', { key: aliceA })).status).toBe(204);
      const source = (await server.call('GET', '/sessions/trip/summary', { key: adminA })).json as Row;
      expect(source.forks).toEqual(['trip-b']);
      const listed = (await server.call('GET', '/sessions', { key: adminA })).json as { sessions: Row[] };
      expect(listed.sessions.find((row) => row.id === 'trip')?.forks).toEqual(['trip-b']);
      expect(forkLog((await store.load('tenant-a.trip')).metadata).map((entry) => entry.sessionId)).toEqual(['trip-b']);
      // Tenant B's source still lists its own fork, which is still there.
      expect(((await server.call('GET', '/sessions/trip/summary', { key: adminB })).json as Row).forks).toEqual([
        'trip-a',
      ]);
      expect((await server.call('GET', '/sessions/trip-a', { key: adminB })).status).toBe(200);
    });

    it('of a source deleted first answers 204; the fork left says its source is missing', async () => {
      const { server } = await serve();
      const key = server.keys.adminA;
      await sourceWithForks(server, key, 'trip', ['trip-a', 'trip-b']);
      const before = (await server.call('GET', '/sessions/trip-b/summary', { key })).json as Row;
      expect(before.forkedFrom).toEqual({ sessionId: 'trip', messageId: 'trip-m1', seq: 1 });
      expect((await server.call('DELETE', '/sessions/trip', { key })).status).toBe(204);
      expect((await server.call('DELETE', '/sessions/trip-a', { key })).status).toBe(204);
      expect((await server.call('DELETE', '/sessions/trip-a', { key })).status).toBe(404);
      const summary = await server.call('GET', '/sessions/trip-b/summary', { key });
      expect(summary.status).toBe(200);
      expect((summary.json as Row).forkedFrom).toEqual({
        sessionId: 'trip',
        messageId: 'trip-m1',
        seq: 1,
        missing: true,
      });
      const stats = (await server.call('GET', '/sessions/trip-b/stats', { key })).json as Row;
      expect(stats.forkedFrom).toMatchObject({ sessionId: 'trip', missing: true });
      // Another tenant's session of the source's id is not the caller's source: still missing.
      await sourceWithForks(server, server.keys.adminB, 'trip', []);
      expect(((await server.call('GET', '/sessions/trip-b/summary', { key })).json as Row).forkedFrom?.missing).toBe(
        true,
      );
    });
  },
  'fork-delete-http',
);
