/**
 * What is particular to the SQLite store, beyond the conformance suite: URLs, connection settings,
 * schema migration, a caller's own connection, group commit, the cost of an append and of a tail
 * read (by the pages and plans SQLite reports, never by timing), lock timeouts, and a missing
 * better-sqlite3.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CollaboratorError,
  ConflictError,
  DataError,
  InvalidInputError,
  type ChatstateError,
} from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { WAL_CHECKPOINT_PAGES, WAL_SIZE_LIMIT } from '../../src/stores/sqlite/schema.js';
import {
  SQLITE_SCHEMA_VERSION,
  sqlitePathFromUrl,
  sqliteStore,
  type SqliteDatabaseLike,
} from '../../src/stores/sqlite/index.js';
import { expectKindRecordedOnSave } from '../support/kind-migration.js';

let directory: string;
const open: Array<{ close(): unknown }> = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'chatstate-sqlite-'));
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

async function store(target: string | SqliteDatabaseLike, options?: Parameters<typeof sqliteStore>[1]) {
  const opened = await sqliteStore(target, options);
  open.push(opened);
  return opened;
}

function messages(count: number, prefix: string): Message[] {
  return Array.from({ length: count }, (_, index) =>
    Message.user(`${prefix} ${index}: ${'words '.repeat(40)}`, { id: `${prefix}-${index}` }),
  );
}

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('sqlite: URLs', () => {
  it('takes sqlite:PATH as written, sqlite:///absolute as a file URL, and sqlite::memory:', () => {
    expect(sqlitePathFromUrl('sqlite:./data/sessions.db')).toBe('./data/sessions.db');
    expect(sqlitePathFromUrl('sqlite:/var/lib/app/s.db')).toBe('/var/lib/app/s.db');
    expect(sqlitePathFromUrl('sqlite:///var/lib/my%20app/s.db')).toBe('/var/lib/my app/s.db');
    expect(sqlitePathFromUrl('SQLITE::memory:')).toBe(':memory:');
  });

  it.each([
    ['sqlite:', 'expected a database file'],
    ['sqlite://host/s.db', 'has no host'],
    ['sqlite:s.db?mode=ro', 'query and fragment'],
    ['sqlite:s\0.db', 'NUL'],
  ])('refuses %j', (url, why) => {
    const error = (() => {
      try {
        sqlitePathFromUrl(url);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('INVALID_ARGUMENT');
    expect((error as Error).message).toContain(why);
  });

  it('openStore("sqlite:…") opens the file, creating its directory, and a second open sees the data', async () => {
    const file = join(directory, 'nested', 'dir', 'sessions.db');
    const first = await openStore(`sqlite:${file}`);
    open.push(first);
    await first.save(Session.create({ id: 'a' }).append(Message.user('hello')));
    expect(existsSync(file)).toBe(true);
    const second = await openStore(pathToFileURL(file).href.replace(/^file:/, 'sqlite:'));
    open.push(second);
    expect((await second.load('a')).messages.map((message) => Message.text(message))).toEqual(['hello']);
  });
});

describe('sqlite: in memory', () => {
  it('openStore("sqlite::memory:") is a private database that lives as long as the store', async () => {
    const first = await openStore('sqlite::memory:');
    open.push(first);
    await first.save(Session.create({ id: 'a' }).append(Message.user('hello')));
    expect((await first.load('a')).messages).toHaveLength(1);
    const second = await openStore('sqlite::memory:');
    open.push(second);
    expect(await second.get('a')).toBeUndefined();
  });
});

describe('sqlite: connection and schema', () => {
  it('sets WAL, synchronous = FULL, the checkpoint interval and the busy timeout on a connection, and leaves a caller’s connection open on close', async () => {
    const db = database(join(directory, 'own.db'));
    const opened = await sqliteStore(db, { busyTimeoutMs: 1234 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
    expect(db.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT);
    await opened.close();
    expect(db.open).toBe(true);
    expect(db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get()).toBe(String(SQLITE_SCHEMA_VERSION));
  });

  it('migrates a database without its tables forward and leaves other tables alone', async () => {
    const file = join(directory, 'shared.db');
    const db = database(file);
    db.exec(`CREATE TABLE other (x TEXT); INSERT INTO other VALUES ('kept')`);
    db.close();
    const opened = await store(file);
    await opened.save(Session.create({ id: 'a' }));
    await opened.close();
    const check = database(file, { readonly: true });
    expect(check.prepare('SELECT x FROM other').pluck().all()).toEqual(['kept']);
    expect(check.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get()).toBe(
      String(SQLITE_SCHEMA_VERSION),
    );
  });

  it('migrates version 4 to the kind column: old rows are conversations until their next save sets the kind', async () => {
    const file = join(directory, 'before-kinds.db');
    const first = await store(file);
    await first.save(Session.create({ id: 'facts', metadata: { chatstate: 'knowledge' } }));
    await first.save(Session.create({ id: 'chat' }));
    await first.close();
    // The database as version 4 wrote it: no kind column.
    const db = database(file);
    db.exec(`ALTER TABLE sessions DROP COLUMN kind; UPDATE meta SET value = '4' WHERE key = 'schema'`);
    db.close();
    const reopened = await store(file);
    expect(
      database(file, { readonly: true }).prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get(),
    ).toBe(String(SQLITE_SCHEMA_VERSION));
    await expectKindRecordedOnSave(reopened);
    await reopened.close();
  });

  it('refuses a database written by a newer schema with CORRUPT, and changes nothing', async () => {
    const file = join(directory, 'newer.db');
    await (await sqliteStore(file)).close();
    const db = database(file);
    db.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema'`).run();
    db.close();
    const error = await thrown(() => sqliteStore(file));
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).code).toBe('CORRUPT');
    expect((error as Error).message).toMatch(
      /^sqlite: .*newer\.db is at schema version 99.*newer chatstate.*Upgrade chatstate/,
    );
    expect(
      database(file, { readonly: true }).prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get(),
    ).toBe('99');
  });

  it('refuses a database whose "sessions" table is someone else’s, creating nothing', async () => {
    const file = join(directory, 'foreign.db');
    const db = database(file);
    db.exec('CREATE TABLE sessions (token TEXT)');
    const error = await thrown(() => sqliteStore(file));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain('"sessions" table that chatstate did not create');
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all()).toEqual([
      'sessions',
    ]);
  });

  it('refuses something that is neither a path nor a connection', async () => {
    const error = await thrown(() => sqliteStore({ prepare: 1 } as unknown as SqliteDatabaseLike));
    expect(error).toBeInstanceOf(InvalidInputError);
  });

  it('takes a name option, used by store.name and its errors; an empty one is INVALID_ARGUMENT', async () => {
    const opened = await store(join(directory, 'named.db'), { name: 'journal' });
    expect(opened.name).toBe('journal');
    await expect(opened.append('missing', [Message.user('x')])).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'journal: no session "missing"',
    });
    await opened.close();
    await expect(opened.list()).rejects.toMatchObject({ code: 'CLOSED', message: 'journal: the store is closed' });
    await expect(sqliteStore(join(directory, 'unnamed.db'), { name: '' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(existsSync(join(directory, 'unnamed.db'))).toBe(false);
  });

  it('refuses an owner id SQLite would store as a different string', async () => {
    const opened = await store(join(directory, 'text.db'));
    // The core refuses it first, as every store does (INVALID_ID); the driver's own check stays for direct driver use.
    const error = await thrown(() => opened.save(Session.create({ id: 'a', userId: 'user\uD800' })));
    expect((error as ChatstateError).code).toBe('INVALID_ID');
    expect(await opened.get('a')).toBeUndefined();
  });
});

describe('sqlite: writes', () => {
  it('an acknowledged append is committed: another connection reads it at once', async () => {
    const file = join(directory, 'ack.db');
    const opened = await store(file);
    await opened.save(Session.create({ id: 'a' }));
    const other = database(file, { readonly: true });
    for (let index = 0; index < 5; index += 1) {
      await opened.append('a', [Message.user(`m${index}`, { id: `m${index}` })]);
      expect(other.prepare(`SELECT count(*) FROM messages WHERE session_id = 'a'`).pluck().get()).toBe(index + 1);
    }
  });

  it('groups the writes of one tick into one transaction, in call order, and a failing one rolls back alone', async () => {
    const log: string[] = [];
    const db = database(join(directory, 'group.db'), { verbose: (statement) => log.push(String(statement)) });
    const opened = await store(db);
    await opened.save(Session.create({ id: 'a' }));
    log.length = 0;
    const calls = Array.from({ length: 20 }, (_, index) =>
      // Call 7 carries a stale version: it alone fails; the others land.
      opened.append('a', [Message.user(`m${index}`, { id: `m${index}` })], index === 7 ? { expectedVersion: 1 } : {}),
    );
    const results = await Promise.allSettled(calls);
    expect(
      results
        .filter((result) => result.status === 'rejected')
        .map((result) => (result as PromiseRejectedResult).reason),
    ).toEqual([expect.any(ConflictError)]);
    // One write transaction, holding all twenty appends (the core's reads run in read transactions).
    expect(log.filter((statement) => statement === 'BEGIN IMMEDIATE')).toHaveLength(1);
    const begin = log.indexOf('BEGIN IMMEDIATE');
    const transaction = log.slice(begin, log.indexOf('COMMIT', begin));
    expect(transaction.filter((statement) => statement === 'SAVEPOINT chatstate_write')).toHaveLength(20);
    const session = await opened.load('a');
    const expected = Array.from({ length: 20 }, (_, index) => `m${index}`).filter((id) => id !== 'm7');
    expect(session.messages.map((message) => message.id)).toEqual(expected);
    expect(session.messages.map((message) => message.seq)).toEqual(expected.map((_, index) => index + 1));
    expect(session.version).toBe(1 + 19);
  });

  it('close() commits the writes still queued', async () => {
    const file = join(directory, 'close.db');
    const opened = await sqliteStore(file);
    await opened.save(Session.create({ id: 'a' }));
    const pending = opened.append('a', [Message.user('last words', { id: 'last' })]);
    await opened.close();
    await expect(pending).resolves.toMatchObject({ duplicates: [] });
    const reopened = await store(file);
    expect((await reopened.load('a')).messages.map((message) => message.id)).toEqual(['last']);
  });

  it('an append writes the same few pages at the 10th and at the 5,000th message: it never rewrites the session', async () => {
    const db = database(join(directory, 'pages.db'));
    const opened = await store(db);
    await opened.save(Session.create({ id: 'small' }).append(...messages(10, 'small')));
    await opened.save(Session.create({ id: 'large' }).append(...messages(5000, 'large')));
    // Pages written by one append: the frames it adds to an emptied write-ahead log.
    const framesOf = async (id: string): Promise<number> => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      await opened.append(id, [Message.assistant(`a reply ${'text '.repeat(60)}`)]);
      const [row] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
      return row?.log ?? Number.NaN;
    };
    // An append queues its text for the FTS5 index (indexed in batches, none of which falls in
    // these appends); appends to the two sessions alternate, so both see the same B-tree splits of
    // the shared tables, and their totals are compared.
    const rounds = 12;
    const small: number[] = [];
    const large: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      small.push(await framesOf('small'));
      large.push(await framesOf('large'));
    }
    const total = (frames: number[]) => frames.reduce((sum, count) => sum + count, 0);
    // The message and its id index, the queued text, the head and its activity index: five pages,
    // a few more when a B-tree page splits.
    expect(Math.max(...small, ...large)).toBeLessThanOrEqual(16);
    // One more level in a B-tree is the most a 500× larger session may cost.
    expect(total(large)).toBeLessThanOrEqual(total(small) + 3 * rounds);
  });

  it('a lock held by another connection past busyTimeoutMs is a chatstate error naming the store, and writes work again after', async () => {
    const file = join(directory, 'busy.db');
    const opened = await store(file, { busyTimeoutMs: 20 });
    await opened.save(Session.create({ id: 'a' }));
    const other = database(file);
    other.exec('BEGIN IMMEDIATE');
    const error = await thrown(() => opened.append('a', [Message.user('blocked')]));
    expect(error).toBeInstanceOf(CollaboratorError);
    expect((error as Error).message).toMatch(/^sqlite: .*busy\.db stayed locked by another writer/);
    other.exec('ROLLBACK');
    await expect(opened.append('a', [Message.user('free')])).resolves.toMatchObject({ version: 2 });
  });
});

describe('sqlite: reads use the indexes', () => {
  /** The query plans of every statement the store ran for `work`. */
  async function plans(work: (opened: Awaited<ReturnType<typeof sqliteStore>>) => Promise<unknown>): Promise<string[]> {
    const log: string[] = [];
    const db = database(join(directory, 'plans.db'), { verbose: (statement) => log.push(String(statement)) });
    const opened = await store(db);
    await opened.save(Session.create({ id: 'a', userId: 'u', agentId: 'g' }).append(...messages(300, 'a')));
    log.length = 0;
    await work(opened);
    return log
      .filter((statement) => statement.startsWith('SELECT'))
      .map((statement) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${statement}`).all() as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join('; '),
      );
  }

  it('a tail read walks the primary key backwards: no scan, no sort', async () => {
    const found = await plans((opened) => opened.readMessages('a', { limit: 200, beforeSeq: 250 }));
    const tail = found.find((plan) => plan.includes('messages')) ?? '';
    expect(tail).toMatch(/SEARCH messages USING PRIMARY KEY \(session_id=\? AND seq>\? AND seq<\?\)/);
    expect(tail).not.toMatch(/TEMP B-TREE|SCAN/);
  });

  it('list reads an index in its order for every filter: no sort', async () => {
    const found = await plans(async (opened) => {
      await opened.list();
      await opened.list({ userId: 'u' });
      await opened.list({ agentId: 'g' });
      await opened.list({ userId: 'u', agentId: 'g' });
    });
    expect(found).toHaveLength(4);
    expect(found[0]).toContain('sessions_by_activity');
    expect(found[1]).toContain('sessions_by_user');
    expect(found[2]).toContain('sessions_by_agent');
    for (const plan of found) expect(plan).not.toContain('TEMP B-TREE');
  });
});

describe('sqlite: a missing better-sqlite3', () => {
  it('is MISSING_DEPENDENCY naming the package to install', () => {
    const child = fileURLToPath(new URL('../support/sqlite-missing-child.ts', import.meta.url));
    const result = spawnSync(process.execPath, ['--import', 'tsx', child, join(directory, 'never.db')], {
      encoding: 'utf8',
    });
    const error = JSON.parse(result.stdout || '{}') as { name?: string; code?: string; message?: string };
    expect(error, result.stderr).toMatchObject({ name: 'InvalidInputError' });
    expect(error).toMatchObject({ name: 'InvalidInputError', code: 'MISSING_DEPENDENCY' });
    expect(error.message).toContain('npm install better-sqlite3');
    expect(existsSync(join(directory, 'never.db'))).toBe(false);
  });
});
