/**
 * What the SQLite and Postgres drivers share in active memory, tested on each driver directly
 * (the conformance suite tests the same through the core): values and their cascade, the head data
 * of an append, and the full-text index — ranking, filters, query syntax that must stay plain
 * text, Unicode, and upkeep on append, replace, delete and expiry.
 */
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import type { Session } from '../../src/session/session.js';
import type { HeadRecord, StoreDriver } from '../../src/store/driver-types.js';
import type { SessionStore, TextSearchHit, TextSearchQuery } from '../../src/store/session-store-types.js';

/** A backend under test: fresh empty drivers, and a look inside its index. */
export interface SqlActiveMemoryTarget {
  /** A driver over fresh, empty tables (closed and removed by the caller's cleanup). */
  open(): Promise<StoreDriver>;
  /** A second driver over the same tables (closed by the caller's cleanup). */
  reopen(driver: StoreDriver): Promise<StoreDriver>;
  /** Rows of the text index that belong to session `id`. */
  indexRows(driver: StoreDriver, id: string): Promise<number>;
}

const AT = '2025-01-01T00:00:00.000Z';

/** A head record, as the core would write it. */
export function headRecord(id: string, extra: Partial<HeadRecord> = {}): HeadRecord {
  return {
    id,
    schema: 1,
    version: 1,
    createdAt: AT,
    updatedAt: AT,
    messageCount: 0,
    tokenCount: 0,
    lastSeq: 0,
    data: '{"metadata":{},"variables":{}}',
    ...extra,
  };
}

/** Replaces session `id` with messages `<id>-1…` carrying `texts` (undefined: a message without text). */
export async function seed(
  driver: StoreDriver,
  id: string,
  texts: ReadonlyArray<string | undefined>,
  extra: Partial<HeadRecord> = {},
): Promise<void> {
  await driver.replace(id, {
    head: headRecord(id, { messageCount: texts.length, lastSeq: texts.length, ...extra }),
    messages: texts.map((text, index) => ({
      seq: index + 1,
      id: `${id}-${index + 1}`,
      data: '{}',
      ...(text === undefined ? {} : { text }),
    })),
  });
}

/** Where the hits are, as `session#seq`. */
export function places(hits: readonly TextSearchHit[]): string[] {
  return hits.map((hit) => `${hit.sessionId}#${hit.seq}`);
}

async function search(
  driver: StoreDriver,
  query: Partial<TextSearchQuery> & { text: string },
): Promise<TextSearchHit[]> {
  if (driver.searchText === undefined) throw new Error(`${driver.name} has no searchText`);
  return driver.searchText({ limit: 10, ...query });
}

const FILLER = Array.from({ length: 12 }, (_, index) => `unrelated chatter number ${index} about nothing much`);

/** Registers the shared tests; `target` is read when the tests run. */
export function sqlActiveMemorySpecs(target: () => SqlActiveMemoryTarget): void {
  describe('values', () => {
    it('round-trips values by namespace, keys ascending; null deletes; the last entry for a key wins; namespaces are apart', async () => {
      const driver = await target().open();
      await driver.writeValues('user:alice', [
        { key: 'b', data: '"two"' },
        { key: 'a', data: '1' },
        { key: 'c', data: 'null' },
        { key: 'b', data: '"three"' },
      ]);
      await driver.writeValues('user:bob', [{ key: 'a', data: '"bob"' }]);
      expect(await driver.readValues('user:alice')).toEqual([
        { key: 'a', data: '1' },
        { key: 'b', data: '"three"' },
        { key: 'c', data: 'null' },
      ]);
      expect(await driver.readValues('user:alice', ['c', 'missing', 'a'])).toEqual([
        { key: 'a', data: '1' },
        { key: 'c', data: 'null' },
      ]);
      expect(await driver.readValues('user:alice', [])).toEqual([]);
      await driver.writeValues('user:alice', [
        { key: 'a', data: null },
        { key: 'missing', data: null },
        { key: 'c', data: '{"x":[1,2]}' },
      ]);
      await driver.writeValues('user:alice', []);
      const again = await target().reopen(driver);
      expect(await again.readValues('user:alice')).toEqual([
        { key: 'b', data: '"three"' },
        { key: 'c', data: '{"x":[1,2]}' },
      ]);
      expect(await again.readValues('user:bob')).toEqual([{ key: 'a', data: '"bob"' }]);
      expect(await again.readValues('user:carol')).toEqual([]);
    });

    it('keeps keys and data exactly, Unicode and quotes included', async () => {
      const driver = await target().open();
      const keys = ["it's", 'naïve 🎉', 'a%', 'a_', '\\'];
      await driver.writeValues(
        'app',
        keys.map((key, index) => ({ key, data: JSON.stringify({ index, key }) })),
      );
      const read = await driver.readValues('app', keys);
      expect(new Map(read.map((record) => [record.key, JSON.parse(record.data) as unknown]))).toEqual(
        new Map(keys.map((key, index) => [key, { index, key }])),
      );
    });

    it('remove() deletes the namespaces session:<id> and session:<id>/…, and no other (no wildcard, no prefix overreach)', async () => {
      const driver = await target().open();
      const namespaces = [
        'session:a',
        'session:a/embeddings',
        'session:a/x/y',
        'session:ab',
        'session:a-b',
        'session:a.b/x',
        'session:a0',
        'session:a_b/x',
        'session:axb/x',
        'user:a',
        'session:b',
      ];
      for (const ns of namespaces) await driver.writeValues(ns, [{ key: 'k', data: JSON.stringify(ns) }]);
      for (const id of ['a', 'a_b', 'b']) await seed(driver, id, ['hello']);
      expect(await driver.remove('a')).toBe(true);
      expect(await driver.remove('a_b')).toBe(true);
      const left = [];
      for (const ns of namespaces) if ((await driver.readValues(ns)).length > 0) left.push(ns);
      expect(left).toEqual([
        'session:ab',
        'session:a-b',
        'session:a.b/x',
        'session:a0',
        'session:axb/x',
        'user:a',
        'session:b',
      ]);
    });

    it('purgeExpired() deletes the values and index rows of the sessions it removes, and only theirs', async () => {
      const driver = await target().open();
      await seed(driver, 'old', ['expired budget talk'], { expiresAt: 1000 });
      await seed(driver, 'live', ['living budget talk'], { expiresAt: 5000 });
      await seed(driver, 'forever', ['eternal budget talk']);
      for (const id of ['old', 'live', 'forever'])
        await driver.writeValues(`session:${id}/memo`, [{ key: 'k', data: '1' }]);
      expect(await driver.purgeExpired(2000)).toBe(1);
      expect(await driver.readValues('session:old/memo')).toEqual([]);
      expect(await driver.readValues('session:live/memo')).toHaveLength(1);
      expect(await driver.readValues('session:forever/memo')).toHaveLength(1);
      expect(await target().indexRows(driver, 'old')).toBe(0);
      expect(places(await search(driver, { text: 'budget' })).sort()).toEqual(['forever#1', 'live#1']);
    });
  });

  describe('append', () => {
    it('replaces the head data in the same commit when something is appended, and only then', async () => {
      const driver = await target().open();
      await seed(driver, 's', ['first']);
      const data = '{"metadata":{"turn":2},"variables":{"x":1}}';
      const outcome = await driver.append('s', {
        messages: [{ id: 's-2', data: '{}', tokens: 1 }],
        updatedAt: AT,
        data,
      });
      expect(outcome.version).toBe(2);
      expect((await driver.readHead('s'))?.data).toBe(data);
      await driver.append('s', {
        messages: [{ id: 's-2', data: '{}', tokens: 1 }],
        updatedAt: AT,
        data: '{"metadata":{},"variables":{"ignored":true}}',
      });
      expect((await driver.readHead('s'))?.data).toBe(data);
      await driver.append('s', { messages: [{ id: 's-3', data: '{}', tokens: 1 }], updatedAt: AT });
      expect((await driver.readHead('s'))?.data).toBe(data);
      expect((await driver.readHead('s'))?.version).toBe(3);
    });
  });

  describe('full-text search', () => {
    it('declares the capability', async () => {
      const driver = await target().open();
      expect(driver.capabilities?.fullTextSearch).toBe(true);
      expect(typeof driver.searchText).toBe('function');
    });

    it('ranks best first with scores in (0, 1], the best at 1; honours limit', async () => {
      const driver = await target().open();
      await seed(driver, 'r', [...FILLER, 'budget review', 'budget', 'review of the lunch menu'], { userId: 'alice' });
      const hits = await search(driver, { text: 'budget review', userId: 'alice' });
      expect(places(hits)[0]).toBe('r#13');
      expect(places(hits).sort()).toEqual(['r#13', 'r#14', 'r#15']);
      expect(hits[0]?.score).toBe(1);
      expect(hits[0]?.messageId).toBe('r-13');
      for (const hit of hits) {
        expect(hit.score).toBeGreaterThan(0);
        expect(hit.score).toBeLessThanOrEqual(1);
      }
      expect(hits.slice(1).every((hit) => hit.score < 1)).toBe(true);
      expect(places(await search(driver, { text: 'budget review', userId: 'alice', limit: 1 }))).toEqual(['r#13']);
    });

    it('filters by user exactly (undefined means sessions without a user) and by session ids', async () => {
      const driver = await target().open();
      await seed(driver, 'a1', ['budget for alice'], { userId: 'alice' });
      await seed(driver, 'a2', ['more budget for alice'], { userId: 'alice' });
      await seed(driver, 'b1', ['budget for bob'], { userId: 'bob' });
      await seed(driver, 'n1', ['budget for nobody']);
      await seed(driver, 'x1', ['budget for a lookalike'], { userId: 'alice ' });
      expect(places(await search(driver, { text: 'budget', userId: 'alice' })).sort()).toEqual(['a1#1', 'a2#1']);
      expect(places(await search(driver, { text: 'budget', userId: 'bob' }))).toEqual(['b1#1']);
      expect(places(await search(driver, { text: 'budget' }))).toEqual(['n1#1']);
      expect(places(await search(driver, { text: 'budget', userId: 'alice ' }))).toEqual(['x1#1']);
      expect(await search(driver, { text: 'budget', userId: 'Alice' })).toEqual([]);
      expect(await search(driver, { text: 'budget', userId: 'carol' })).toEqual([]);
      expect(places(await search(driver, { text: 'budget', userId: 'alice', sessionIds: ['a2', 'b1'] }))).toEqual([
        'a2#1',
      ]);
      expect(places(await search(driver, { text: 'budget', sessionIds: ['a1', 'n1'] }))).toEqual(['n1#1']);
      expect(await search(driver, { text: 'budget', userId: 'alice', sessionIds: [] })).toEqual([]);
    });

    it('treats query syntax as plain words: no operators, prefixes, column filters or errors', async () => {
      const driver = await target().open();
      await seed(driver, 'q', [...FILLER, 'banana bread', 'near the river', 'owner notes', 'alpha beta']);
      const find = async (text: string) => places(await search(driver, { text })).sort();
      expect(await find('"a" OR b*')).toEqual([]);
      expect(await find('banan*')).toEqual([]);
      expect(await find('NEAR(')).toEqual(['q#14']);
      expect(await find('NEAR(banana river, 99)')).toEqual(['q#13', 'q#14']);
      // The no-user owner token of SQLite is "n": a column filter would match every message.
      expect(await find('owner : n')).toEqual(['q#15']);
      expect(await find('{owner body} : n')).toEqual(['q#15']);
      expect(await find('NOT banana')).toEqual(['q#13']);
      expect(await find('alpha AND -beta')).toEqual(['q#16']);
      for (const text of [
        '"',
        '"unbalanced',
        '(((',
        ')',
        '*',
        '^',
        ':',
        "'",
        "'; DROP TABLE x; --",
        "\\'",
        '!a & b | c <-> d:*',
        'a:*B',
        '   ',
        '',
        '\0',
        '\uD800',
        '🎉🎉',
      ]) {
        await expect(search(driver, { text }), JSON.stringify(text)).resolves.toEqual(expect.any(Array));
      }
      await expect(search(driver, { text: 'banana '.repeat(5000) + 'river' })).resolves.toEqual(expect.any(Array));
    });

    it('matches across case, Unicode forms and word endings', async () => {
      const driver = await target().open();
      await seed(driver, 'u', [
        ...FILLER,
        'Привет, МИР',
        'ｆｕｌｌｗｉｄｔｈ letters',
        'élan vital',
        '東京 タワー',
        'she runs daily',
        'Budget',
      ]);
      const find = async (text: string) => places(await search(driver, { text }));
      expect(await find('привет')).toEqual(['u#13']);
      expect(await find('мир')).toEqual(['u#13']);
      expect(await find('FULLWIDTH')).toEqual(['u#14']);
      expect(await find('e\u0301lan')).toEqual(['u#15']);
      expect(await find('東京')).toEqual(['u#16']);
      expect(await find('running')).toEqual(['u#17']);
      expect(await find('budget')).toEqual(['u#18']);
    });

    it('indexes only messages with text, once, on append; maintains the index on replace and delete', async () => {
      const driver = await target().open();
      await seed(driver, 's', ['the first budget', undefined], { userId: 'alice' });
      await driver.append('s', {
        messages: [
          { id: 's-3', data: '{}', tokens: 1, text: 'an appended budget' },
          { id: 's-4', data: '{}', tokens: 1 },
        ],
        updatedAt: AT,
      });
      // A retried append adds nothing, to the messages or to the index.
      await driver.append('s', {
        messages: [{ id: 's-3', data: '{}', tokens: 1, text: 'an appended budget' }],
        updatedAt: AT,
      });
      expect(places(await search(driver, { text: 'budget', userId: 'alice' })).sort()).toEqual(['s#1', 's#3']);
      expect(await target().indexRows(driver, 's')).toBe(2);
      // A replace rewrites the index: old words go, new ones come, and hits follow a new owner.
      await seed(driver, 's', ['a rewritten forecast', undefined], { userId: 'bob', version: 3 });
      expect(await search(driver, { text: 'budget', userId: 'alice' })).toEqual([]);
      expect(await search(driver, { text: 'budget', userId: 'bob' })).toEqual([]);
      expect(places(await search(driver, { text: 'forecast', userId: 'bob' }))).toEqual(['s#1']);
      expect(await search(driver, { text: 'forecast', userId: 'alice' })).toEqual([]);
      expect(await target().indexRows(driver, 's')).toBe(1);
      expect(await driver.remove('s')).toBe(true);
      expect(await search(driver, { text: 'forecast', userId: 'bob' })).toEqual([]);
      expect(await target().indexRows(driver, 's')).toBe(0);
    });
  });
}

/**
 * After a store of schema version 1 was migrated: session `old` (`original`, metadata `{ kept: true }`,
 * a message `u1` about a budget) loads as it was, values work, and search finds old and new messages.
 */
export async function expectMigratedSessionKept(store: SessionStore, original: Session): Promise<void> {
  const loaded = await store.load('old');
  expect(loaded.messages).toEqual(original.messages);
  expect(loaded.metadata).toEqual({ kept: true });
  expect(loaded.version).toBe(original.version);
  await store.values.set({ scope: 'user', userId: 'alice' }, { tone: 'brief' });
  expect(await store.values.get({ scope: 'user', userId: 'alice' }, 'tone')).toBe('brief');
  await store.append('old', [Message.user('a new budget question', { id: 'u2' })]);
  const search = store.searchText;
  if (search === undefined) throw new Error('the migrated store has no search');
  // Messages of version 1 were stored without their text; a save indexes them.
  expect((await search({ text: 'budget', userId: 'alice', limit: 10 })).map((hit) => hit.messageId)).toEqual(['u2']);
  await store.save(await store.load('old'));
  expect((await search({ text: 'budget', userId: 'alice', limit: 10 })).map((hit) => hit.messageId).sort()).toEqual([
    'u1',
    'u2',
  ]);
}
