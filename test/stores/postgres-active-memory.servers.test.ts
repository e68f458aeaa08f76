/**
 * Active memory in the Postgres store, against a real server: the shared SQL specs on the driver,
 * the upgrade of tables written by schema version 1, the plans of searches over 100k messages
 * (the GIN index or the user index, never a sequential scan), and what is particular to Postgres
 * (stop words, a C-locale database, concurrent value writers, the longest table prefix).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { StoreDriver } from '../../src/store/driver-types.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { postgresDriver, postgresStore } from '../../src/stores/postgres/index.js';
import { activeMemoryStatements } from '../../src/stores/postgres/active-memory-sql.js';
import { SCHEMA_VERSION } from '../../src/stores/postgres/migrations.js';
import { tablesFor } from '../../src/stores/postgres/sql.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { expectMigratedSessionKept, places, seed, sqlActiveMemorySpecs } from '../support/sql-active-memory-specs.js';

describeWithPostgres('postgres: active memory', (server) => {
  const schemas: string[] = [];
  const handles: Array<{ close(): Promise<void> }> = [];
  const schemaOf = new WeakMap<StoreDriver, string>();

  function schema(label: string): string {
    const name = freshSchema(label);
    schemas.push(name);
    return name;
  }

  async function driverIn(name: string, tablePrefix?: string): Promise<StoreDriver> {
    const driver = await postgresDriver(server().url, {
      schema: name,
      maxConnections: 4,
      ...(tablePrefix === undefined ? {} : { tablePrefix }),
    });
    handles.push(driver);
    schemaOf.set(driver, name);
    return driver;
  }

  async function storeIn(name: string, options: Parameters<typeof postgresStore>[1] = {}): Promise<SessionStore> {
    const store = await postgresStore(server().url, { schema: name, maxConnections: 4, ...options });
    handles.push(store);
    return store;
  }

  function nameOf(driver: StoreDriver): string {
    const name = schemaOf.get(driver);
    if (name === undefined) throw new Error('not a driver of this test');
    return name;
  }

  afterAll(async () => {
    await Promise.allSettled(handles.map((handle) => handle.close()));
    for (const name of schemas)
      await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => undefined);
  });

  describe('shared SQL specs', () => {
    sqlActiveMemorySpecs(() => ({
      open: () => driverIn(schema('memory')),
      reopen: (driver) => driverIn(nameOf(driver)),
      async indexRows(driver, id) {
        const result = await adminQuery(
          server().url,
          `SELECT count(*)::int AS n FROM "${nameOf(driver)}"."chatstate_message_search" WHERE session_id = $1`,
          [id],
        );
        return (result.rows[0] as { n: number }).n;
      },
    }));
  });

  it('upgrades tables of schema version 1 in place: sessions load unchanged, and values and search work after', async () => {
    // Records as the core writes them, copied into tables that have only the version 1 shape.
    const source = schema('v1-source');
    const writer = await storeIn(source);
    const original = await writer.save(
      Session.create({ id: 'old', userId: 'alice', metadata: { kept: true } }).append(
        Message.user('the old budget plan', { id: 'u1' }),
        Message.assistant('noted', { id: 'a1' }),
      ),
    );
    const target = schema('v1');
    const q = (sql: string) => adminQuery(server().url, sql);
    await q(`CREATE SCHEMA "${target}"`);
    await q(
      `CREATE TABLE "${target}"."chatstate_schema_version" (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await q(`INSERT INTO "${target}"."chatstate_schema_version" (version) VALUES (1)`);
    await q(`CREATE TABLE "${target}"."chatstate_sessions" (id text COLLATE "C" PRIMARY KEY, record_schema integer NOT NULL, version bigint NOT NULL,
      agent_id text COLLATE "C", user_id text COLLATE "C", created_at text NOT NULL, updated_at text COLLATE "C" NOT NULL, expires_at bigint,
      ttl_ms bigint, message_count bigint NOT NULL, token_count bigint NOT NULL, last_seq bigint NOT NULL, title text, data text NOT NULL)`);
    await q(`CREATE TABLE "${target}"."chatstate_messages" (session_id text COLLATE "C" NOT NULL REFERENCES "${target}"."chatstate_sessions" (id) ON DELETE CASCADE,
      seq bigint NOT NULL, id text COLLATE "C" NOT NULL, data text NOT NULL,
      CONSTRAINT "chatstate_messages_pkey" PRIMARY KEY (session_id, seq), CONSTRAINT "chatstate_messages_id_key" UNIQUE (session_id, id))`);
    // The columns of version 1 (later versions added key_check and kind).
    const columns =
      'id, record_schema, version, agent_id, user_id, created_at, updated_at, expires_at, ttl_ms, message_count, token_count, last_seq, title, data';
    await q(`INSERT INTO "${target}"."chatstate_sessions" SELECT ${columns} FROM "${source}"."chatstate_sessions"`);
    await q(`INSERT INTO "${target}"."chatstate_messages" SELECT * FROM "${source}"."chatstate_messages"`);

    const store = await storeIn(target);
    const versions = await adminQuery(
      server().url,
      `SELECT version FROM "${target}"."chatstate_schema_version" ORDER BY version`,
    );
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
    expect(SCHEMA_VERSION).toBe(4);
    await expectMigratedSessionKept(store, original);
  });

  it('searches over 100k messages of 10 users use the GIN index for rare words and an index for common ones: never a sequential scan', async () => {
    const name = schema('plan');
    const driver = await driverIn(name);
    const words = ['budget', 'travel', 'design', 'hiring', 'launch', 'pricing', 'support', 'roadmap'];
    for (let user = 0; user < 10; user += 1) {
      await Promise.all(
        Array.from({ length: 10 }, (_, session) => {
          const texts = Array.from({ length: 1000 }, (_, index) =>
            index === 500 && session === 3
              ? 'the zebra memo'
              : `message ${index} on ${words[(index + session) % words.length]} and ${words[(index * 7 + user) % words.length]}`,
          );
          return seed(driver, `s${user}-${session}`, texts, { userId: `user-${user}` });
        }),
      );
    }
    const table = `"${name}"."chatstate_message_search"`;
    // What autovacuum does in a live database: statistics, and new entries moved from the GIN
    // pending list into the index (until then the planner rightly counts the list's scan).
    await adminQuery(server().url, `VACUUM ANALYZE ${table}`);
    expect((await adminQuery(server().url, `SELECT count(*)::int AS n FROM ${table}`)).rows).toEqual([{ n: 100_000 }]);
    expect(places((await driver.searchText?.({ text: 'zebra', userId: 'user-4', limit: 5 })) ?? [])).toEqual([
      's4-3#501',
    ]);

    const sql = activeMemoryStatements(tablesFor(name, 'chatstate_'));
    const planOf = async (tsquery: string, userId: string): Promise<string> => {
      const result = await adminQuery(server().url, `EXPLAIN ${sql.search({ user: true, sessions: false })}`, [
        tsquery,
        5,
        userId,
      ]);
      return result.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
    };
    const rare = await planOf(`'zebra'`, 'user-4');
    expect(rare).toContain('Bitmap Index Scan on chatstate_message_search_body_idx');
    expect(rare).not.toContain('Seq Scan');
    const common = await planOf(`'roadmap' | 'price'`, 'user-4');
    expect(common).toMatch(/(Index Scan using|Bitmap Index Scan on) chatstate_message_search_(body|user)_idx/);
    expect(common).not.toContain('Seq Scan');
  }, 180_000);

  it('drops English stop words (a query of only stop words finds nothing) and folds case outside ASCII in a C-locale database', async () => {
    const driver = await driverIn(schema('english'));
    await seed(driver, 'e', ['The Café in ÉTÉ', 'what is this']);
    expect(await driver.searchText?.({ text: 'what is the', limit: 5 })).toEqual([]);
    expect(places((await driver.searchText?.({ text: 'café été', limit: 5 })) ?? [])).toEqual(['e#1']);
  });

  it('refuses value namespaces, keys and data Postgres cannot store exactly, writing nothing', async () => {
    const driver = await driverIn(schema('nul'));
    for (const entries of [
      [
        { key: 'fine', data: '1' },
        { key: 'nul\0', data: '2' },
      ],
      [{ key: 'fine', data: 'a\0b' }],
    ]) {
      const error = await driver.writeValues('app', entries).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ChatstateError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT');
    }
    await expect(driver.writeValues('user:\0', [{ key: 'k', data: '1' }])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await driver.readValues('app')).toEqual([]);
    expect(await driver.readValues('app', ['nul\0'])).toEqual([]);
    expect(await driver.readValues('user:\0')).toEqual([]);
  });

  it('concurrent value writers touching the same keys in opposite orders all succeed (rows are locked in one order)', async () => {
    const driver = await driverIn(schema('lock-order'));
    const keys = Array.from({ length: 30 }, (_, index) => `k${String(index).padStart(2, '0')}`);
    await Promise.all(
      Array.from({ length: 12 }, (_, writer) => {
        const order = writer % 2 === 0 ? keys : [...keys].reverse();
        return driver.writeValues(
          'app',
          order.map((key) => ({ key, data: String(writer) })),
        );
      }),
    );
    const values = await driver.readValues('app');
    expect(values.map((value) => value.key)).toEqual(keys);
    // One writer's commit is the last for every key: each wrote all keys in one transaction.
    expect(new Set(values.map((value) => value.data)).size).toBe(1);
  });

  it('the longest table prefix keeps every index name whole (no truncation into a collision)', async () => {
    const name = schema('long-prefix');
    const prefix = 'p'.repeat(32);
    const driver = await driverIn(name, prefix);
    await seed(driver, 's', ['a long prefix works']);
    expect(places((await driver.searchText?.({ text: 'prefix', limit: 5 })) ?? [])).toEqual(['s#1']);
    const indexes = await adminQuery(
      server().url,
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname',
      [name],
    );
    expect(indexes.rows.map((row: { indexname: string }) => row.indexname)).toEqual(
      [
        'message_search_body_idx',
        'message_search_pkey',
        'message_search_user_idx',
        'messages_id_key',
        'messages_pkey',
        'schema_version_pkey',
        'sessions_agent_updated_idx',
        'sessions_expires_idx',
        'sessions_pkey',
        'sessions_updated_idx',
        'sessions_user_updated_idx',
        'values_pkey',
      ].map((index) => prefix + index),
    );
  });

  it('through the store: appended text is searchable; an encrypted store offers no search and indexes nothing', async () => {
    const plain = await storeIn(schema('store'));
    await plain.save(Session.create({ id: 'plain', userId: 'alice' }));
    await plain.append('plain', [Message.user('where is the launch checklist?', { id: 'q1' })]);
    expect(
      (await plain.searchText?.({ text: 'checklists', userId: 'alice', limit: 3 }))?.map((hit) => [
        hit.sessionId,
        hit.messageId,
        hit.score,
      ]),
    ).toEqual([['plain', 'q1', 1]]);
    const sealedSchema = schema('sealed');
    const sealed = await storeIn(sealedSchema, { encryption: Buffer.alloc(32, 7) });
    expect(sealed.searchText).toBeUndefined();
    await sealed.save(
      Session.create({ id: 'secret', userId: 'alice' }).append(Message.user('the launch checklist', { id: 's1' })),
    );
    await sealed.append('secret', [Message.user('another checklist', { id: 's2' })]);
    expect(
      (await adminQuery(server().url, `SELECT count(*)::int AS n FROM "${sealedSchema}"."chatstate_message_search"`))
        .rows,
    ).toEqual([{ n: 0 }]);
  });
});
