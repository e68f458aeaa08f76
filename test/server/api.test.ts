/**
 * The HTTP API over real HTTP on loopback: sessions, cursor paging, messages, appends with
 * ETag/If-Match, values, errors in one shape, body limits, keys and the no-key loopback rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEQ, MAX_TTL_MS } from '../../src/bounds.js';
import { memoryStore } from '../../src/stores/memory.js';
import { startServer } from '../../src/server/node.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { wrappedStore } from '../support/wrapped-store.js';
import { startTestServer, type TestServer } from './server-harness.js';

let store: SessionStore;
let server: TestServer;

beforeAll(async () => {
  store = memoryStore();
  server = await startTestServer(store, { maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await server.close();
  await store.close();
});

const hello = (id: string, text = 'hello') => ({ id, role: 'user', content: text });

describe('the chatstate HTTP API', () => {
  it('creates, reads, lists and deletes a session; the ETag is its version', async () => {
    const key = server.keys.adminA;
    const created = await server.call('POST', '/sessions', {
      key,
      body: { id: 'trip', userId: 'alice', messages: [hello('m1', 'Lisbon in May?')] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.headers.get('location')).toBe('/sessions/trip');
    expect(created.json).toMatchObject({ id: 'trip', userId: 'alice', version: 1 });
    const read = await server.call('GET', '/sessions/trip', { key });
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(read.json).toMatchObject({ id: 'trip', messages: [{ id: 'm1', seq: 1, content: 'Lisbon in May?' }] });
    const again = await server.call('POST', '/sessions', { key, body: { id: 'trip' } });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'CONFLICT' });
    expect((await server.call('DELETE', '/sessions/trip', { key })).status).toBe(204);
    expect((await server.call('GET', '/sessions/trip', { key })).json).toMatchObject({ code: 'NOT_FOUND' });
    expect((await server.call('DELETE', '/sessions/trip', { key })).status).toBe(404);
  });

  it('pages the list with an opaque cursor, every session once', async () => {
    const key = server.keys.adminB;
    for (let n = 0; n < 7; n++) await server.call('POST', '/sessions', { key, body: { id: `page-${n}` } });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await server.call('GET', `/sessions?limit=3${cursor === undefined ? '' : `&cursor=${cursor}`}`, {
        key,
      });
      expect(page.status).toBe(200);
      const body = page.json as { sessions: Array<{ id: string }>; nextCursor?: string };
      seen.push(...body.sessions.map((row) => row.id));
      cursor = body.nextCursor;
      if (cursor === undefined) break;
    }
    expect(seen.filter((id) => id.startsWith('page-')).sort()).toEqual(
      Array.from({ length: 7 }, (_, n) => `page-${n}`),
    );
    expect(new Set(seen).size).toBe(seen.length);
    const bad = await server.call('GET', '/sessions?cursor=not-a-cursor', { key });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it("lists chatstate's internal sessions only with kinds, each with its kind; a bad kinds is 400", async () => {
    const key = server.keys.adminA;
    const user = 'kinds-user';
    await server.call('POST', '/sessions', { key, body: { id: 'kinds-chat', userId: user, messages: [hello('k1')] } });
    for (const [id, kind] of [
      ['kinds-facts', 'knowledge'],
      ['kinds-log', 'langgraph-checkpoints'],
    ])
      await server.call('POST', '/sessions', { key, body: { id, userId: user, metadata: { chatstate: kind } } });
    const ids = async (query: string): Promise<Array<[string, string | undefined]>> => {
      const page = await server.call('GET', `/sessions?userId=${user}${query}`, { key });
      expect(page.status).toBe(200);
      const rows = (page.json as { sessions: Array<{ id: string; kind?: string }> }).sessions;
      return rows.map((row): [string, string | undefined] => [row.id, row.kind]).sort();
    };
    expect(await ids('')).toEqual([['kinds-chat', undefined]]);
    expect(await ids('&kinds=conversations')).toEqual([['kinds-chat', undefined]]);
    expect(await ids('&kinds=all')).toEqual([
      ['kinds-chat', undefined],
      ['kinds-facts', 'knowledge'],
      ['kinds-log', 'langgraph-checkpoints'],
    ]);
    expect(await ids('&kinds=knowledge,langgraph-checkpoints')).toEqual([
      ['kinds-facts', 'knowledge'],
      ['kinds-log', 'langgraph-checkpoints'],
    ]);
    // The search filters (q) page through the store's listing with the same kinds.
    expect(await ids('&q=kinds-&kinds=all')).toHaveLength(3);
    expect(await ids('&q=kinds-')).toEqual([['kinds-chat', undefined]]);
    // Paged by the cursor: every row of kinds=all once, two a page.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await server.call(
        'GET',
        `/sessions?userId=${user}&kinds=all&limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`,
        { key },
      );
      const body = page.json as { sessions: Array<{ id: string }>; nextCursor?: string };
      seen.push(...body.sessions.map((row) => row.id));
      cursor = body.nextCursor;
    } while (cursor !== undefined);
    expect(seen.sort()).toEqual(['kinds-chat', 'kinds-facts', 'kinds-log']);
    for (const bad of ['Knowledge', 'a b', 'knowledge,,x', ',']) {
      const refused = await server.call('GET', `/sessions?kinds=${encodeURIComponent(bad)}`, { key });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  it('appends with If-Match: the right version lands, a stale one gets 412, a retry adds nothing', async () => {
    const key = server.keys.memberA;
    await server.call('POST', '/sessions', { key, body: { id: 'chat' } });
    const first = await server.call('POST', '/sessions/chat/messages', {
      key,
      headers: { 'if-match': '"1"' },
      body: { messages: [hello('a1')] },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('"2"');
    expect(first.json).toMatchObject({ version: 2, appended: [{ id: 'a1', seq: 1 }], duplicates: [] });
    const stale = await server.call('POST', '/sessions/chat/messages', {
      key,
      headers: { 'if-match': '"1"' },
      body: { messages: [hello('a2')] },
    });
    expect(stale.status).toBe(412);
    expect(stale.json).toMatchObject({ code: 'CONFLICT' });
    // The 412 names the version now: a retry with it lands without reading the session.
    expect(stale.headers.get('etag')).toBe('"2"');
    const retried = await server.call('POST', '/sessions/chat/messages', {
      key,
      headers: { 'if-match': stale.headers.get('etag') as string },
      body: { messages: [hello('a2')] },
    });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('etag')).toBe('"3"');
    const retry = await server.call('POST', '/sessions/chat/messages', { key, body: { messages: [hello('a1')] } });
    expect(retry.json).toMatchObject({ version: 3, appended: [], duplicates: ['a1'] });
    const tail = await server.call('GET', '/sessions/chat/messages?limit=2', { key });
    expect(tail.json).toMatchObject({ messages: [{ id: 'a1' }, { id: 'a2' }] });
    const badMatch = await server.call('POST', '/sessions/chat/messages', {
      key,
      headers: { 'if-match': 'W/"2"' },
      body: { messages: [hello('a3')] },
    });
    expect(badMatch.status).toBe(400);
  });

  it('compacts (a dry run writes nothing), forks at a message and continues a session', async () => {
    const key = server.keys.adminA;
    const turns = Array.from({ length: 6 }, (_, n) => [
      hello(`u${n}`, `question ${n}`),
      { id: `a${n}`, role: 'assistant', content: `answer ${n}` },
    ]).flat();
    await server.call('POST', '/sessions', { key, body: { id: 'long', messages: turns } });
    const dry = await server.call('POST', '/sessions/long/compact', {
      key,
      body: { strategy: 'slidingWindow', turns: 2, dryRun: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.json).toMatchObject({
      compacted: true,
      written: false,
      messagesBefore: 12,
      messagesAfter: 4,
      version: 1,
    });
    expect((await server.call('GET', '/sessions/long/messages', { key })).json).toMatchObject({
      messages: expect.arrayContaining([expect.objectContaining({ id: 'u0' })]),
    });
    const missing = await server.call('POST', '/sessions/long/compact', { key, body: { strategy: 'slidingWindow' } });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'strategy slidingWindow needs turns' });
    const done = await server.call('POST', '/sessions/long/compact', {
      key,
      body: { strategy: 'slidingWindow', turns: 2 },
    });
    expect(done.json).toMatchObject({ written: true, version: 2 });
    expect(done.headers.get('etag')).toBe('"2"');
    const forked = await server.call('POST', '/sessions/long/fork', { key, body: { atMessageId: 'u5', id: 'long-b' } });
    expect(forked.status).toBe(201);
    expect(forked.json).toMatchObject({
      id: 'long-b',
      metadata: { forkedFrom: { sessionId: 'long', messageId: 'u5' } },
    });
    const unknownMessage = await server.call('POST', '/sessions/long/fork', { key, body: { atMessageId: 'nope' } });
    expect(unknownMessage.status).toBe(404);
    const next = await server.call('POST', '/sessions/long/continue', { key });
    expect(next.status).toBe(201);
    const successor = next.json as { id: string; metadata: Record<string, unknown> };
    expect(successor.metadata).toMatchObject({ continuedFrom: 'long' });
    expect((await server.call('GET', '/sessions/long', { key })).json).toMatchObject({
      metadata: { continuedTo: successor.id },
    });
    expect((await server.call('POST', '/sessions/long/continue', { key })).status).toBe(409);
  });

  it('reads and patches values of every scope; members may not change the app scope', async () => {
    const admin = server.keys.adminA;
    await server.call('POST', '/sessions', { key: admin, body: { id: 'valued', userId: 'alice' } });
    for (const path of ['/sessions/valued/values', '/values/users/alice', '/values/agents/planner/users/alice']) {
      const set = await server.call('PATCH', path, { key: admin, body: { colour: 'red', gone: 1 } });
      expect(set.status).toBe(200);
      const cleared = await server.call('PATCH', path, { key: admin, body: { gone: null } });
      expect(cleared.json).toEqual({ colour: 'red' });
      expect((await server.call('GET', path, { key: admin })).json).toEqual({ colour: 'red' });
    }
    expect((await server.call('PATCH', '/values/app', { key: admin, body: { plan: 'gold' } })).status).toBe(200);
    const member = await server.call('PATCH', '/values/app', { key: server.keys.memberA, body: { plan: 'free' } });
    expect(member.status).toBe(403);
    expect(member.json).toMatchObject({ code: 'FORBIDDEN' });
    expect((await server.call('GET', '/values/app', { key: server.keys.memberA })).json).toEqual({ plan: 'gold' });
  });

  it('answers every error in one shape: 400, 401, 404 (also for unknown routes), 413 (declared or chunked)', async () => {
    const key = server.keys.adminA;
    const shape = { code: expect.any(String), message: expect.any(String), details: expect.any(Object) };
    const invalidId = await server.call('GET', '/sessions/..%2Fetc', { key });
    expect(invalidId.status).toBe(400);
    expect(invalidId.json).toMatchObject(shape);
    const invalidBody = await server.call('POST', '/sessions', {
      key,
      body: { id: 'x', messages: [{ role: 'robot' }] },
    });
    expect(invalidBody.status).toBe(400);
    expect(invalidBody.json).toMatchObject({ ...shape, code: 'INVALID_ARGUMENT' });
    const notJson = await server.call('POST', '/sessions', { key, body: '{"id": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject(shape);
    const noKey = await server.call('GET', '/sessions');
    expect(noKey.status).toBe(401);
    expect(noKey.json).toMatchObject({ ...shape, code: 'UNAUTHORIZED' });
    expect((await server.call('GET', '/sessions', { key: 'csk_wrong' })).status).toBe(401);
    const unknown = await server.call('GET', '/no/such/route', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ ...shape, code: 'NOT_FOUND' });
    const big = await server.call('POST', '/sessions', {
      key,
      body: { id: 'big', messages: [hello('m1', 'x'.repeat(100 * 1024))] },
    });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ ...shape, code: 'TOO_LARGE' });
    expect(await store.get('tenant-a.big')).toBeUndefined();
    // A body without a declared length (chunked) is counted as it arrives.
    const text = JSON.stringify({ id: 'chunked', messages: [hello('m1', 'x'.repeat(100 * 1024))] });
    const chunked = await fetch(`${server.url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: new Blob([text]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ ...shape, code: 'TOO_LARGE' });
    expect(await store.get('tenant-a.chunked')).toBeUndefined();
    const small = await fetch(`${server.url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: new Blob([JSON.stringify({ id: 'chunked-small' })]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(small.status).toBe(201);
    const health = await server.call('GET', '/healthz');
    expect(health.json).toEqual({ status: 'ok' });
    expect((await server.call('GET', '/readyz')).status).toBe(200);
  });

  it('refuses a ttlMs or seq past its bound with 400, writes nothing, and the tenant goes on listing', async () => {
    const key = server.keys.adminA;
    const bodies = [
      { id: 'far-ttl', ttlMs: Number.MAX_SAFE_INTEGER },
      { id: 'far-ttl-2', ttlMs: MAX_TTL_MS + 1 },
      { id: 'far-seq', messages: [{ role: 'user', content: 'x', seq: Number.MAX_SAFE_INTEGER }] },
      { id: 'far-seq-2', messages: [{ role: 'user', content: 'x', seq: MAX_SEQ + 1 }] },
    ];
    for (const body of bodies) {
      const answer = await server.call('POST', '/sessions', { key, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await store.get(`tenant-a.${body.id}`)).toBeUndefined();
    }
    const longest = await server.call('POST', '/sessions', { key, body: { id: 'longest-ttl', ttlMs: MAX_TTL_MS } });
    expect(longest.status).toBe(201);
    expect((await server.call('GET', '/sessions', { key })).status).toBe(200);
    expect((await server.call('GET', '/readyz')).status).toBe(200);
  });

  it('answers /readyz from the store itself, never from a session, and names nothing stored when not ready', async () => {
    const broken = () => Promise.reject(new Error('the row of session "tenant-b.private-1" is damaged'));
    const damaged = await startTestServer(wrappedStore(store, { list: broken, get: broken, load: broken }));
    try {
      expect((await damaged.call('GET', '/readyz')).status).toBe(200);
    } finally {
      await damaged.close();
    }
    const down = await startTestServer(wrappedStore(store, { ping: broken }));
    try {
      const answer = await down.call('GET', '/readyz');
      expect(answer.status).toBe(503);
      expect(answer.json).toMatchObject({ code: 'UNAVAILABLE' });
      expect(answer.text).not.toContain('private-1');
      expect(down.logs.some((line) => line.level === 'warn' && String(line.message).includes('private-1'))).toBe(true);
    } finally {
      await down.close();
    }
  });

  it("recalls a user's messages, best first, only within the key's tenant and user", async () => {
    const admin = server.keys.adminA;
    await server.call('POST', '/sessions', {
      key: admin,
      body: {
        id: 'recall-1',
        userId: 'alice',
        messages: [hello('r1', 'the ferry to Cacilhas leaves every twenty minutes'), hello('r2', 'lunch at noon')],
      },
    });
    await server.call('POST', '/sessions', {
      key: server.keys.adminB,
      body: { id: 'recall-1', userId: 'alice', messages: [hello('r1', 'the ferry of tenant b')] },
    });
    const found = await server.call('POST', '/recall', { key: admin, body: { userId: 'alice', query: 'ferry', k: 3 } });
    expect(found.status).toBe(200);
    const hits = (found.json as { hits: Array<{ sessionId: string; text: string }> }).hits;
    expect(hits.map((hit) => [hit.sessionId, hit.text])).toEqual([
      ['recall-1', 'the ferry to Cacilhas leaves every twenty minutes'],
    ]);
    const bob = await server.call('POST', '/recall', {
      key: server.keys.bobA,
      body: { userId: 'alice', query: 'ferry' },
    });
    expect(bob.text).not.toContain('Cacilhas');
    expect(bob.status).toBe(403);
    expect(bob.json).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('exposes Prometheus metrics by route pattern, never by id or tenant', async () => {
    await server.call('GET', '/sessions/no-such-session', { key: server.keys.adminA });
    const metrics = await server.call('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(
      /chatstate_http_requests_total\{method="GET",route="\/sessions\/:id",status="404"\} [1-9]/,
    );
    expect(metrics.text).toMatch(
      /chatstate_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/sessions\/:id"\}/,
    );
    expect(metrics.text).not.toContain('no-such-session');
    expect(metrics.text).not.toContain('tenant-a');
  });

  it('asks for the metrics key or an admin key at /metrics once a metrics key is set', async () => {
    const metricsKey = 'the-scraper-key-of-sixteen-or-more';
    const guarded = await startTestServer(store, { metricsKey });
    try {
      const status = async (headers: Record<string, string>) =>
        (await guarded.call('GET', '/metrics', { headers })).status;
      expect(await status({})).toBe(401);
      expect(await status({ authorization: `Bearer ${guarded.keys.memberA}` })).toBe(401);
      expect(await status({ authorization: `Bearer ${metricsKey.slice(0, -1)}` })).toBe(401);
      expect(await status({ authorization: `Bearer ${metricsKey}` })).toBe(200);
      expect(await status({ 'x-api-key': guarded.keys.adminB })).toBe(200);
      const byKey = await guarded.call('GET', '/metrics', { headers: { 'x-api-key': metricsKey } });
      expect(byKey.status).toBe(200);
      expect(byKey.text).toContain('chatstate_http_requests_total');
    } finally {
      await guarded.close();
    }
    for (const bad of ['short', 'sixteen chars with spaces'])
      await expect(startTestServer(store, { metricsKey: bad })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('logs one JSON line per request with its request id, and echoes a sane X-Request-Id', async () => {
    const answer = await server.call('GET', '/healthz', { headers: { 'x-request-id': 'trace-42' } });
    expect(answer.headers.get('x-request-id')).toBe('trace-42');
    expect(server.logs).toContainEqual(
      expect.objectContaining({ requestId: 'trace-42', method: 'GET', path: '/healthz', status: 200 }),
    );
    const odd = await server.call('GET', '/healthz', { headers: { 'x-request-id': 'a b\tc' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('without keys, serves the whole store but refuses to listen beyond loopback', async () => {
    const open = memoryStore();
    await expect(startServer({ store: open, hostname: '0.0.0.0', port: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const local = await startTestServer(open, { withKeys: false });
    try {
      expect((await local.call('POST', '/sessions', { body: { id: 'plain' } })).status).toBe(201);
      expect(await open.get('plain')).toBeDefined();
    } finally {
      await local.close();
      await open.close();
    }
  });
});

interface StreamEvent {
  readonly event: string;
  readonly id?: string;
  readonly data: unknown;
}

/** The events of `response`, one at a time (`undefined` once the stream ended). */
function eventReader(response: Response): {
  next: () => Promise<StreamEvent | undefined>;
  cancel: () => Promise<void>;
} {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
          );
          return {
            event: fields.event ?? 'message',
            ...(fields.id === undefined ? {} : { id: fields.id }),
            data: JSON.parse(fields.data ?? 'null'),
          };
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

/** Reads events from `response` until `count` came (or the stream ended). */
async function readEvents(response: Response, count: number): Promise<StreamEvent[]> {
  const events = eventReader(response);
  const got: StreamEvent[] = [];
  while (got.length < count) {
    const event = await events.next();
    if (event === undefined) break;
    got.push(event);
  }
  await events.cancel();
  return got;
}

describe('the event stream of a session', () => {
  it('tells appends (from this server at once, from another writer by polling), a compaction and a delete', async () => {
    const local = memoryStore();
    const events = await startTestServer(local, { eventPollMs: 100 });
    try {
      const key = events.keys.adminA;
      const headers = { authorization: `Bearer ${key}` };
      await events.call('POST', '/sessions', { key, body: { id: 'live', messages: [hello('m1')] } });
      const response = await fetch(`${events.url}/sessions/live/events`, { headers });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const stream = eventReader(response);
      // Each change waits for its event before the next one: no timing assumptions.
      expect(await stream.next()).toMatchObject({ event: 'ready', id: '1', data: { version: 1 } });
      await events.call('POST', '/sessions/live/messages', { key, body: { messages: [hello('m2', 'over HTTP')] } });
      // Each message's tokens come with it, as GET /sessions/{id}/messages counts them.
      const counted = (await events.call('GET', '/sessions/live/messages?afterSeq=1', { key })).json as {
        counter: string;
        tokenCounts: number[];
      };
      expect(await stream.next()).toMatchObject({
        event: 'change',
        id: '2',
        data: {
          version: 2,
          messages: [{ id: 'm2', seq: 2 }],
          counter: counted.counter,
          tokenCounts: counted.tokenCounts,
        },
      });
      expect(counted.tokenCounts).toHaveLength(1);
      // Another writer: straight into the store, under the tenant's name (found by polling).
      await local.append('tenant-a.live', [{ id: 'm3', role: 'assistant', content: 'from another process' }]);
      expect(await stream.next()).toMatchObject({
        event: 'change',
        id: '3',
        data: { version: 3, messages: [{ id: 'm3', seq: 3 }] },
      });
      await events.call('POST', '/sessions/live/compact', { key, body: { strategy: 'messageLimit', maxMessages: 1 } });
      expect(await stream.next()).toMatchObject({ event: 'change', data: { replaced: true } });
      await events.call('DELETE', '/sessions/live', { key });
      expect(await stream.next()).toMatchObject({ event: 'deleted' });
      expect(await stream.next()).toBeUndefined();
      const other = await fetch(`${events.url}/sessions/live/events`, { headers });
      expect(other.status).toBe(404);
    } finally {
      await events.close();
      await local.close();
    }
  });
});

describe('closing the server', () => {
  it('ends open event streams, so close does not wait for its grace period', async () => {
    const local = memoryStore();
    const running = await startTestServer(local, { eventPollMs: 60_000 });
    const key = running.keys.adminA;
    await running.call('POST', '/sessions', { key, body: { id: 'open' } });
    const response = await fetch(`${running.url}/sessions/open/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const reading = readEvents(response, 10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = Promise.race([
      running.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5_000).unref()),
    ]);
    expect(await closed).toBe('closed');
    expect((await reading).map((event) => event.event)).toEqual(['ready']);
    await local.close();
  });
});
