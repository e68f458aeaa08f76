/**
 * The routes the web session browser reads: a session's list row, its statistics (usage, cost,
 * continuation chain), its token timeline (bounded however long the session), the list's search
 * and activity filters, and the page routes without a built browser. Real HTTP, a real store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError, UnavailableError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { createServerApp } from '../../src/server/app.js';
import { forkLog } from '../../src/session/fork-log.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { wrappedStore } from '../support/wrapped-store.js';
import { SEEDED, seedBrowserSessions, seedLongSession, type Seeded } from '../web/seed.js';
import { startTestServer, type TestServer } from './server-harness.js';

let store: SessionStore;
let view: SessionStore;
let server: TestServer;
let seeded: Seeded;

const PRICES = { currency: 'USD', models: { 'gpt-4.1-mini': { input: 0.4, output: 1.6 } } };

beforeAll(async () => {
  store = memoryStore();
  view = tenantStore(store, { tenant: 'tenant-a' });
  seeded = await seedBrowserSessions(view);
  await seedLongSession(view, 'long', 20_000);
  server = await startTestServer(store, { prices: PRICES, contextWindow: 32_000 });
}, 60_000);

afterAll(async () => {
  await server.close();
  await store.close();
});

const get = (path: string, key?: string) => server.call('GET', path, { key: key ?? server.keys.adminA });

describe('session views', () => {
  it('gives a session’s list row with its links, and its version as ETag', async () => {
    const middle = seeded.chain[1] as string;
    const answer = await get(`/sessions/${middle}/summary`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: middle, continuedFrom: seeded.chain[0], continuedTo: seeded.chain[2] });
    expect(answer.headers.get('etag')).toBe(`"${(answer.json as { version: number }).version}"`);
    const fork = await get(`/sessions/${SEEDED.fork}/summary`);
    expect((fork.json as { forkedFrom?: { sessionId: string } }).forkedFrom?.sessionId).toBe(SEEDED.research);
  });

  it('gives statistics with tool calls by name, usage, cost at the server’s prices, and the chain', async () => {
    const answer = await get(`/sessions/${SEEDED.research}/stats`);
    expect(answer.status).toBe(200);
    const stats = answer.json as {
      stats: { toolCalls: { byName: Record<string, number> } };
      usage: { calls: number; inputTokens: number; outputTokens: number };
      cost: { currency: string; total: number; unpriced: string[] };
      compactions: number;
      chain: { ids: string[]; position: number };
    };
    expect(Object.keys(stats.stats.toolCalls.byName).sort()).toEqual(['read_page', 'search_web']);
    expect(stats.usage.calls).toBeGreaterThan(0);
    expect(stats.cost.currency).toBe('USD');
    expect(stats.cost.total).toBeCloseTo((stats.usage.inputTokens * 0.4 + stats.usage.outputTokens * 1.6) / 1e6);
    expect(stats.compactions).toBeGreaterThanOrEqual(2);
    expect(stats.chain).toEqual({ ids: [SEEDED.research], position: 0, missing: [] });
    const chained = (await get(`/sessions/${seeded.chain[2]}/stats`)).json as { chain: unknown };
    expect(chained.chain).toEqual({ ids: seeded.chain, position: 2, missing: [] });
  });

  it('gives cache reads and writes, the cached share, and prices cached input at the input price by default', async () => {
    const reply = (text: string, usage: Record<string, number>) =>
      Message.assistant(text, { metadata: { usage: { model: 'gpt-4.1-mini', ...usage } } });
    await view.save(
      Session.create({ id: 'cached-calls' }).append(
        Message.user('Summarise the contract.'),
        reply('It renews yearly.', { inputTokens: 3000, outputTokens: 20, cacheWriteInputTokens: 2800 }),
        Message.user('When?'),
        reply('On 1 March.', { inputTokens: 3100, outputTokens: 10, cachedInputTokens: 2800 }),
      ),
    );
    const answer = await get('/sessions/cached-calls/stats');
    expect(answer.status).toBe(200);
    const stats = answer.json as { usage: Record<string, unknown>; cost: { total: number } };
    expect(stats.usage).toMatchObject({
      calls: 2,
      inputTokens: 6100,
      cachedInputTokens: 2800,
      cacheWriteInputTokens: 2800,
      cachedShare: 2800 / 6100,
      byModel: { 'gpt-4.1-mini': { calls: 2, cachedInputTokens: 2800, cacheWriteInputTokens: 2800 } },
    });
    // The server's price has neither cachedInput nor cacheWriteInput: all input at the input price.
    expect(stats.cost.total).toBeCloseTo((6100 * 0.4 + 30 * 1.6) / 1e6);

    await view.save(Session.create({ id: 'no-calls' }).append(Message.user('Hello?')));
    const none = (await get('/sessions/no-calls/stats')).json as { usage: Record<string, unknown> };
    expect(none.usage).toMatchObject({ calls: 0, inputTokens: 0, cacheWriteInputTokens: 0 });
    expect(none.usage).not.toHaveProperty('cachedShare');
  });

  it('gives each point of the timeline the measured usage of its turn’s calls (a bucket’s, downsampled)', async () => {
    const reply = (text: string, usage: Record<string, number>) =>
      Message.assistant(text, { metadata: { usage: { model: 'gpt-4.1-mini', ...usage } } });
    await view.save(
      Session.create({ id: 'turn-usage' }).append(
        Message.user('Summarise the contract.'),
        reply('It renews yearly.', { inputTokens: 3000, outputTokens: 20, cacheWriteInputTokens: 2800 }),
        Message.user('When?'),
        reply('On 1 March.', { inputTokens: 3100, outputTokens: 10, cachedInputTokens: 2800 }),
        Message.user('Thanks.'),
        Message.assistant('You are welcome.'),
      ),
    );
    type Points = { points: Array<{ kind: string; turn: number; usage?: unknown }> };
    const answer = await get('/sessions/turn-usage/timeline');
    expect(answer.status).toBe(200);
    const { points } = answer.json as Points;
    expect(points.map((point) => point.usage)).toEqual([
      { calls: 1, inputTokens: 3000, cachedInputTokens: 0 },
      { calls: 1, inputTokens: 3100, cachedInputTokens: 2800 },
      undefined,
    ]);
    expect(points[2]).not.toHaveProperty('usage');
    const one = (await get('/sessions/turn-usage/timeline?points=1')).json as Points;
    expect(one.points).toEqual([
      expect.objectContaining({ turn: 2, usage: { calls: 2, inputTokens: 6100, cachedInputTokens: 2800 } }),
    ]);
    // The seeded research session: every turn has a measured call, no compaction's point has usage.
    const research = (await get(`/sessions/${SEEDED.research}/timeline`)).json as Points;
    const turns = research.points.filter((point) => point.kind === 'turn');
    expect(turns.every((point) => point.usage !== undefined)).toBe(true);
    expect(research.points.filter((point) => point.kind !== 'turn' && point.usage !== undefined)).toEqual([]);
  });

  it('answers 500 CORRUPT for continuation links that loop or are not ids, not a quietly cut chain', async () => {
    await view.save(Session.create({ id: 'loop-a', metadata: { continuedTo: 'loop-b' } }));
    await view.save(Session.create({ id: 'loop-b', metadata: { continuedFrom: 'loop-a', continuedTo: 'loop-a' } }));
    await view.save(Session.create({ id: 'escape', metadata: { continuedFrom: '../../etc/passwd' } }));
    for (const id of ['loop-a', 'loop-b', 'escape']) {
      const answer = await get(`/sessions/${id}/stats`);
      expect(answer.status).toBe(500);
      expect(answer.json).toMatchObject({ code: 'CORRUPT', details: { id } });
    }
    // The list row of a damaged session is still served: it reads no link.
    expect((await get('/sessions/loop-a/summary')).status).toBe(200);
  });

  it('follows a session’s changes (a view computed for one version is not served for the next)', async () => {
    const first = (await get(`/sessions/${SEEDED.bob}/stats`)).json as { stats: { messages: number } };
    await view.append(SEEDED.bob, [Message.user('And the tomatoes.')]);
    const second = (await get(`/sessions/${SEEDED.bob}/stats`)).json as { stats: { messages: number } };
    expect(second.stats.messages).toBe(first.stats.messages + 1);
  });

  it('gives each message’s tokens beside the messages, by the stats’ counter: they add up to the stats’ total', async () => {
    type Range = { messages: Array<{ seq: number }>; counter: string; tokenCounts: number[] };
    const all = (await get(`/sessions/${SEEDED.research}/messages?limit=10000`)).json as Range;
    const stats = (await get(`/sessions/${SEEDED.research}/stats`)).json as {
      stats: { tokens: { total: number; counter: string } };
    };
    expect(all.counter).toBe(stats.stats.tokens.counter);
    expect(all.tokenCounts).toHaveLength(all.messages.length);
    expect(all.tokenCounts.every((count) => Number.isInteger(count) && count > 0)).toBe(true);
    expect(all.tokenCounts.reduce((sum, count) => sum + count, 0)).toBe(stats.stats.tokens.total);
    // A range gives the counts of its own messages, in their order.
    const [third, fifth] = [all.messages[2]?.seq ?? 0, all.messages[4]?.seq ?? 0];
    const range = (await get(`/sessions/${SEEDED.research}/messages?afterSeq=${third - 1}&beforeSeq=${fifth + 1}`))
      .json as Range;
    expect(range.messages.map((message) => message.seq)).toEqual(all.messages.slice(2, 5).map((m) => m.seq));
    expect(range.tokenCounts).toEqual(all.tokenCounts.slice(2, 5));
  });

  it('gives a bounded timeline of a long session, the server’s context window, and the seq runs', async () => {
    const answer = await get('/sessions/long/timeline');
    const timeline = answer.json as {
      points: unknown[];
      downsampled: boolean;
      turnCount: number;
      contextWindow: number;
      seqRuns: number[][];
      messageCount: number;
    };
    expect(timeline.points).toHaveLength(600);
    expect(timeline.downsampled).toBe(true);
    expect(timeline.turnCount).toBeGreaterThan(600);
    expect(timeline.contextWindow).toBe(32_000);
    expect(timeline.seqRuns).toEqual([[1, 20_000]]);
    expect(answer.text.length).toBeLessThan(200_000);
    const few = (await get('/sessions/long/timeline?points=50')).json as { points: unknown[] };
    expect(few.points).toHaveLength(50);
    // A session's own metadata.contextWindow wins.
    const own = (await get(`/sessions/${SEEDED.research}/timeline`)).json as { contextWindow: number };
    expect(own.contextWindow).toBe(16_000);
  });

  it('searches ids, titles, users and agents in any case, and filters by activity', async () => {
    const ids = async (query: string): Promise<string[]> =>
      ((await get(`/sessions${query}`)).json as { sessions: Array<{ id: string }> }).sessions.map((row) => row.id);
    expect((await ids('?q=SUPPORT')).sort()).toEqual([...seeded.chain].sort());
    // The fork keeps its source's title.
    expect((await ids('?q=energy%20research')).sort()).toEqual([SEEDED.research, SEEDED.fork]);
    expect(await ids('?q=bob')).toEqual([SEEDED.bob]);
    expect(await ids(`?updatedAfter=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect((await ids('?updatedAfter=2000-01-01T00:00:00Z&limit=1')).length).toBe(1);
    // A page of matches has a cursor that goes on after it.
    const page = (await get('/sessions?q=support&limit=2')).json as { sessions: unknown[]; nextCursor?: string };
    expect(page.sessions).toHaveLength(2);
    const next = (await get(`/sessions?q=support&limit=2&cursor=${encodeURIComponent(page.nextCursor ?? '')}`))
      .json as { sessions: unknown[]; nextCursor?: string };
    expect(next.sessions).toHaveLength(1);
    expect(next.nextCursor).toBeUndefined();
  });

  it('answers 404 for a session of another user to a key bound to a user', async () => {
    expect((await get(`/sessions/${SEEDED.bob}/stats`, server.keys.aliceA)).status).toBe(404);
    expect((await get(`/sessions/${SEEDED.research}/timeline`, server.keys.aliceA)).status).toBe(200);
  });

  // Last: the fork it makes would match the searches above.
  it('lists a source’s forks by the tenant’s own ids; a fork names the message it was taken at', async () => {
    type Row = { forks?: string[]; forkedFrom?: { sessionId: string; messageId: string; seq: number } };
    expect(((await get(`/sessions/${SEEDED.research}/summary`)).json as Row).forks).toEqual([SEEDED.fork]);
    const { forkedFrom } = (await get(`/sessions/${SEEDED.fork}/summary`)).json as Row;
    if (forkedFrom === undefined) throw new Error('the fork has no forkedFrom');
    expect(forkedFrom.sessionId).toBe(SEEDED.research);
    // The sequence number opens the source at that very message.
    const range = `afterSeq=${forkedFrom.seq - 1}&beforeSeq=${forkedFrom.seq + 1}&limit=1`;
    const at = (await get(`/sessions/${SEEDED.research}/messages?${range}`)).json as {
      messages: Array<{ id: string }>;
    };
    expect(at.messages.map((message) => message.id)).toEqual([forkedFrom.messageId]);

    const made = await server.call('POST', `/sessions/${SEEDED.research}/fork`, {
      key: server.keys.aliceA,
      body: { atMessageId: forkedFrom.messageId, id: 'research-b' },
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('chatstate-fork-recorded')).toBe('true');
    const forks = [SEEDED.fork, 'research-b'];
    expect(((await get(`/sessions/${SEEDED.research}/summary`)).json as Row).forks).toEqual(forks);
    const rows = ((await get('/sessions?q=energy')).json as { sessions: Array<Row & { id: string }> }).sessions;
    expect(rows.find((row) => row.id === SEEDED.research)?.forks).toEqual(forks);
    // Written through the tenant's view: the store keeps the tenant's own names inside metadata.
    const stored = await store.load(`tenant-a.${SEEDED.research}`);
    expect(forkLog(stored.metadata).map((entry) => entry.sessionId)).toEqual(forks);
    expect((await get(`/sessions/${SEEDED.research}/summary`, server.keys.adminB)).status).toBe(404);
  });
});

describe('a fork its source cannot list', () => {
  it('is stored all the same, and the answer says the source does not list it', async () => {
    const inner = memoryStore();
    let failing = false;
    const flaky = wrappedStore(inner, {
      save: (session, options) =>
        failing && session.id === 'tenant-a.src'
          ? Promise.reject(new UnavailableError('test: the store is down', { store: 'test', reason: 'CONNECTION' }))
          : inner.save(session, options),
    });
    const alone = await startTestServer(flaky);
    try {
      const key = alone.keys.adminA;
      const body = { id: 'src', messages: [{ id: 'm1', role: 'user', content: 'hello' }] };
      expect((await alone.call('POST', '/sessions', { key, body })).status).toBe(201);
      failing = true;
      const made = await alone.call('POST', '/sessions/src/fork', { key, body: { atMessageId: 'm1', id: 'src-b' } });
      expect(made.status).toBe(201);
      expect(made.headers.get('chatstate-fork-recorded')).toBe('false');
      const fork = (await alone.call('GET', '/sessions/src-b/summary', { key })).json as { forkedFrom?: unknown };
      expect(fork.forkedFrom).toEqual({ sessionId: 'src', messageId: 'm1', seq: 1 });
      expect(((await alone.call('GET', '/sessions/src/summary', { key })).json as { forks?: unknown }).forks).toBe(
        undefined,
      );
    } finally {
      await alone.close();
    }
  });
});

describe('the page routes without a built browser', () => {
  it('answer 404 NOT_FOUND saying how to build it', async () => {
    const bare = await startTestServer(memoryStore(), { web: false });
    try {
      const page = await bare.call('GET', '/');
      expect(page.status).toBe(404);
      expect(page.json).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('npm run build') });
      expect((await bare.call('GET', '/assets/index.js')).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

describe('server options of the views', () => {
  it.each([
    ['a context window that is no positive integer', { contextWindow: 0 }],
    ['prices that are not prices', { prices: { models: { a: { input: 'free', output: 1 } } } as never }],
  ])('refuses %s with INVALID_ARGUMENT', (_, options) => {
    let caught: unknown;
    try {
      createServerApp({ store: memoryStore(), log: () => undefined, web: false, ...options });
    } catch (error) {
      caught = error;
    }
    expect(ChatstateError.hasCode(caught, 'INVALID_ARGUMENT')).toBe(true);
  });
});
