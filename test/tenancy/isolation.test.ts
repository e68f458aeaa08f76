/**
 * Tenant isolation at the store view: two tenants with the same session ids and the same user ids
 * in one store, each operation of one tried on the other's data; and user-bound views inside a
 * tenant. Over the memory store and SQLite (whose full-text search the view must also scope).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryDriver, memoryStore } from '../../src/stores/memory.js';
import { createSessionStore } from '../../src/store/session-store.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { wrappedStore } from '../support/wrapped-store.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const backends: Record<string, () => Promise<SessionStore>> = {
  memory: async () => memoryStore(),
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatstate-tenancy-'));
    const store = await sqliteStore(join(dir, 'sessions.db'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return store;
  },
};

function user(text: string, id: string): Message {
  return Message.create({ id, role: 'user', content: text });
}

/** One store with tenants `a` and `b`, each holding session `s1` of user `alice` (and `b` a `bob` one). */
async function twoTenants(open: () => Promise<SessionStore>) {
  const store = await open();
  cleanups.push(() => store.close());
  const a = tenantStore(store, { tenant: 'a' });
  const b = tenantStore(store, { tenant: 'b' });
  await a.save(Session.create({ id: 's1', userId: 'alice', messages: [user('apples from tenant a', 'm1')] }));
  await b.save(Session.create({ id: 's1', userId: 'alice', messages: [user('bananas from tenant b', 'm1')] }));
  await b.save(Session.create({ id: 's2', userId: 'bob', messages: [user('bob writes in b', 'm1')] }));
  await a.values.set({ scope: 'user', userId: 'alice' }, { colour: 'red' });
  await b.values.set({ scope: 'user', userId: 'alice' }, { colour: 'blue' });
  await a.values.set({ scope: 'app' }, { plan: 'gold' });
  await a.values.set({ scope: 'session', sessionId: 's1' }, { step: 1 });
  return { store, a, b };
}

describe.each(Object.keys(backends))('tenantStore over %s', (backend) => {
  const open = backends[backend] as () => Promise<SessionStore>;

  it('each tenant reads only its own session of the same id, under its own names', async () => {
    const { a, b } = await twoTenants(open);
    const mine = await a.load('s1');
    expect(mine).toMatchObject({ id: 's1', userId: 'alice' });
    expect(mine.messages[0]?.content).toBe('apples from tenant a');
    expect((await b.load('s1')).messages[0]?.content).toBe('bananas from tenant b');
    expect(JSON.parse((await a.getJson('s1')) as string)).toMatchObject({ id: 's1', userId: 'alice' });
    expect(await a.get('s2')).toBeUndefined();
    await expect(a.load('s2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(a.readMessages('s2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await a.summary('s2')).toBeUndefined();
    // A stored name of the other tenant is only a name in this tenant's namespace.
    expect(await a.get('b.s1')).toBeUndefined();
    expect((await a.list()).map((row) => [row.id, row.userId])).toEqual([['s1', 'alice']]);
    expect((await a.list({ userId: 'bob' })).length).toBe(0);
    expect((await b.list()).map((row) => row.id).sort()).toEqual(['s1', 's2']);
  });

  it("pages of a tenant's list are full: other tenants' newer sessions take no room in them", async () => {
    const { a, b } = await twoTenants(open);
    for (let n = 0; n < 5; n++) await b.save(Session.create({ id: `newer-${n}` }));
    expect((await a.list({ limit: 1 })).map((row) => row.id)).toEqual(['s1']);
    const [first] = await b.list({ limit: 1 });
    expect((await a.list({ limit: 1, after: { updatedAt: first?.updatedAt ?? '', id: 'zzz' } })).length).toBe(1);
  });

  it("writes, appends and deletes never reach the other tenant's session", async () => {
    const { a, b } = await twoTenants(open);
    await a.append('s1', [user('more apples', 'm2')]);
    await expect(a.append('s2', [user('intrusion', 'x1')])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await a.delete('s2')).toBe(false);
    await a.save(Session.create({ id: 's2', userId: 'carol' }));
    expect((await b.load('s2')).userId).toBe('bob');
    expect((await b.load('s2')).messages).toHaveLength(1);
    expect((await b.load('s1')).messages.map((message) => message.content)).toEqual(['bananas from tenant b']);
    expect(await a.delete('s1')).toBe(true);
    expect(await b.get('s1')).toBeDefined();
  });

  it("errors name the tenant's ids, never the store's", async () => {
    const { a } = await twoTenants(open);
    const conflict = await a
      .append('s1', [user('late', 'late-1')], { expectedVersion: 99 })
      .catch((error: unknown) => error);
    expect(conflict).toMatchObject({ code: 'CONFLICT' });
    expect((conflict as Error).message).not.toContain('a.s1');
    expect(JSON.stringify((conflict as { details: unknown }).details)).not.toContain('a.s1');
    const taken = await a.save(Session.create({ id: 's1' }), { expectedVersion: 0 }).catch((error: unknown) => error);
    expect(taken).toMatchObject({ code: 'CONFLICT' });
    expect((taken as Error).message).not.toContain('a.s1');
  });

  it('values, the app scope and session values are per tenant', async () => {
    const { a, b } = await twoTenants(open);
    expect(await a.values.getAll({ scope: 'user', userId: 'alice' })).toEqual({ colour: 'red' });
    expect(await b.values.getAll({ scope: 'user', userId: 'alice' })).toEqual({ colour: 'blue' });
    expect(await a.values.getAll({ scope: 'app' })).toEqual({ plan: 'gold' });
    expect(await b.values.getAll({ scope: 'app' })).toEqual({});
    expect(await b.values.getAll({ scope: 'session', sessionId: 's1' })).toEqual({});
    expect(await a.values.get({ scope: 'session', sessionId: 's1' }, 'step')).toBe(1);
  });

  it('full-text search finds only the tenant’s messages', async () => {
    const { a, b } = await twoTenants(open);
    if (a.searchText === undefined) return;
    expect(await a.searchText({ text: 'bananas', userId: 'alice', limit: 10 })).toEqual([]);
    const hits = await b.searchText?.({ text: 'bananas', userId: 'alice', limit: 10 });
    expect(hits?.map((hit) => hit.sessionId)).toEqual(['s1']);
    expect(await a.searchText({ text: 'bananas', sessionIds: ['s1'], limit: 10 })).toEqual([]);
    // A search of user-less sessions across the store would reach other tenants: it names sessions or finds nothing.
    expect(await a.searchText({ text: 'apples', limit: 10 })).toEqual([]);
  });

  it('purgeExpired removes only the tenant’s expired sessions', async () => {
    const { a, b } = await twoTenants(open);
    await a.save(Session.create({ id: 'old' }), { ttlMs: 1 });
    await b.save(Session.create({ id: 'old' }), { ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await a.list({ expired: true })).map((row) => row.id)).toEqual(['old']);
    expect(await a.purgeExpired()).toBe(1);
    expect((await b.list({ expired: true })).map((row) => row.id)).toEqual(['old']);
  });

  it('a tenant’s purge keeps every other tenant’s expired sessions, whatever their names', async () => {
    const store = await open();
    cleanups.push(() => store.close());
    // `a-b` and `ab` start like `a`; the ids are the same in every tenant.
    const tenants = ['a', 'a-b', 'ab', 'b'];
    for (const tenant of tenants) {
      const view = tenantStore(store, { tenant });
      await view.save(Session.create({ id: 'old' }), { ttlMs: 1 });
      await view.save(Session.create({ id: 'older', userId: 'alice' }), { ttlMs: 1 });
      await view.save(Session.create({ id: 'live' }));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const a = tenantStore(store, { tenant: 'a' });
    expect(await a.purgeExpired({ idPrefix: 'olde' })).toBe(1);
    expect(await a.purgeExpired()).toBe(1);
    expect(await a.list({ expired: true })).toEqual([]);
    for (const tenant of tenants.slice(1)) {
      const other = tenantStore(store, { tenant });
      expect((await other.list({ expired: true })).map((row) => row.id).sort()).toEqual(['old', 'older']);
      expect((await other.list()).map((row) => row.id)).toEqual(['live']);
    }
    // A view bound to one user purges only that user's: the tenant's other expired session stays.
    const bob = tenantStore(store, { tenant: 'b', userId: 'bob' });
    expect(await bob.purgeExpired()).toBe(0);
    expect(await tenantStore(store, { tenant: 'b', userId: 'alice' }).purgeExpired()).toBe(1);
    expect((await tenantStore(store, { tenant: 'b' }).list({ expired: true })).map((row) => row.id)).toEqual(['old']);
  });

  it('a user-bound view sees and writes only its user’s sessions and values', async () => {
    const { store } = await twoTenants(open);
    const bob = tenantStore(store, { tenant: 'b', userId: 'bob' });
    const alice = tenantStore(store, { tenant: 'b', userId: 'alice' });
    expect((await bob.list()).map((row) => row.id)).toEqual(['s2']);
    expect(await bob.get('s1')).toBeUndefined();
    await expect(bob.append('s1', [user('not yours', 'x1')])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await bob.delete('s1')).toBe(false);
    await expect(bob.save(Session.create({ id: 's1', userId: 'bob' }))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(bob.save(Session.create({ id: 'new', userId: 'alice' }))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    // A session saved without a user becomes the bound user's.
    expect((await bob.save(Session.create({ id: 'mine' }))).userId).toBe('bob');
    expect((await alice.list()).map((row) => row.id)).toEqual(['s1']);
    await expect(bob.values.getAll({ scope: 'user', userId: 'alice' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(bob.values.set({ scope: 'app' }, { plan: 'free' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(bob.values.getAll({ scope: 'session', sessionId: 's1' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await bob.list({ userId: 'alice' })).toEqual([]);
  });

  it("marks and readMessagesAt go through the store's own calls and stay inside the tenant and its bound user", async () => {
    const { store } = await twoTenants(open);
    const calls: string[] = [];
    const count =
      <A extends unknown[], T>(name: string, call: (...args: A) => Promise<T>) =>
      (...args: A): Promise<T> => {
        calls.push(name);
        return call(...args);
      };
    const marks = store.marks?.bind(store);
    const readAt = store.readMessagesAt?.bind(store);
    if (marks === undefined || readAt === undefined) throw new Error('the store has marks and readMessagesAt');
    // The store under the views, counting the calls the views make of it.
    const counted = wrappedStore(store, {
      readMessages: count('readMessages', (id, range) => store.readMessages(id, range)),
      summary: count('summary', (id) => store.summary(id)),
      list: count('list', (query) => store.list(query)),
      marks: count('marks', marks),
      readMessagesAt: count('readMessagesAt', readAt),
    });
    const a = tenantStore(counted, { tenant: 'a' });
    const b = tenantStore(counted, { tenant: 'b' });
    const bob = tenantStore(counted, { tenant: 'b', userId: 'bob' });
    const refs = [
      { sessionId: 's1', seq: 1 },
      { sessionId: 's2', seq: 1 },
      { sessionId: 'b.s1', seq: 1 },
      { sessionId: 's1', seq: 2 },
    ];
    const contents = (read: Array<Message | undefined>) => read.map((message) => message?.content);
    const viewMarks = (view: SessionStore, userId: string) =>
      (view.marks as NonNullable<SessionStore['marks']>)(userId);
    const viewReadAt = (view: SessionStore) =>
      (view.readMessagesAt as NonNullable<SessionStore['readMessagesAt']>)(refs);

    expect(contents(await viewReadAt(a))).toEqual(['apples from tenant a', undefined, undefined, undefined]);
    expect(contents(await viewReadAt(b))).toEqual(['bananas from tenant b', 'bob writes in b', undefined, undefined]);
    expect(calls.splice(0)).toEqual(['readMessagesAt', 'readMessagesAt']);
    // A bound view reads only its user's sessions: what its own readMessages would find.
    expect(contents(await viewReadAt(bob))).toEqual([undefined, 'bob writes in b', undefined, undefined]);
    expect(calls.splice(0)).toEqual(['marks', 'readMessagesAt']);

    expect((await viewMarks(a, 'alice')).map((mark) => mark.id)).toEqual(['s1']);
    expect((await viewMarks(b, 'alice')).map((mark) => [mark.id, mark.messageCount])).toEqual([['s1', 1]]);
    expect(await viewMarks(a, 'bob')).toEqual([]);
    // The other tenant's stored spelling is only a user of this tenant's own.
    expect(await viewMarks(a, 'b/alice')).toEqual([]);
    expect((await viewMarks(bob, 'bob')).map((mark) => mark.id)).toEqual(['s2']);
    expect(await viewMarks(bob, 'alice')).toEqual([]);
    expect(calls.splice(0)).toEqual(['marks', 'marks', 'marks', 'marks', 'marks']);
    await expect(viewMarks(a, '')).rejects.toMatchObject({ code: 'INVALID_ID' });
  });

  it('refuses tenant ids and session ids that would leave the namespace', async () => {
    const store = await open();
    cleanups.push(() => store.close());
    for (const tenant of ['', 'A', 'a.b', 'a/b', '../x', 'x'.repeat(33)])
      expect(() => tenantStore(store, { tenant })).toThrow(expect.objectContaining({ code: 'INVALID_ID' }));
    const a = tenantStore(store, { tenant: 'a' });
    await expect(a.get('../b.s1')).rejects.toMatchObject({ code: 'INVALID_ID' });
    await expect(a.get('x'.repeat(127))).rejects.toMatchObject({ code: 'INVALID_ID' });
    expect(await a.get('x'.repeat(126))).toBeUndefined();
  });
});

describe('tenantStore readMessagesAt errors', () => {
  it("name the tenant's ids, never the store's", async () => {
    const driver = memoryDriver();
    const writer = createSessionStore(driver, { encryption: 'tenancy-read-at-secret-0123' });
    const reader = createSessionStore(driver, { encryption: 'tenancy-read-at-other-9876' });
    cleanups.push(async () => {
      await writer.close();
      await reader.close();
    });
    await tenantStore(writer, { tenant: 'a' }).save(Session.create({ id: 's1', messages: [user('sealed', 'm1')] }));
    const view = tenantStore(reader, { tenant: 'a' });
    const failure = await (view.readMessagesAt as NonNullable<SessionStore['readMessagesAt']>)([
      { sessionId: 's1', seq: 1 },
    ]).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'WRONG_KEY' });
    expect((failure as Error).message).toContain('s1');
    expect((failure as Error).message).not.toContain('a.s1');
    expect(JSON.stringify((failure as { details: unknown }).details)).not.toContain('a.s1');
  });
});
