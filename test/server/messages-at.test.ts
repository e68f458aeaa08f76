/**
 * The batched reads over HTTP: `POST /messages/at` and `GET /users/{userId}/marks` refuse bad
 * input with the API's typed 400 (and another user's marks with 403 for a key bound to a user);
 * the remote store reads k refs, and a user's marks, in ONE request each (counted in the server's
 * own request log); and against a server older than the two routes (a front that answers their
 * paths as an older server does, "No route"), the store falls back on range reads and the listing,
 * asks the missing route once, and a base URL that is not the API still fails instead of reading
 * as empty. Real HTTP over loopback, a memory store under the server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { createServerApp } from '../../src/server/app.js';
import { KeyRing } from '../../src/server/auth/api-keys.js';
import { errorAnswer } from '../../src/server/errors.js';
import type { LogLine } from '../../src/server/request-log.js';
import { Session } from '../../src/session/session.js';
import { MAX_READ_AT } from '../../src/store/message-refs.js';
import type { MessageRef, SessionStore } from '../../src/store/session-store-types.js';
import { httpStore } from '../../src/stores/http/index.js';
import { memoryStore } from '../../src/stores/memory.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { startTestServer, type TestServer } from './server-harness.js';

let store: SessionStore;
let server: TestServer;

/** Tenant A's sessions: alice's `a1` (5 messages), `a2` (3) and bob's `b1` (2). */
async function seed(): Promise<void> {
  const view = tenantStore(store, { tenant: 'tenant-a' });
  const messages = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => Message.user(`${prefix} says ${i + 1}`, { id: `${prefix}-${i + 1}` }));
  await view.save(Session.create({ id: 'a1', userId: 'alice', messages: messages('a1', 5) }));
  await view.save(Session.create({ id: 'a2', userId: 'alice', messages: messages('a2', 3) }));
  await view.save(Session.create({ id: 'b1', userId: 'bob', messages: messages('b1', 2) }));
}

beforeAll(async () => {
  store = memoryStore();
  server = await startTestServer(store);
  await seed();
});
afterAll(async () => {
  await server.close();
  await store.close();
});

/** Ten refs over three sessions, one missing seq and one missing session among them. */
const REFS: MessageRef[] = [
  { sessionId: 'a1', seq: 5 },
  { sessionId: 'a2', seq: 1 },
  { sessionId: 'b1', seq: 2 },
  { sessionId: 'a1', seq: 1 },
  { sessionId: 'a1', seq: 9 },
  { sessionId: 'none', seq: 1 },
  { sessionId: 'a2', seq: 3 },
  { sessionId: 'a1', seq: 5 },
  { sessionId: 'a1', seq: 3 },
  { sessionId: 'b1', seq: 1 },
];
const EXPECTED = ['a1-5', 'a2-1', 'b1-2', 'a1-1', undefined, undefined, 'a2-3', 'a1-5', 'a1-3', 'b1-1'];

/** The requests the server logged while `run` ran, as `METHOD path`. */
async function requestsDuring(logs: readonly LogLine[], run: () => Promise<unknown>): Promise<string[]> {
  const from = logs.length;
  await run();
  return logs.slice(from).map((line) => `${String(line.method)} ${String(line.path)}`);
}

/** The marks of `userId` through `remote` (the remote store has the call). */
function marksOf(remote: SessionStore, userId: string) {
  return (remote.marks as NonNullable<SessionStore['marks']>)(userId);
}

/** The messages at `refs` through `remote` (the remote store has the call). */
function readAt(remote: SessionStore, refs: readonly MessageRef[]) {
  return (remote.readMessagesAt as NonNullable<SessionStore['readMessagesAt']>)(refs);
}

describe('POST /messages/at and GET /users/{userId}/marks', () => {
  it('answer one entry per ref (null where there is none), and the marks of the user', async () => {
    const read = await server.call('POST', '/messages/at', { key: server.keys.adminA, body: { refs: REFS } });
    expect(read.status, read.text).toBe(200);
    const messages = (read.json as { messages: Array<{ id: string } | null> }).messages;
    expect(messages.map((message) => message?.id)).toEqual(EXPECTED.map((id) => id ?? undefined));
    expect(messages[4]).toBeNull();
    const marks = await server.call('GET', '/users/alice/marks', { key: server.keys.adminA });
    expect(marks.status, marks.text).toBe(200);
    const rows = (marks.json as { marks: Array<{ id: string; messageCount: number }> }).marks;
    expect(rows.map((row) => [row.id, row.messageCount]).sort()).toEqual([
      ['a1', 5],
      ['a2', 3],
    ]);
  });

  it('refuse bad input with the typed 400, and another user for a bound key with 403', async () => {
    const key = server.keys.adminA;
    const many = Array.from({ length: MAX_READ_AT + 1 }, () => ({ sessionId: 'a1', seq: 1 }));
    const bodies: unknown[] = [
      { refs: many },
      {},
      { refs: 'a1' },
      { refs: [null] },
      { refs: [{ sessionId: 'a1' }] },
      { refs: [{ sessionId: 'a1', seq: 0 }] },
      { refs: [{ sessionId: 'a1', seq: 1.5 }] },
      { refs: [{ sessionId: 'a1', seq: '1' }] },
      { refs: [{ sessionId: 'a1', seq: 2 ** 49 }] },
      { refs: [{ sessionId: 'a1', seq: 1, extra: true }] },
      { refs: [{ sessionId: '../etc', seq: 1 }] },
      { refs: [{ sessionId: '', seq: 1 }] },
      { refs: [{ sessionId: 'x'.repeat(129), seq: 1 }] },
      { refs: [{ sessionId: '__proto__', seq: 1 }] },
      { refs: [], more: 1 },
    ];
    for (const body of bodies) {
      const answer = await server.call('POST', '/messages/at', { key, body });
      expect(answer.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(answer.json).toMatchObject({ code: expect.stringMatching(/^INVALID_(ARGUMENT|ID)$/) });
    }
    expect((await server.call('POST', '/messages/at', { key, body: { refs: many.slice(1) } })).status).toBe(200);
    for (const user of ['u'.repeat(257), 'u'.repeat(300)]) {
      const answer = await server.call('GET', `/users/${encodeURIComponent(user)}/marks`, { key });
      expect(answer.status, user).toBe(400);
      expect(answer.json).toMatchObject({ code: expect.stringMatching(/^INVALID_(ARGUMENT|ID)$/) });
    }
    const refused = await server.call('GET', '/users/bob/marks', { key: server.keys.aliceA });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'FORBIDDEN' });
    expect((await server.call('POST', '/messages/at', { body: { refs: [] } })).status).toBe(401);
  });

  it("keep a bound key to its user's sessions and a tenant to its own", async () => {
    const alice = await server.call('POST', '/messages/at', { key: server.keys.aliceA, body: { refs: REFS } });
    const ids = (alice.json as { messages: Array<{ id: string } | null> }).messages.map((message) => message?.id);
    expect(ids).toEqual(EXPECTED.map((id) => (id?.startsWith('a') ? id : undefined)));
    const own = await server.call('GET', '/users/alice/marks', { key: server.keys.aliceA });
    expect((own.json as { marks: unknown[] }).marks).toHaveLength(2);
    const other = await server.call('POST', '/messages/at', {
      key: server.keys.adminB,
      body: { refs: [...REFS, { sessionId: 'tenant-a.a1', seq: 1 }] },
    });
    expect((other.json as { messages: unknown[] }).messages.every((message) => message === null)).toBe(true);
    const marks = await server.call('GET', '/users/alice/marks', { key: server.keys.adminB });
    expect((marks.json as { marks: unknown[] }).marks).toEqual([]);
  });
});

describe('the http store over the batched routes', () => {
  it('reads 10 refs in ONE request, and a user’s marks in ONE request', async () => {
    const remote = httpStore(server.url, { apiKey: server.keys.adminA });
    try {
      let read: Array<Message | undefined> = [];
      const readRequests = await requestsDuring(server.logs, async () => {
        read = await readAt(remote, REFS);
      });
      expect(read.map((message) => message?.id)).toEqual(EXPECTED);
      expect(Message.is(read[0])).toBe(true);
      expect(readRequests).toEqual(['POST /messages/at']);
      const marksRequests = await requestsDuring(server.logs, async () => {
        expect((await marksOf(remote, 'alice')).map((mark) => mark.id).sort()).toEqual(['a1', 'a2']);
      });
      expect(marksRequests).toEqual(['GET /users/alice/marks']);
      // Nothing to read: no request at all.
      expect(await requestsDuring(server.logs, () => readAt(remote, []))).toEqual([]);
    } finally {
      await remote.close();
    }
  });

  it('a key bound to a user gets FORBIDDEN for another user’s marks, typed', async () => {
    const remote = httpStore(server.url, { apiKey: server.keys.aliceA });
    try {
      await expect(marksOf(remote, 'bob')).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect((await marksOf(remote, 'alice')).length).toBe(2);
    } finally {
      await remote.close();
    }
  });

  it('against an older server falls back (asking the missing route once), and a wrong base URL still fails', async () => {
    const older = await olderServer(store, server);
    const remote = httpStore(older.url, { apiKey: server.keys.adminA });
    try {
      const first = await requestsDuring(older.logs, async () => {
        expect((await readAt(remote, REFS)).map((message) => message?.id)).toEqual(EXPECTED);
      });
      // One range read per ref, as before the route.
      expect(first).toHaveLength(REFS.length);
      expect(first.every((line) => /^GET \/sessions\/[^/]+\/messages$/.test(line))).toBe(true);
      expect((await marksOf(remote, 'alice')).map((mark) => mark.id).sort()).toEqual(['a1', 'a2']);
      await readAt(remote, REFS.slice(0, 2));
      await marksOf(remote, 'bob');
      // Each missing route was asked once: the store remembers the server is older.
      expect(older.refused).toEqual(['POST /messages/at', 'GET /users/alice/marks']);
    } finally {
      await remote.close();
      await older.close();
    }
    const lost = httpStore(`${server.url}/not-the-api`, { apiKey: server.keys.adminA });
    try {
      await expect(readAt(lost, REFS)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(marksOf(lost, 'alice')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await lost.close();
    }
  });

  it('a server that is down is UNAVAILABLE for both, and the same store works once it is back', async () => {
    const down = await startTestServer(store);
    const remote = httpStore(down.url, { apiKey: down.keys.adminA, timeoutMs: 5_000 });
    try {
      await down.close();
      await expect(readAt(remote, REFS)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(marksOf(remote, 'alice')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await remote.close();
    }
  });
});

/**
 * A server as it was before the two routes: the same app, but their paths answer what an older
 * server answers for a route it does not have (the app's own "No route" error); every other
 * request goes to the app.
 */
async function olderServer(backend: SessionStore, keyed: TestServer) {
  const app = createServerApp({
    store: backend,
    keys: new KeyRing(Object.values(keyed.entries)),
    web: false,
    log: (line) => logs.push(line),
  });
  const logs: LogLine[] = [];
  const refused: string[] = [];
  const server = createAdaptorServer({
    fetch: async (request: Request) => {
      const path = new URL(request.url).pathname;
      const route = `${request.method} ${path}`;
      if (route === 'POST /messages/at' || /^GET \/users\/[^/]+\/marks$/.test(route)) {
        refused.push(route);
        const answer = errorAnswer(new NotFoundError(`No route ${route}`));
        return Response.json(answer.body, { status: answer.status });
      }
      return app.fetch(request);
    },
    hostname: '127.0.0.1',
  }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    logs,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
