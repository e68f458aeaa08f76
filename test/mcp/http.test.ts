/**
 * `/mcp` of `chatstate serve` (Streamable HTTP, stateless), driven by the MCP SDK's own `Client`
 * over real HTTP on loopback: the server's API keys and tenants as for the REST API — a key bound
 * to a user serves that user's memory and no other's, a tenant-wide key names the user, another
 * tenant sees nothing — and bad arguments are tool errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeGraphSessionId } from '../../src/active-memory/graph/knowledge-graph.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { startTestServer, type TestServer } from '../server/server-harness.js';
import { call, callError, httpClient } from './mcp-clients.js';

let store: SessionStore;
let server: TestServer;

beforeAll(async () => {
  store = memoryStore();
  server = await startTestServer(store);
  await store.save(
    Session.create({ id: 'tenant-a.trip-alice', userId: 'tenant-a/alice', messages: [Message.user('hi')] }),
  );
  await store.save(Session.create({ id: 'tenant-a.trip-bob', userId: 'tenant-a/bob', messages: [Message.user('yo')] }));
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});

const mcpUrl = (query = ''): string => `${server.url}/mcp${query}`;

describe('/mcp over Streamable HTTP', () => {
  it("serves a bound key's user, in its tenant's namespace", async () => {
    const alice = await httpClient(mcpUrl(), server.keys.aliceA);
    try {
      await call(alice, 'create_entities', {
        entities: [{ name: 'Alice', entityType: 'person', observations: ['likes tea'] }],
      });
      await call(alice, 'remember', { text: 'Alice lives in Porto.' });
      expect(await store.summary(`tenant-a.${knowledgeGraphSessionId('alice')}`)).toMatchObject({
        userId: 'tenant-a/alice',
      });
      // Only her own sessions, by the names she knows them by.
      const listed = await call<{ sessions: Array<{ id: string }> }>(alice, 'list_sessions');
      expect(listed.sessions.map((row) => row.id)).toEqual(['trip-alice']);
      expect((await alice.listResources()).resources.map((resource) => resource.uri)).toEqual([
        'chatstate://sessions/trip-alice',
      ]);
      expect(await callError(alice, 'read_messages', { sessionId: 'trip-bob' })).toBe('NOT_FOUND: No session trip-bob');
      await expect(alice.readResource({ uri: 'chatstate://sessions/trip-bob' })).rejects.toMatchObject({
        code: -32002,
      });
      expect(await callError(alice, 'get_value', { key: 'x', scope: 'session', sessionId: 'trip-bob' })).toMatch(
        /^NOT_FOUND/,
      );
    } finally {
      await alice.close();
    }
  });

  it("lets a tenant-wide key name the user; another tenant's key sees nothing", async () => {
    const admin = await httpClient(mcpUrl('?user=alice'), server.keys.adminA);
    const other = await httpClient(mcpUrl('?user=alice'), server.keys.adminB);
    try {
      expect(
        (await call<{ entities: Array<{ name: string }> }>(admin, 'read_graph')).entities.map((e) => e.name),
      ).toEqual(['Alice']);
      expect(await call(other, 'read_graph')).toEqual({ entities: [], relations: [] });
      const hits = await call<{ hits: unknown[] }>(other, 'recall', { query: 'where does Alice live' });
      expect(hits.hits).toEqual([]);
      expect((await call<{ sessions: unknown[] }>(other, 'list_sessions', { includeInternal: true })).sessions).toEqual(
        [],
      );
    } finally {
      await admin.close();
      await other.close();
    }
  });

  it('refuses another user for a bound key, no key, and other methods', async () => {
    await expect(httpClient(mcpUrl('?user=bob'), server.keys.aliceA)).rejects.toThrow(/403|FORBIDDEN/);
    await expect(httpClient(mcpUrl())).rejects.toThrow(/401|UNAUTHORIZED/);
    const get = await server.call('GET', '/mcp', { key: server.keys.adminA });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const malformed = await server.call('POST', '/mcp', { key: server.keys.adminA, body: { jsonrpc: '2.0' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it('answers bad arguments with tool errors', async () => {
    const client = await httpClient(mcpUrl(), server.keys.bobA);
    try {
      expect(
        await callError(client, 'add_observations', { observations: [{ entityName: 'Ghost', contents: ['x'] }] }),
      ).toBe('NOT_FOUND: Entity with name "Ghost" not found');
      expect(await callError(client, 'search_nodes', { query: 42 })).toMatch(/Input validation error/);
      expect(await call(client, 'read_graph')).toEqual({ entities: [], relations: [] });
    } finally {
      await client.close();
    }
  });
});
