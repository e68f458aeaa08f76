/**
 * Copies of a forgotten user kept in process memory go with them:
 * - the server's view cache (computed stats): after `DELETE /users/{userId}` the stats of their
 *   session are 404, and a session made again under the same id and version is answered with its
 *   own stats, never the forgotten one's (the receipt counts the dropped view); and the recall
 *   partition `/recall` built for the same key is dropped too;
 * - a `SessionManager`'s cached sessions: dropped with an unsaved change, which is never written back;
 * - active memory's recall partition of the user: dropped (counted), and recall finds nothing after.
 * Real HTTP and real stores: no mocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recallIndexFor } from '../../src/active-memory/recall-index.js';
import { SessionManager } from '../../src/manager/session-manager.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { expectCode } from '../../src/testing/fixtures.js';
import { startTestServer, type TestServer } from './server-harness.js';

describe("the server's view cache", () => {
  let store: SessionStore;
  let view: SessionStore;
  let server: TestServer;

  beforeAll(async () => {
    store = memoryStore();
    view = tenantStore(store, { tenant: 'tenant-a' });
    server = await startTestServer(store);
  });

  afterAll(async () => {
    await server.close();
    await store.close();
  });

  const conversation = (turns: number) =>
    Array.from({ length: turns }, (_, index) =>
      index % 2 === 0 ? Message.user(`question ${index}`) : Message.assistant(`answer ${index} `.repeat(index + 1)),
    );

  it('drops a forgotten user’s computed stats: 404 after the forget, and a new session of that id gets its own', async () => {
    const stats = (id: string) => server.call('GET', `/sessions/${id}/stats`, { key: server.keys.adminA });
    await view.save(Session.create({ id: 'carol-chat', userId: 'carol', messages: conversation(2) }));
    const before = await stats('carol-chat');
    expect(before.status).toBe(200);
    // Served from the cache now: the same version is asked again.
    expect((await stats('carol-chat')).json).toEqual(before.json);

    const forgotten = await server.call('DELETE', '/users/carol', { key: server.keys.adminA });
    expect(forgotten.status).toBe(200);
    expect((forgotten.json as { removed: { sessions: number; cached: number } }).removed).toMatchObject({
      sessions: 1,
      cached: 1,
    });
    expect((await stats('carol-chat')).status).toBe(404);

    // Made again with another conversation, at the same version: its own stats, not the forgotten one's.
    const again = await view.save(Session.create({ id: 'carol-chat', userId: 'carol', messages: conversation(6) }));
    expect(again.version).toBe((before.json as { version: number }).version);
    const after = await stats('carol-chat');
    expect(after.status).toBe(200);
    expect((after.json as { stats: unknown }).stats).not.toEqual((before.json as { stats: unknown }).stats);
  });

  it('drops the recall partition that /recall built for the same key (one store view per key across routes)', async () => {
    await view.save(
      Session.create({ id: 'hal-chat', userId: 'hal', messages: [Message.user('my locker code is quetzal')] }),
    );
    const found = await server.call('POST', '/recall', {
      key: server.keys.adminA,
      body: { userId: 'hal', query: 'locker code quetzal', k: 3 },
    });
    expect(found.status).toBe(200);
    const forgotten = await server.call('DELETE', '/users/hal', { key: server.keys.adminA });
    // The partition held hal's one message.
    expect((forgotten.json as { removed: { cached: number } }).removed.cached).toBe(1);
  });
});

describe("a SessionManager's cached sessions", () => {
  it('are dropped with their unsaved changes, which are never written back', async () => {
    const store = memoryStore();
    const manager = new SessionManager({ store, autoSaveIntervalMs: false });
    try {
      await store.save(Session.create({ id: 'dave-chat', userId: 'dave', messages: [Message.user('hello')] }));
      await store.save(Session.create({ id: 'erin-chat', userId: 'erin', messages: [Message.user('hi')] }));
      await manager.load('dave-chat');
      await manager.load('erin-chat');
      await manager.update('dave-chat', (session) => session.append(Message.assistant('not saved yet')));
      expect(manager.isDirty('dave-chat')).toBe(true);

      const receipt = await manager.forgetUser('dave');
      expect(receipt.removed).toMatchObject({ sessions: 1, cached: 1 });
      expect(manager.isDirty('dave-chat')).toBe(false);
      await manager.flush();
      expect(await store.get('dave-chat')).toBeUndefined();
      await expectCode(() => manager.load('dave-chat'), 'NOT_FOUND');
      // Another user's cached session is still served.
      expect((await manager.load('erin-chat')).userId).toBe('erin');
    } finally {
      await manager.close();
      await store.close();
    }
  });
});

describe("active memory's recall partitions", () => {
  it('drops the forgotten user’s partition (counted) and recall finds nothing of them after', async () => {
    const store = memoryStore();
    try {
      await store.save(
        Session.create({ id: 'fay-chat', userId: 'fay', messages: [Message.user('my locker code is quetzal')] }),
      );
      await store.save(
        Session.create({ id: 'gus-chat', userId: 'gus', messages: [Message.user('my locker code is quetzal too')] }),
      );
      const index = recallIndexFor(store);
      const recall = (userId: string, sessionId: string) =>
        index.recall({ query: 'locker code quetzal', k: 5, threshold: 0, userId, sessionId });
      expect((await recall('fay', 'fay-chat')).map((hit) => hit.sessionId)).toEqual(['fay-chat']);
      expect((await recall('gus', 'gus-chat')).map((hit) => hit.sessionId)).toEqual(['gus-chat']);
      const held = index.size;

      const receipt = await store.forgetUser('fay');
      // The partition held fay's one message: that copy is what was dropped.
      expect(receipt.removed.cached).toBe(1);
      expect(index.size).toBe(held - 1);
      expect(await recall('fay', 'fay-chat')).toEqual([]);
      expect((await recall('gus', 'gus-chat')).map((hit) => hit.sessionId)).toEqual(['gus-chat']);
    } finally {
      await store.close();
    }
  });
});
