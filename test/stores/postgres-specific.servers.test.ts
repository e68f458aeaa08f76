/**
 * What only the Postgres store has: migrations under an advisory lock, a caller's pool, the
 * schema and table prefix, damaged tables, writers on separate connections, and the error when
 * `pg` is not installed. The shared behaviour is in postgres.test.ts (the conformance suite).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { POSTGRES_SCHEMA_VERSION, postgresStore, type PgPoolLike } from '../../src/stores/postgres/index.js';
import { statements, tablesFor } from '../../src/stores/postgres/sql.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { expectKindRecordedOnSave } from '../support/kind-migration.js';

async function codeOf(run: () => Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  try {
    await run();
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    return { code: error.code, message: error.message };
  }
  return undefined;
}

describeWithPostgres('postgres store (specific)', (server) => {
  const schemas: string[] = [];
  const stores: SessionStore[] = [];
  const roles: string[] = [];

  function schema(label: string): string {
    const name = freshSchema(label);
    schemas.push(name);
    return name;
  }

  async function open(options: Parameters<typeof postgresStore>[1] = {}): Promise<SessionStore> {
    const store = await postgresStore(server().url, { schema: schema('store'), ...options });
    stores.push(store);
    return store;
  }

  afterAll(async () => {
    await Promise.allSettled(stores.map((store) => store.close()));
    // Needed when the suite runs against a shared CHATSTATE_TEST_POSTGRES_URL server.
    for (const name of schemas)
      await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => undefined);
    for (const role of roles) await adminQuery(server().url, `DROP ROLE IF EXISTS "${role}"`).catch(() => undefined);
  });

  it("changeFeed: false (or ?changeFeed=false) sends no notification: the feed tells only the store's own writes", async () => {
    const name = schema('quiet');
    const listening = await postgresStore(server().url, { schema: name });
    const url = new URL(server().url);
    url.searchParams.set('schema', name);
    url.searchParams.set('changeFeed', 'false');
    const quiet = await openStore(url.toString());
    stores.push(listening, quiet);
    expect(quiet.changes?.coverage).toBe('this-store');
    expect(listening.changes?.coverage).toBe('all');
    const heard: string[] = [];
    const stop = listening.changes?.subscribe((event) => {
      if (event.type === 'change') heard.push(`${event.kind} ${event.id}`);
    });
    try {
      const end = Date.now() + 10_000;
      while (listening.changes?.state !== 'live' && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      await quiet.save(Session.create({ id: 'unheard' }));
      // A notifying writer afterwards: once its change is heard, one from the quiet writer would have been too.
      await postgresStore(server().url, { schema: name }).then(async (loud) => {
        stores.push(loud);
        await loud.save(Session.create({ id: 'heard' }));
      });
      while (!heard.includes('replace heard') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      expect(heard).toEqual(['replace heard']);
    } finally {
      stop?.();
    }
    await expect(postgresStore(`${server().url}?changeFeed=maybe`)).rejects.toThrow(/changeFeed/);
  });

  it('reads the tail of a session saved in bulk by walking its index, not by sorting all its rows', async () => {
    const name = schema('bulk');
    const store = await postgresStore(server().url, { schema: name });
    stores.push(store);
    // Rows of a realistic size (~600 bytes): with tiny rows the planner walks the index even without statistics.
    const filler = 'a sentence of about the length a real message has, '.repeat(11);
    const messages = Array.from({ length: 20_000 }, (_, index) =>
      index % 2 === 0 ? Message.user(`question ${index}: ${filler}`) : Message.assistant(`answer ${index}: ${filler}`),
    );
    await store.save(Session.create({ id: 'bulk', messages }));
    await store.save(Session.create({ id: 'small', messages: messages.slice(0, 10) }));
    // The statement the driver runs for readMessages(id, { limit }), as the planner sees it right after the save.
    const plan = await adminQuery(server().url, `EXPLAIN ${statements(tablesFor(name, 'chatstate_')).readRange}`, [
      'bulk',
      0,
      Number.MAX_SAFE_INTEGER,
      200,
      Date.now(),
    ]);
    const text = plan.rows.map((row: Record<string, unknown>) => String(row['QUERY PLAN'])).join('\n');
    expect(text).toContain('Index Scan Backward');
    expect(text).not.toContain('Sort');
    expect((await store.readMessages('bulk', { limit: 3 })).map((message) => message.id)).toEqual(
      messages.slice(-3).map((message) => message.id),
    );
  });

  it('opens through openStore with the schema and table prefix in the URL', async () => {
    const name = schema('url');
    const url = new URL(server().url);
    url.searchParams.set('schema', name);
    url.searchParams.set('tablePrefix', 'app_');
    const store = await openStore(url.toString());
    stores.push(store);
    const saved = await store.save(Session.create({ id: 'from-url', messages: [Message.user('hello', { id: 'u1' })] }));
    expect((await store.load('from-url')).messages.map((message) => message.seq)).toEqual([1]);
    expect(saved.version).toBe(1);
    const tables = await adminQuery(
      server().url,
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [name],
    );
    expect(tables.rows.map((row: { table_name: string }) => row.table_name)).toEqual([
      'app_message_search',
      'app_messages',
      'app_schema_version',
      'app_sessions',
      'app_values',
    ]);
    const alias = new URL(url);
    alias.protocol = 'postgresql:';
    const second = await openStore(alias.toString());
    stores.push(second);
    expect((await second.load('from-url')).messages).toHaveLength(1);
  });

  it('eight stores opening one fresh schema at once migrate it exactly once (advisory lock)', async () => {
    for (let round = 0; round < 5; round += 1) {
      const name = schema('race');
      // Each store has its own pool, so the server sees eight independent sessions, as from eight processes.
      const opened = await Promise.all(
        Array.from({ length: 8 }, () => postgresStore(server().url, { schema: name, maxConnections: 2 })),
      );
      stores.push(...opened);
      const versions = await adminQuery(
        server().url,
        `SELECT version FROM "${name}"."chatstate_schema_version" ORDER BY version`,
      );
      expect(versions.rows).toEqual(
        Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
      );
      const first = opened[0] as SessionStore;
      await first.save(Session.create({ id: 'after-race' }));
      expect(await (opened[7] as SessionStore).get('after-race')).toBeDefined();
    }
  });

  it('migrates version 3 to the kind column: old rows are conversations until their next save sets the kind', async () => {
    const name = schema('before-kinds');
    const first = await postgresStore(server().url, { schema: name });
    await first.save(Session.create({ id: 'facts', metadata: { chatstate: 'knowledge' } }));
    await first.save(Session.create({ id: 'chat' }));
    await first.close();
    // The tables as version 3 wrote them: no kind column.
    await adminQuery(server().url, `ALTER TABLE "${name}"."chatstate_sessions" DROP COLUMN kind`);
    await adminQuery(server().url, `DELETE FROM "${name}"."chatstate_schema_version" WHERE version = 4`);
    const reopened = await postgresStore(server().url, { schema: name });
    stores.push(reopened);
    await expectKindRecordedOnSave(reopened);
  });

  it('reopening migrated tables runs no DDL: a role without CREATE rights can use them', async () => {
    const name = schema('readonly-ddl');
    const owner = await postgresStore(server().url, { schema: name });
    stores.push(owner);
    await owner.save(Session.create({ id: 'shared' }));
    const role = `cs_user_${name.slice(-10)}`;
    roles.push(role);
    await adminQuery(server().url, `CREATE ROLE "${role}" LOGIN`);
    await adminQuery(server().url, `GRANT USAGE ON SCHEMA "${name}" TO "${role}"`);
    await adminQuery(
      server().url,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${name}" TO "${role}"`,
    );
    const url = new URL(server().url);
    url.username = role;
    const user = await postgresStore(url.toString(), { schema: name });
    stores.push(user);
    await user.append('shared', [Message.user('from a limited role', { id: 'limited' })]);
    expect((await owner.load('shared')).messages.map((message) => message.id)).toEqual(['limited']);
  });

  it('refuses tables migrated by a newer version', async () => {
    const name = schema('newer');
    stores.push(await postgresStore(server().url, { schema: name }));
    await adminQuery(server().url, `INSERT INTO "${name}"."chatstate_schema_version" (version) VALUES (99)`);
    const failure = await codeOf(() => postgresStore(server().url, { schema: name }));
    expect(failure?.code).toBe('CORRUPT');
    expect(failure?.message).toMatch(/^postgres: .*schema version 99.*newer/);
  });

  it('uses a pool the caller passes, and leaves it open on close', async () => {
    const pool = new pg.Pool({ connectionString: server().url, max: 3 });
    try {
      const typed: PgPoolLike = pool;
      const store = await postgresStore(typed, { schema: schema('pool') });
      await store.save(Session.create({ id: 'pooled', messages: [Message.user('hi', { id: 'a' })] }));
      await store.append('pooled', [Message.assistant('hello', { id: 'b' })]);
      expect((await store.load('pooled')).messages.map((message) => [message.id, message.seq])).toEqual([
        ['a', 1],
        ['b', 2],
      ]);
      await store.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('rejects a schema or prefix that is not a plain identifier (no SQL through names)', async () => {
    for (const options of [
      { schema: 'x"; DROP TABLE y; --' },
      { schema: '' },
      { tablePrefix: 'a b' },
      { tablePrefix: 'p'.repeat(33) },
    ]) {
      const failure = await codeOf(() => postgresStore(server().url, options));
      expect(failure?.code, JSON.stringify(options)).toBe('INVALID_ARGUMENT');
    }
    expect((await codeOf(() => postgresStore({} as PgPoolLike)))?.code).toBe('INVALID_ARGUMENT');
    expect((await codeOf(() => postgresStore('postgres://[bad')))?.code).toBe('INVALID_ARGUMENT');
  });

  it('keeps stores with different prefixes in one schema apart', async () => {
    const name = schema('prefixes');
    const a = await postgresStore(server().url, { schema: name, tablePrefix: 'a_' });
    const b = await postgresStore(server().url, { schema: name, tablePrefix: 'b_' });
    stores.push(a, b);
    await a.save(Session.create({ id: 'only-in-a' }));
    expect(await b.get('only-in-a')).toBeUndefined();
    expect(await b.list()).toEqual([]);
    expect((await a.list()).map((summary) => summary.id)).toEqual(['only-in-a']);
  });

  it('takes a name option, used by store.name and every error it raises', async () => {
    const name = schema('named');
    const store = await open({ schema: name, name: 'archive' });
    expect(store.name).toBe('archive');
    expect(await codeOf(() => store.append('missing', [Message.user('x')]))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'archive: no session "missing"',
    });
    await store.save(Session.create({ id: 'n1', messages: [Message.user('fine', { id: 'fine' })] }));
    await adminQuery(server().url, `UPDATE "${name}"."chatstate_sessions" SET last_seq = -4 WHERE id = 'n1'`);
    expect(await codeOf(() => store.load('n1'))).toMatchObject({
      code: 'CORRUPT',
      message: expect.stringMatching(/^archive: /),
    });
    expect(await codeOf(() => store.save(Session.create({ id: 'n2', userId: 'nul\u0000' })))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^archive: /),
    });
    await store.close();
    expect(await codeOf(() => store.list())).toMatchObject({ code: 'CLOSED', message: 'archive: the store is closed' });
    expect(await codeOf(() => postgresStore(server().url, { name: '' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    // Before any connection: the timeouts and the URL are checked in the store's name too.
    expect(await codeOf(() => postgresStore('postgres://[bad', { name: 'archive' }))).toMatchObject({
      message: expect.stringMatching(/^archive: /),
    });
    await expect(
      postgresStore('postgres://127.0.0.1:1/none', { name: 'archive', connectTimeoutMs: 500 }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', details: { store: 'archive' } });
  });

  it('a missing table is CORRUPT naming the store', async () => {
    const name = schema('dropped');
    const store = await open({ schema: name });
    await store.save(Session.create({ id: 'doomed', messages: [Message.user('x', { id: 'x' })] }));
    await adminQuery(server().url, `DROP TABLE "${name}"."chatstate_messages"`);
    for (const run of [
      () => store.load('doomed'),
      () => store.append('doomed', [Message.user('y', { id: 'y' })]),
      () => store.readMessages('doomed', { limit: 1 }),
    ]) {
      const failure = await codeOf(run);
      expect(failure?.code).toBe('CORRUPT');
      expect(failure?.message).toMatch(/^postgres: .*missing or damaged/);
    }
  });

  it('a garbage message row, head data or counter is CORRUPT naming the store', async () => {
    const name = schema('garbage');
    const store = await open({ schema: name });
    const messages = `"${name}"."chatstate_messages"`;
    const sessions = `"${name}"."chatstate_sessions"`;
    await store.save(Session.create({ id: 'g1', messages: [Message.user('fine', { id: 'fine' })] }));
    await adminQuery(server().url, `UPDATE ${messages} SET data = 'not json at all' WHERE session_id = 'g1'`);
    await store.save(Session.create({ id: 'g2' }));
    await adminQuery(server().url, `UPDATE ${sessions} SET data = '[1, 2' WHERE id = 'g2'`);
    await store.save(Session.create({ id: 'g3' }));
    await adminQuery(server().url, `UPDATE ${sessions} SET last_seq = -4 WHERE id = 'g3'`);
    await store.save(Session.create({ id: 'g4', messages: [Message.user('fine', { id: 'right-id' })] }));
    await adminQuery(server().url, `UPDATE ${messages} SET id = 'wrong-id' WHERE session_id = 'g4'`);
    for (const id of ['g1', 'g2', 'g3', 'g4']) {
      const failure = await codeOf(() => store.load(id));
      expect(failure?.code, id).toBe('CORRUPT');
      expect(failure?.message, id).toMatch(/^postgres: /);
    }
    const failure = await codeOf(() => store.append('g3', [Message.user('more', { id: 'more' })]));
    expect(failure?.code).toBe('CORRUPT');
  });

  it('appends from two stores on separate connections to one session all land once, in one sequence', async () => {
    const name = schema('writers');
    const a = await postgresStore(server().url, { schema: name });
    const b = await postgresStore(server().url, { schema: name });
    stores.push(a, b);
    await a.save(Session.create({ id: 'busy' }));
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i += 1) {
      writes.push(a.append('busy', [Message.user(`a${i}`, { id: `a${i}` })]));
      writes.push(b.append('busy', [Message.user(`b${i}`, { id: `b${i}` })]));
      // The same message sent by both writers (a retry racing the original) is stored once.
      writes.push(a.append('busy', [Message.user(`both${i}`, { id: `both${i}` })]));
      writes.push(b.append('busy', [Message.user(`both${i}`, { id: `both${i}` })]));
    }
    await Promise.all(writes);
    const loaded = await b.load('busy');
    expect(loaded.messages).toHaveLength(120);
    expect(new Set(loaded.messages.map((message) => message.id)).size).toBe(120);
    expect(loaded.messages.map((message) => message.seq)).toEqual(Array.from({ length: 120 }, (_, index) => index + 1));
    const [summary] = await a.list();
    expect(summary?.messageCount).toBe(120);
    expect(summary?.version).toBe(121);
  });

  it('two creators of one id with expectedVersion 0: one wins, the other gets CONFLICT', async () => {
    const name = schema('creators');
    const a = await postgresStore(server().url, { schema: name });
    const b = await postgresStore(server().url, { schema: name });
    stores.push(a, b);
    for (let round = 0; round < 10; round += 1) {
      const id = `race-${round}`;
      const results = await Promise.allSettled([
        a.save(Session.create({ id, messages: [Message.user('from a', { id: 'a' })] }), { expectedVersion: 0 }),
        b.save(Session.create({ id, messages: [Message.user('from b', { id: 'b' })] }), { expectedVersion: 0 }),
      ]);
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = results.find((result) => result.status === 'rejected');
      expect(ChatstateError.isInstance(lost?.reason) && lost.reason.code).toBe('CONFLICT');
      const winner = (won[0] as PromiseFulfilledResult<Session>).value;
      expect((await a.load(id)).messages.map((message) => message.id)).toEqual(
        winner.messages.map((message) => message.id),
      );
    }
    // Unchecked saves racing a creation both succeed: the last one wins whole.
    const unchecked = await Promise.all([
      a.save(Session.create({ id: 'free', messages: [Message.user('1', { id: 'one' })] })),
      b.save(Session.create({ id: 'free', messages: [Message.user('2', { id: 'two' })] })),
    ]);
    expect(unchecked).toHaveLength(2);
    expect((await a.load('free')).messages).toHaveLength(1);
  });

  it('refuses an owner id Postgres text would change, and finds nothing when filtering by one', async () => {
    const store = await open();
    expect((await codeOf(() => store.save(Session.create({ id: 'owner', agentId: 'nul\u0000inside' }))))?.code).toBe(
      'INVALID_ARGUMENT',
    );
    expect(await store.list({ agentId: 'nul\u0000inside' })).toEqual([]);
    // A lone surrogate is refused by the core first, as every store does (INVALID_ID), in saves and filters alike.
    expect(
      (await codeOf(() => store.save(Session.create({ id: 'owner', agentId: 'lone \uD800 surrogate' }))))?.code,
    ).toBe('INVALID_ID');
    expect((await codeOf(() => store.list({ agentId: 'lone \uD800 surrogate' })))?.code).toBe('INVALID_ID');
    await store.save(Session.create({ id: 'owner', agentId: 'paired \uD83D\uDE00 emoji', userId: 'ünïcödé' }));
    expect(
      (await store.list({ agentId: 'paired \uD83D\uDE00 emoji', userId: 'ünïcödé' })).map((summary) => summary.id),
    ).toEqual(['owner']);
  });

  it('close waits for writes in flight and ends the pool it made', async () => {
    const store = await open();
    await store.save(Session.create({ id: 'closing' }));
    const writes = Array.from({ length: 20 }, (_, index) =>
      store.append('closing', [Message.user(`m${index}`, { id: `m${index}` })]),
    );
    await store.close();
    await Promise.all(writes);
    const reader = await open({ schema: schemas.at(-1) as string });
    expect((await reader.load('closing')).messages).toHaveLength(20);
  });

  it('without the pg package, opening a postgres:// URL fails with MISSING_DEPENDENCY naming pg', () => {
    // A resolve hook in a child process hides `pg`, as if it were not installed.
    const hooks = `export async function resolve(specifier, context, next) {
      if (specifier === 'pg' || specifier.startsWith('pg/')) {
        const error = new Error("Cannot find package 'pg'");
        error.code = 'ERR_MODULE_NOT_FOUND';
        throw error;
      }
      return next(specifier, context);
    }`;
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const openStorePath = fileURLToPath(new URL('../../src/stores/open-store.ts', import.meta.url));
    const script = `const { openStore } = await import(${JSON.stringify(openStorePath)});
      try { await openStore(${JSON.stringify(server().url)}); console.log('OPENED'); }
      catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        `data:text/javascript,${encodeURIComponent(register)}`,
        '--input-type=module',
        '-e',
        script,
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.stderr).toBe('');
    const outcome = JSON.parse(child.stdout) as { code: string; message: string };
    expect(outcome.code).toBe('MISSING_DEPENDENCY');
    expect(outcome.message).toMatch(/^postgres: .*`pg`.*npm install pg/);
  });
});
