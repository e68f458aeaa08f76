/**
 * Active memory in the SQLite store: the shared SQL specs on the driver, the upgrade of a database
 * written by schema version 1, the query plan of a search over 100k messages (the FTS5 index, never
 * a scan), and what is particular to SQLite (diacritics, unstorable keys, the store on top).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, type ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { StoreDriver } from '../../src/store/driver-types.js';
import { INDEX_BATCH } from '../../src/stores/sqlite/driver.js';
import {
  SQLITE_SCHEMA_VERSION,
  sqliteDriver,
  sqliteStore,
  type SqliteDatabaseLike,
} from '../../src/stores/sqlite/index.js';
import { expectMigratedSessionKept, places, seed, sqlActiveMemorySpecs } from '../support/sql-active-memory-specs.js';

let directory: string;
const open: Array<{ close(): unknown }> = [];
const files = new WeakMap<StoreDriver, string>();

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'chatstate-sqlite-search-'));
});

afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
  rmSync(directory, { recursive: true, force: true });
});

function database(file: string, options?: Database.Options): Database.Database {
  const db = new Database(file, options);
  open.push(db);
  return db;
}

async function driverOn(file: string): Promise<StoreDriver> {
  const driver = await sqliteDriver(file);
  open.push(driver);
  files.set(driver, file);
  return driver;
}

function fileOf(driver: StoreDriver): string {
  const file = files.get(driver);
  if (file === undefined) throw new Error('not a driver of this test');
  return file;
}

describe('sqlite: active memory (shared SQL specs)', () => {
  let count = 0;
  sqlActiveMemorySpecs(() => ({
    open: () => driverOn(join(directory, `memory-${(count += 1)}.db`)),
    reopen: (driver) => driverOn(fileOf(driver)),
    async indexRows(driver, id) {
      const db = database(fileOf(driver), { readonly: true });
      // Every index row has its message_text row and the other way round (the delete trigger).
      const texts = db.prepare('SELECT count(*) FROM message_text').pluck().get();
      expect(db.prepare('SELECT count(*) FROM message_fts').pluck().get()).toBe(texts);
      // Rows indexed, and rows still queued for the index.
      const indexed = db.prepare('SELECT count(*) FROM message_text WHERE session_id = ?').pluck().get(id) as number;
      return (
        indexed + (db.prepare('SELECT count(*) FROM message_text_queue WHERE session_id = ?').pluck().get(id) as number)
      );
    },
  }));
});

// The tables of schema version 1, as the previous release created them.
const VERSION_1 = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID`,
  `CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, record_schema INTEGER NOT NULL, version INTEGER NOT NULL, agent_id TEXT, user_id TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, expires_at INTEGER, ttl_ms INTEGER, message_count INTEGER NOT NULL,
    token_count INTEGER NOT NULL, last_seq INTEGER NOT NULL, title TEXT, data TEXT NOT NULL) STRICT`,
  `CREATE TABLE messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq), UNIQUE (session_id, id)) STRICT, WITHOUT ROWID`,
  `CREATE INDEX sessions_by_activity ON sessions (updated_at DESC, id)`,
  `CREATE INDEX sessions_by_user ON sessions (user_id, updated_at DESC, id) WHERE user_id IS NOT NULL`,
  `CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC, id) WHERE agent_id IS NOT NULL`,
  `CREATE INDEX sessions_by_expiry ON sessions (expires_at) WHERE expires_at IS NOT NULL`,
  `INSERT INTO meta (key, value) VALUES ('schema', '1')`,
];

describe('sqlite: upgrade from schema version 1', () => {
  it('migrates a version 1 database in place: its sessions load unchanged, and values and search work after', async () => {
    // Records as the core writes them, copied into a database that has only the version 1 tables.
    const source = join(directory, 'source.db');
    const writer = await sqliteStore(source);
    const original = await writer.save(
      Session.create({ id: 'old', userId: 'alice', metadata: { kept: true } }).append(
        Message.user('the old budget plan', { id: 'u1' }),
        Message.assistant('noted', { id: 'a1' }),
      ),
    );
    await writer.close();
    const file = join(directory, 'v1.db');
    const v1 = new Database(file);
    for (const statement of VERSION_1) v1.exec(statement);
    v1.exec(`ATTACH DATABASE '${source.replace(/'/g, "''")}' AS source`);
    // The columns of version 1 (later versions added key_check and kind).
    const columns =
      'id, record_schema, version, agent_id, user_id, created_at, updated_at, expires_at, ttl_ms, message_count, token_count, last_seq, title, data';
    v1.exec(
      `INSERT INTO sessions SELECT ${columns} FROM source.sessions; INSERT INTO messages SELECT * FROM source.messages`,
    );
    v1.exec('DETACH DATABASE source');
    v1.close();

    const store = await sqliteStore(file);
    open.push(store);
    const check = database(file, { readonly: true });
    expect(check.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get()).toBe(
      String(SQLITE_SCHEMA_VERSION),
    );
    expect(SQLITE_SCHEMA_VERSION).toBe(5);
    expect(
      check
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('memory_values', 'message_text', 'message_fts', 'message_text_queue') ORDER BY name`,
        )
        .pluck()
        .all(),
    ).toEqual(['memory_values', 'message_fts', 'message_text', 'message_text_queue']);
    await expectMigratedSessionKept(store, original);
  });
});

describe('sqlite: search plan', () => {
  it('a search over 100k messages of 10 users is driven by the FTS5 index, then finds each hit by rowid: no table scan', async () => {
    const statements: string[] = [];
    const db = database(join(directory, 'plan.db'), { verbose: (sql) => statements.push(String(sql)) });
    const driver = await sqliteDriver(db);
    open.push(driver);
    const words = ['budget', 'travel', 'design', 'hiring', 'launch', 'pricing', 'support', 'roadmap'];
    for (let user = 0; user < 10; user += 1) {
      for (let session = 0; session < 10; session += 1) {
        const texts = Array.from(
          { length: 1000 },
          (_, index) =>
            `message ${index} on ${words[(index + session) % words.length]} and ${words[(index * 7 + user) % words.length]}`,
        );
        await seed(driver, `s${user}-${session}`, texts, { userId: `user-${user}` });
      }
    }
    expect(db.prepare('SELECT count(*) FROM message_text').pluck().get()).toBe(100_000);
    statements.length = 0;
    const hits = await driver.searchText?.({ text: 'roadmap pricing', userId: 'user-3', limit: 5 });
    expect(hits).toHaveLength(5);
    const executed = statements.find((sql) => sql.includes('MATCH'));
    if (executed === undefined) throw new Error(`no search statement among ${JSON.stringify(statements)}`);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${executed}`).all() as Array<{ detail: string }>).map(
      (row) => row.detail,
    );
    expect(plan).toContainEqual(expect.stringMatching(/^SCAN message_fts VIRTUAL TABLE INDEX \d+:M/));
    expect(plan).toContainEqual('SEARCH t USING INTEGER PRIMARY KEY (rowid=?)');
    expect(plan.filter((detail) => /^SCAN (t|message_text|messages|sessions)\b/.test(detail))).toEqual([]);
  }, 120_000);
});

describe('sqlite: the index queue', () => {
  /** Rows queued for the index and rows indexed, as another connection sees them. */
  function counts(file: string): { queued: number; indexed: number } {
    const db = database(file, { readonly: true });
    return {
      queued: db.prepare('SELECT count(*) FROM message_text_queue').pluck().get() as number,
      indexed: db.prepare('SELECT count(*) FROM message_text').pluck().get() as number,
    };
  }

  const said = (index: number): Message =>
    Message.user(`note ${index} about the harbour lighthouse`, { id: `n${index}` });

  it('an append queues its text; a search indexes the queue first, so it finds every acknowledged append', async () => {
    const file = join(directory, 'queue.db');
    const store = await sqliteStore(file);
    open.push(store);
    await store.save(Session.create({ id: 's', userId: 'ann' }));
    for (let index = 0; index < 3; index += 1) await store.append('s', [said(index)]);
    expect(counts(file)).toEqual({ queued: 3, indexed: 0 });
    const hits = await store.searchText?.({ text: 'lighthouse', userId: 'ann', limit: 10 });
    expect(hits?.map((hit) => hit.messageId).sort()).toEqual(['n0', 'n1', 'n2']);
    expect(counts(file)).toEqual({ queued: 0, indexed: 3 });
  });

  it(`the commit that fills a batch of ${INDEX_BATCH} indexes the queue, whichever sessions it holds`, async () => {
    const file = join(directory, 'batch.db');
    const store = await sqliteStore(file);
    open.push(store);
    for (const id of ['a', 'b']) await store.save(Session.create({ id }));
    for (let index = 0; index < INDEX_BATCH - 1; index += 1)
      await store.append(index % 2 === 0 ? 'a' : 'b', [said(index)]);
    expect(counts(file)).toEqual({ queued: INDEX_BATCH - 1, indexed: 0 });
    await store.append('a', [said(INDEX_BATCH)]);
    expect(counts(file)).toEqual({ queued: 0, indexed: INDEX_BATCH });
  });

  it('close indexes what is queued; another connection indexes what one that stays open left queued', async () => {
    const file = join(directory, 'handover.db');
    const first = await sqliteStore(file);
    await first.save(Session.create({ id: 's' }));
    await first.append('s', [said(1)]);
    await first.close();
    expect(counts(file)).toEqual({ queued: 0, indexed: 1 });
    const writer = await sqliteStore(file);
    open.push(writer);
    await writer.append('s', [said(2)]);
    const reader = await sqliteStore(file);
    open.push(reader);
    expect((await reader.searchText?.({ text: 'lighthouse', limit: 10 }))?.map((hit) => hit.messageId).sort()).toEqual([
      'n1',
      'n2',
    ]);
    expect(counts(file)).toEqual({ queued: 0, indexed: 2 });
  });

  it('deleting, purging or replacing a session drops its queued text with it', async () => {
    const file = join(directory, 'drop.db');
    let time = Date.UTC(2025, 0, 1);
    const store = await sqliteStore(file, { now: () => time });
    open.push(store);
    await store.save(Session.create({ id: 'gone' }));
    await store.save(Session.create({ id: 'expiring' }), { ttlMs: 1000 });
    await store.save(Session.create({ id: 'rewritten' }));
    for (const id of ['gone', 'expiring', 'rewritten'])
      await store.append(id, [Message.user(`the ${id} lighthouse`, { id: `${id}-1` })]);
    expect(counts(file).queued).toBe(3);
    await store.delete('gone');
    time += 1000;
    expect(await store.purgeExpired()).toBe(1);
    await store.save(Session.create({ id: 'rewritten', messages: [Message.user('a new harbour', { id: 'fresh' })] }));
    expect(counts(file)).toEqual({ queued: 0, indexed: 1 });
    expect(await store.searchText?.({ text: 'lighthouse', limit: 10 })).toEqual([]);
    expect((await store.searchText?.({ text: 'harbour', limit: 10 }))?.map((hit) => hit.messageId)).toEqual(['fresh']);
  });

  it('an index that cannot be written fails no append: the text stays queued, and the search reports the error', async () => {
    const file = join(directory, 'broken-index.db');
    const db = database(file);
    const store = await sqliteStore(db);
    await store.save(Session.create({ id: 's' }));
    // A damaged index, as far as the store can tell: its table is gone (with the trigger naming it).
    db.exec('DROP TRIGGER message_text_deleted; DROP TABLE message_fts');
    for (let index = 0; index < INDEX_BATCH; index += 1) await store.append('s', [said(index)]);
    expect((await store.load('s')).messages).toHaveLength(INDEX_BATCH);
    expect(db.prepare('SELECT count(*) FROM message_text_queue').pluck().get()).toBe(INDEX_BATCH);
    const error = await store.searchText?.({ text: 'lighthouse', limit: 10 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as ChatstateError | undefined)?.code).toBe('STORAGE_FAILED');
    await store.close();
  });
});

describe('sqlite: particulars', () => {
  it('refuses a connection whose SQLite is older than 3.43 or has no FTS5, before creating anything', async () => {
    const file = join(directory, 'old-sqlite.db');
    const real = database(file);
    // The caller's connection, as a build of an older SQLite (or one without FTS5) would answer the probe.
    const posing = (from: string, to: string): SqliteDatabaseLike => ({
      prepare: (source) => real.prepare(source.replace(from, to)),
      exec: (source) => real.exec(source),
      close: () => real.close(),
      name: real.name,
    });
    for (const [from, to, why] of [
      ['sqlite_version()', `'3.42.9'`, /SQLite 3\.42\.9; chatstate needs SQLite 3\.43 or later with FTS5/],
      [`name = 'fts5'`, `name = 'none'`, /without FTS5/],
    ] as const) {
      const error = await sqliteStore(posing(from, to)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).code).toBe('MISSING_DEPENDENCY');
      expect((error as Error).message).toMatch(why);
    }
    expect(real.prepare(`SELECT count(*) FROM sqlite_master`).pluck().get()).toBe(0);
  });

  it('folds diacritics: "cafe" finds "Café" and the other way round', async () => {
    const driver = await driverOn(join(directory, 'diacritics.db'));
    await seed(driver, 'd', ['Café au lait', 'a naive plan']);
    expect(places((await driver.searchText?.({ text: 'cafe', limit: 5 })) ?? [])).toEqual(['d#1']);
    expect(places((await driver.searchText?.({ text: 'naïve', limit: 5 })) ?? [])).toEqual(['d#2']);
  });

  it('refuses a value key or namespace SQLite would store as another string, writing nothing', async () => {
    const driver = await driverOn(join(directory, 'surrogate.db'));
    for (const write of [
      () =>
        driver.writeValues('app', [
          { key: 'fine', data: '1' },
          { key: 'bad\uD800', data: '2' },
        ]),
      () => driver.writeValues('user:\uDC00', [{ key: 'fine', data: '1' }]),
    ]) {
      const error = await write().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).code).toBe('INVALID_ARGUMENT');
    }
    expect(await driver.readValues('app')).toEqual([]);
    expect(await driver.readValues('app', ['bad\uD800'])).toEqual([]);
  });

  it('through the store: appended text is searchable; an encrypted store offers no search and indexes nothing', async () => {
    const file = join(directory, 'store.db');
    const store = await sqliteStore(file);
    open.push(store);
    await store.save(Session.create({ id: 'plain', userId: 'alice' }));
    await store.append('plain', [Message.user('where is the launch checklist?', { id: 'q1' })]);
    expect(
      (await store.searchText?.({ text: 'checklist', userId: 'alice', limit: 3 }))?.map((hit) => [
        hit.sessionId,
        hit.messageId,
        hit.score,
      ]),
    ).toEqual([['plain', 'q1', 1]]);

    const sealedFile = join(directory, 'sealed.db');
    const sealed = await sqliteStore(sealedFile, { encryption: Buffer.alloc(32, 7) });
    open.push(sealed);
    expect(sealed.searchText).toBeUndefined();
    await sealed.save(
      Session.create({ id: 'secret', userId: 'alice' }).append(Message.user('the launch checklist', { id: 's1' })),
    );
    await sealed.append('secret', [Message.user('another checklist', { id: 's2' })]);
    const db = database(sealedFile, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM message_text').pluck().get()).toBe(0);
  });
});
