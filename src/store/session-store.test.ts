import { describe, expect, it } from 'vitest';
import { ChatstateError, ClosedError, UnsupportedError } from '../errors.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { memoryDriver } from '../stores/memory.js';
import { createSessionStore } from './session-store.js';
import type { AppendCommit, ReplaceCommit, SessionDriver, StoreDriver } from './driver-types.js';
import type { TextSearchHit, TextSearchQuery } from './session-store-types.js';

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : `not a ChatstateError: ${String(error)}`;
  }
  return 'resolved';
}

/**
 * A driver with full-text search, as a store author would write one: the memory driver plus a
 * naive index of the text the core hands over (what it records is what the test checks).
 */
function searchingDriver(): {
  driver: StoreDriver;
  texts: Map<string, string | undefined>;
  queries: TextSearchQuery[];
} {
  const inner = memoryDriver();
  const texts = new Map<string, string | undefined>();
  const queries: TextSearchQuery[] = [];
  const driver: StoreDriver = {
    ...inner,
    capabilities: { fullTextSearch: true },
    async append(id, commit: AppendCommit) {
      for (const message of commit.messages) texts.set(message.id, message.text);
      return inner.append(id, commit);
    },
    async replace(id, commit: ReplaceCommit) {
      for (const message of commit.messages) texts.set(message.id, message.text);
      return inner.replace(id, commit);
    },
    async searchText(query) {
      queries.push(query);
      const hits: TextSearchHit[] = [];
      for (const [messageId, text] of texts) {
        if (text?.includes(query.text) === true) hits.push({ sessionId: 's1', seq: 1, messageId, score: 1 });
      }
      return hits.slice(0, query.limit);
    },
  };
  return { driver, texts, queries };
}

describe('full-text search through the core', () => {
  it('is undefined for a driver without fullTextSearch, and no text reaches such a driver', async () => {
    const inner = memoryDriver();
    const texts: Array<string | undefined> = [];
    const store = createSessionStore({
      ...inner,
      append: (id, commit) => (texts.push(...commit.messages.map((message) => message.text)), inner.append(id, commit)),
      replace: (id, commit) => (
        texts.push(...commit.messages.map((message) => message.text)),
        inner.replace(id, commit)
      ),
    });
    expect(store.searchText).toBeUndefined();
    await store.save(Session.create({ id: 's1', messages: [Message.user('one', { id: 'm1' })] }));
    await store.append('s1', [Message.user('two', { id: 'm2' })]);
    expect(texts).toEqual([undefined, undefined]);
  });

  it('gives drivers with fullTextSearch each message text on save and append, and passes checked queries on', async () => {
    const { driver, texts, queries } = searchingDriver();
    const store = createSessionStore(driver);
    await store.save(Session.create({ id: 's1', messages: [Message.user('the blue whale', { id: 'm1' })] }));
    await store.append('s1', [
      Message.assistant(
        [
          { type: 'text', text: 'largest ' },
          { type: 'text', text: 'animal' },
        ],
        { id: 'm2' },
      ),
    ]);
    expect(texts).toEqual(
      new Map([
        ['m1', 'the blue whale'],
        [
          'm2',
          Message.text(
            Message.assistant([
              { type: 'text', text: 'largest ' },
              { type: 'text', text: 'animal' },
            ]),
          ),
        ],
      ]),
    );
    const search = store.searchText;
    if (search === undefined) throw new Error('searchText should be defined');
    expect(await search({ text: 'whale', limit: 5, userId: 'ann', sessionIds: ['s1'] })).toEqual([
      { sessionId: 's1', seq: 1, messageId: 'm1', score: 1 },
    ]);
    expect(queries).toEqual([{ text: 'whale', limit: 5, userId: 'ann', sessionIds: ['s1'] }]);
    expect(Object.isFrozen(queries[0])).toBe(true);
  });

  it('refuses bad queries before the driver sees them', async () => {
    const { driver, queries } = searchingDriver();
    const store = createSessionStore(driver);
    const search = store.searchText as (query: TextSearchQuery) => Promise<TextSearchHit[]>;
    const bad: Array<[unknown, string]> = [
      [null, 'INVALID_ARGUMENT'],
      [{ text: '   ', limit: 5 }, 'INVALID_ARGUMENT'],
      [{ text: 42, limit: 5 }, 'INVALID_ARGUMENT'],
      [{ text: 'x', limit: 0 }, 'INVALID_ARGUMENT'],
      [{ text: 'x', limit: 1001 }, 'INVALID_ARGUMENT'],
      [{ text: 'x', limit: 1.5 }, 'INVALID_ARGUMENT'],
      [{ text: 'x', limit: 5, userId: '' }, 'INVALID_ID'],
      [{ text: 'x', limit: 5, sessionIds: 's1' }, 'INVALID_ARGUMENT'],
      [{ text: 'x', limit: 5, sessionIds: ['../etc'] }, 'INVALID_ID'],
    ];
    for (const [query, code] of bad)
      expect(await codeOf(() => search(query as TextSearchQuery)), JSON.stringify(query)).toBe(code);
    expect(queries).toEqual([]);
    expect(await search({ text: 'x', limit: 1000 })).toEqual([]);
  });

  it('with encryption at rest there is no searchText and no plain text reaches the driver', async () => {
    const { driver, texts } = searchingDriver();
    const store = createSessionStore(driver, { encryption: 'session-store-unit-secret-0123456789' });
    expect(store.searchText).toBeUndefined();
    await store.save(Session.create({ id: 's1', messages: [Message.user('secret plan', { id: 'm1' })] }));
    await store.append('s1', [Message.user('more secrets', { id: 'm2' })]);
    expect(texts).toEqual(
      new Map([
        ['m1', undefined],
        ['m2', undefined],
      ]),
    );
  });
});

describe('append with state', () => {
  it('keeps the fields a newer version wrote into the head data', async () => {
    const driver = memoryDriver();
    const store = createSessionStore(driver);
    await store.save(Session.create({ id: 's1', variables: { old: true } }));
    const head = await driver.readHead('s1');
    if (head === undefined) throw new Error('no head');
    const written = JSON.parse(head.data) as Record<string, unknown>;
    await driver.replace('s1', {
      head: { ...head, data: JSON.stringify({ ...written, futureField: { kept: 1 } }) },
      messages: [],
    });
    await store.append('s1', [Message.user('hi', { id: 'm1' })], {
      state: { metadata: { m: 1 }, variables: { v: 2 } },
    });
    const after = await driver.readHead('s1');
    expect(JSON.parse(after?.data ?? '{}')).toEqual({
      futureField: { kept: 1 },
      metadata: { m: 1 },
      variables: { v: 2 },
    });
    expect((await store.load('s1')).variables).toEqual({ v: 2 });
  });

  it('gives the driver the encoded state only in the commit that adds messages', async () => {
    const inner = memoryDriver();
    const commits: AppendCommit[] = [];
    const store = createSessionStore({
      ...inner,
      append: (id, commit) => (commits.push(commit), inner.append(id, commit)),
    });
    await store.save(Session.create({ id: 's1' }));
    await store.append('s1', [Message.user('hi', { id: 'm1' })]);
    await store.append('s1', [Message.user('hi again', { id: 'm2' })], {
      state: { metadata: {}, variables: { n: 1 }, lastUsage: { inputTokens: 3, messageCount: 1 } },
    });
    expect(commits[0]?.data).toBeUndefined();
    expect(JSON.parse(commits[1]?.data ?? 'null')).toEqual({
      metadata: {},
      variables: { n: 1 },
      lastUsage: { inputTokens: 3, messageCount: 1 },
    });
  });
});

describe('expiry checked in the commit', () => {
  /** The memory driver, counting its head reads, with or without `expiryInCommit`. */
  function counting(expiryInCommit: boolean): { driver: StoreDriver; heads: () => number } {
    const inner = memoryDriver();
    let heads = 0;
    const driver: StoreDriver = {
      ...inner,
      capabilities: { expiryInCommit },
      readHead: (id) => ((heads += 1), inner.readHead(id)),
    };
    return { driver, heads: () => heads };
  }

  it.each([true, false])(
    'expiryInCommit %s: appends and range reads refuse an expired session; the head is read first only without it or for a state merge',
    async (inCommit) => {
      let time = Date.UTC(2025, 0, 1);
      const { driver, heads } = counting(inCommit);
      const store = createSessionStore(driver, { now: () => time });
      await store.save(Session.create({ id: 's1' }), { ttlMs: 1000 });
      const before = heads();
      await store.append('s1', [Message.user('one', { id: 'm1' })]);
      expect(await store.readMessages('s1', { limit: 5 })).toHaveLength(1);
      expect(heads() - before).toBe(inCommit ? 0 : 2);
      await store.append('s1', [Message.user('two', { id: 'm2' })], { state: { metadata: {}, variables: { n: 1 } } });
      expect(heads() - before).toBe(inCommit ? 1 : 3);
      time += 1000;
      expect(await codeOf(() => store.append('s1', [Message.user('late', { id: 'm3' })]))).toBe('NOT_FOUND');
      expect(
        await codeOf(() =>
          store.append('s1', [Message.user('late', { id: 'm3' })], { state: { metadata: {}, variables: {} } }),
        ),
      ).toBe('NOT_FOUND');
      expect(await codeOf(() => store.readMessages('s1', { limit: 5 }))).toBe('NOT_FOUND');
      expect(await codeOf(() => store.readMessages('missing'))).toBe('NOT_FOUND');
      time -= 1;
      expect((await store.load('s1')).messages.map((message) => message.id)).toEqual(['m1', 'm2']);
    },
  );
});

/** The memory driver cut down to the required session primitives (no purge, values or search). */
function sessionOnlyDriver(): SessionDriver {
  const { name, capabilities, readHead, readAll, readRange, append, replace, list, remove, close } = memoryDriver({
    name: 'minimal',
  });
  return {
    name,
    ...(capabilities === undefined ? {} : { capabilities }),
    readHead,
    readAll,
    readRange,
    append,
    replace,
    list,
    remove,
    close,
  };
}

describe('createSessionStore over a driver with only the required primitives', () => {
  it('refuses values with UNSUPPORTED naming the store and the capability', async () => {
    const store = createSessionStore(sessionOnlyDriver());
    for (const call of [
      () => store.values.get({ scope: 'app' }, 'k'),
      () => store.values.getAll({ scope: 'app' }),
      () => store.values.set({ scope: 'app' }, { k: 1 }),
    ]) {
      const error = await call().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(UnsupportedError);
      expect(error).toMatchObject({ code: 'UNSUPPORTED', details: { store: 'minimal', capability: 'values' } });
      expect((error as Error).message).toContain('minimal');
    }
    expect(store.searchText).toBeUndefined();
  });

  it('purges through list and remove: only sessions expired at the clock, and again on a second purge', async () => {
    let now = 1_000;
    const store = createSessionStore(sessionOnlyDriver(), { now: () => now });
    await store.save(Session.create({ id: 'soon' }), { ttlMs: 5 });
    await store.save(Session.create({ id: 'later' }), { ttlMs: 500 });
    await store.save(Session.create({ id: 'never' }));
    expect(await store.purgeExpired()).toBe(0);
    now += 5;
    expect(await store.purgeExpired()).toBe(1);
    expect(await store.purgeExpired()).toBe(0);
    now += 1_000;
    expect(await store.purgeExpired()).toBe(1);
    now += 1_000;
    expect((await store.list()).map((row) => row.id)).toEqual(['never']);
  });

  it('purges one id prefix through list and remove, and no other', async () => {
    let now = 1_000;
    const store = createSessionStore(sessionOnlyDriver(), { now: () => now });
    for (const id of ['a.1', 'a.2', 'ab.1', 'a']) await store.save(Session.create({ id }), { ttlMs: 5 });
    await store.save(Session.create({ id: 'a.live' }), { ttlMs: 500 });
    now += 5;
    expect(await store.purgeExpired({ idPrefix: 'a.' })).toBe(2);
    expect((await store.list({ expired: true })).map((row) => row.id).sort()).toEqual(['a', 'ab.1']);
    expect((await store.list()).map((row) => row.id)).toEqual(['a.live']);
  });

  it('gives a prefix only to a driver whose purge declares purgeByIdPrefix; lists for one that does not', async () => {
    let now = 1_000;
    const inner = memoryDriver({ name: 'old-purge' });
    const calls: unknown[][] = [];
    // A driver written before the prefix: its purge would ignore one and purge every namespace.
    const { purgeByIdPrefix: _dropped, ...older } = inner.capabilities ?? {};
    const driver: StoreDriver = {
      ...inner,
      capabilities: older,
      purgeExpired: (...args: Parameters<StoreDriver['purgeExpired']>) => {
        calls.push(args);
        return inner.purgeExpired(args[0]);
      },
    };
    const store = createSessionStore(driver, { now: () => now });
    for (const id of ['t1.x', 't2.x']) await store.save(Session.create({ id }), { ttlMs: 5 });
    now += 5;
    expect(await store.purgeExpired({ idPrefix: 't1.' })).toBe(1);
    expect(calls).toEqual([]);
    expect(await store.purgeExpired()).toBe(1);
    expect(calls).toEqual([[now]]);
  });

  it('purges more sessions than one page of the listing', async () => {
    let now = 1_000;
    const store = createSessionStore(sessionOnlyDriver(), { now: () => now });
    for (let index = 0; index < 1_100; index += 1)
      await store.save(Session.create({ id: `s${index}` }), { ttlMs: index % 2 === 0 ? 1 : 10_000 });
    now += 1;
    expect(await store.purgeExpired()).toBe(550);
    expect((await store.list({ limit: 1000 })).length).toBe(550);
  });

  it('refuses a cursor with UNSUPPORTED when the driver ignores it, instead of paging forever', async () => {
    const inner = sessionOnlyDriver();
    // A driver written before `after`: it pages by offset only.
    const store = createSessionStore({ ...inner, list: (query) => inner.list({ ...query, after: undefined }) });
    for (const id of ['a', 'b', 'c']) await store.save(Session.create({ id }));
    const [first] = await store.list({ limit: 1 });
    const error = await store.list({ limit: 1, after: first }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(UnsupportedError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED', details: { store: 'minimal', capability: 'list after' } });
    // The cursor's own row coming back is what betrays it; the same pages of a driver that honours it pass.
    const honest = createSessionStore(sessionOnlyDriver());
    for (const id of ['a', 'b', 'c']) await honest.save(Session.create({ id }));
    const [top] = await honest.list({ limit: 1 });
    expect(await honest.list({ limit: 1, after: top })).toHaveLength(1);
  });

  it('a closed store answers CLOSED naming the store, for values too', async () => {
    const store = createSessionStore(sessionOnlyDriver());
    await store.close();
    expect(await codeOf(() => store.list())).toBe('CLOSED');
    const error = await store.values.get({ scope: 'app' }, 'k').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ClosedError);
    expect((error as Error).message).toBe('minimal: the store is closed');
  });
});

describe('createSessionStore: a driver that is not one', () => {
  it('is INVALID_ARGUMENT naming what is missing', () => {
    const whole = sessionOnlyDriver();
    const { readRange: _readRange, remove: _remove, ...partial } = whole;
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /driver object/],
      [{ ...whole, name: '' }, /non-empty string name/],
      [partial, /does not implement readRange, remove/],
      [{ ...whole, readValues: async () => [] }, /readValues but not writeValues/],
      [{ ...whole, capabilities: 'all' }, /capabilities must be an object/],
    ];
    for (const [driver, message] of cases) {
      let error: unknown;
      try {
        createSessionStore(driver as SessionDriver);
      } catch (failure) {
        error = failure;
      }
      expect(error, String(message)).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect((error as Error).message).toMatch(message);
    }
  });
});
