/**
 * forgetUser while the server dies, on Postgres and Redis (throwaway servers, loopback): the
 * server is killed while a forget of a user with many sessions runs; the call must fail with a
 * typed, retryable `UNAVAILABLE` soon after the kill (never crash the process or hang), and once
 * the server is back the same store's re-run removes what was left — counting it — so that no
 * row or key of the server holds the user's marker, and another user's sessions (`getJson`
 * bytes) and values are unchanged.
 *
 * Where the kill lands is made certain rather than hoped for:
 * - Postgres (one transaction): another connection holds a row lock the forget needs, so it waits
 *   at its first statement (a session row) or its last (a user value, every other delete done
 *   but not committed); the server is killed while `pg_stat_activity` shows it waiting. A third
 *   round kills at a seeded random moment.
 * - Redis (batches of sessions, one script each): once the user's index shrank (a batch is
 *   done), `CLIENT PAUSE WRITE` holds the next batch and the server is killed; a second round
 *   kills at a seeded random moment.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { ForgetCounts, ForgetReceipt, SessionStore, ValueOwner } from '../../src/store/session-store-types.js';
import { NO_COUNTS } from '../../src/store/forget.js';
import { forgetTarget } from '../../src/store/values.js';
import { postgresStore } from '../../src/stores/postgres/index.js';
import { redisStore } from '../../src/stores/redis/index.js';
import { adminQuery, describeWithPostgres, freshSchema } from '../support/postgres-server.js';
import { redisTestServer } from '../support/redis-server.js';
import { seededRandom } from '../support/seeded-random.js';
import { FAST_MS, eventually, expectUnavailable, until } from '../support/store-outage.js';

const SEED = 20_261_130;
/** A long forget would otherwise fail TIMEOUT while it waits for the lock: the kill must be what ends it. */
const OPTIONS = { connectTimeoutMs: 1000, commandTimeoutMs: 10_000 } as const;
const ZEROS: ForgetCounts = { ...NO_COUNTS, cached: 0, keys: 0 };
const report: string[] = [];

afterAll(() => {
  for (const line of report) console.info(line);
});

/** A marker no other data holds: lowercase letters, so a full-text index keeps it as one term. */
function marker(): string {
  return `zq${randomBytes(8)
    .toString('hex')
    .replace(/[0-9]/g, (digit) => 'abcdefghij'[Number(digit)] as string)}`;
}

/** `count` sessions of `user` (four messages each, one appended), values in every scope. */
async function plant(store: SessionStore, user: string, mark: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${mark}-${index}`);
  for (let at = 0; at < ids.length; at += 25) {
    await Promise.all(
      ids.slice(at, at + 25).map(async (id) => {
        await store.save(
          Session.create({
            id,
            userId: user,
            agentId: 'helper',
            messages: [
              Message.user(`my secret is ${mark} alpha`),
              Message.assistant(`noted ${mark}`),
              Message.user(`and ${mark} again`),
            ],
          }),
        );
        await store.append(id, [Message.assistant(`still ${mark}`)]);
        await store.values.set({ scope: 'session', sessionId: id }, { 'embed/default/3/0': `${mark} vector` });
      }),
    );
  }
  await store.values.set({ scope: 'user', userId: user }, { likes: `${mark} tea` });
  await store.values.set({ scope: 'agent', agentId: 'helper', userId: user }, { note: `${mark} note` });
  await store.values.set({ scope: 'agent', agentId: 'other-agent', userId: user }, { note: `${mark} other` });
  return ids;
}

/** What the kept user has: the bytes of each session, their rows, and every value of theirs. */
async function snapshotOf(store: SessionStore, user: string, ids: readonly string[]): Promise<unknown> {
  const owners: ValueOwner[] = [
    { scope: 'user', userId: user },
    { scope: 'agent', agentId: 'helper', userId: user },
    ...ids.map((sessionId) => ({ scope: 'session', sessionId }) as const),
  ];
  return {
    sessions: await Promise.all(ids.map((id) => store.getJson(id))),
    rows: await store.list({ userId: user, limit: 1000 }),
    values: await Promise.all(owners.map((owner) => store.values.getAll(owner))),
  };
}

/** How a forget cut by a kill ended. */
interface Cut {
  readonly error?: unknown;
  readonly receipt?: ForgetReceipt;
  /** From the kill to the call's end. */
  readonly afterKillMs: number;
}

/** Starts the forget, runs `kill` when `ready()` says so, and returns how the forget ended. */
async function forgetThroughKill(
  store: SessionStore,
  user: string,
  ready: (forget: Promise<unknown>) => Promise<void>,
  kill: () => Promise<void>,
): Promise<Cut> {
  let ended = 0;
  const forget = store.forgetUser(user).then(
    (receipt) => ((ended = performance.now()), { receipt }),
    (error: unknown) => ((ended = performance.now()), { error }),
  );
  await ready(forget);
  const killed = performance.now();
  await kill();
  const result = await forget;
  return { ...result, afterKillMs: Math.max(0, ended - killed) };
}

/** A run's checks after the restart: the re-run counts `left` sessions, a third counts zeros, the other user is as they were. */
async function finishAndCheck(
  store: SessionStore,
  user: string,
  left: number,
  kept: { user: string; ids: readonly string[]; before: unknown },
  label: string,
): Promise<void> {
  const receipt = await eventually(() => store.forgetUser(user));
  expect(receipt.removed.sessions, `${label}: sessions the re-run removed`).toBe(left);
  expect((await store.forgetUser(user)).removed, `${label}: a third run`).toEqual(ZEROS);
  expect(await store.list({ userId: user, limit: 1000 }), label).toEqual([]);
  expect(await store.values.getAll({ scope: 'user', userId: user }), label).toEqual({});
  expect(await snapshotOf(store, kept.user, kept.ids), `${label}: the other user`).toEqual(kept.before);
}

describeWithPostgres('forgetUser on postgres: the server killed mid-way', (server) => {
  const schema = freshSchema('forget_outage');
  const SESSIONS = 200;
  let store: SessionStore;
  const kept = { user: '', ids: [] as string[], before: undefined as unknown };
  const url = (): string => `${server().url}?schema=${schema}`;
  const quoted = (name: string): string => `"${schema}"."${name}"`;
  const table = (name: string): string => quoted(`chatstate_${name}`);
  // How long a forget of SESSIONS sessions takes here: the random round's kill lands within it.
  let forgetMs = 0;

  beforeAll(async () => {
    store = await postgresStore(url(), { schema, ...OPTIONS });
    kept.user = `user-${marker()}`;
    kept.ids = await plant(store, kept.user, marker(), 3);
    kept.before = await snapshotOf(store, kept.user, kept.ids);
    const mark = marker();
    await plant(store, `user-${mark}`, mark, SESSIONS);
    const started = performance.now();
    await store.forgetUser(`user-${mark}`);
    forgetMs = performance.now() - started;
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await adminQuery(server().url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  });

  /** Rows of any table of the schema whose text holds `mark`. */
  const rowsHolding = async (mark: string): Promise<Record<string, number>> => {
    const tables = await adminQuery(
      server().url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
      [schema],
    );
    const found: Record<string, number> = {};
    for (const row of tables.rows as Array<{ table_name: string }>) {
      // The row as text: every column, the full-text vectors' lexemes among them (a stem keeps the marker's start).
      const counted = await adminQuery(
        server().url,
        `SELECT count(*)::int AS n FROM ${quoted(row.table_name)} t WHERE t::text LIKE $1`,
        [`%${mark.slice(0, 14)}%`],
      );
      const n = (counted.rows[0] as { n: number }).n;
      if (n > 0) found[row.table_name] = n;
    }
    return found;
  };

  /** Another connection holding, in an open transaction, the row lock of `sql`'s row. */
  const holdLock = async (sql: string, values: unknown[]): Promise<pg.Client> => {
    const holder = new pg.Client({ connectionString: server().url });
    // The kill ends this connection too: its error is expected.
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    expect((await holder.query(sql, values)).rowCount).toBe(1);
    return holder;
  };

  // Backends of the database waiting for a lock, as last polled: the forget, held by `holdLock`.
  let lockWaits = 0;

  const rounds: Array<{ name: string; lock?: (user: string, mark: string) => [string, unknown[]] }> = [
    {
      name: 'waiting for the row lock of one of its sessions (nothing deleted yet)',
      lock: (_user, mark) => [`SELECT 1 FROM ${table('sessions')} WHERE id = $1 FOR UPDATE`, [`${mark}-7`]],
    },
    {
      name: "waiting at its last delete, the user's values (every other delete done, not committed)",
      lock: (user) => [
        `SELECT 1 FROM ${table('values')} WHERE ns = $1 AND key = 'likes' FOR UPDATE`,
        [forgetTarget(user).userNamespace],
      ],
    },
    { name: 'at a seeded random moment' },
  ];

  const random = seededRandom(SEED);
  for (const round of rounds) {
    it(`killed ${round.name}: UNAVAILABLE, and after a restart a re-run leaves nothing of the user`, async (context) => {
      const control = server();
      if (control.kill === undefined || control.restart === undefined) {
        context.skip('CHATSTATE_TEST_POSTGRES_URL is set, and an external server is not ours to kill');
        return;
      }
      const started = performance.now();
      const mark = marker();
      const user = `user-${mark}`;
      await plant(store, user, mark, SESSIONS);
      let holder: pg.Client | undefined;
      let watcher: pg.Client | undefined;
      let polling = true;
      let poll: Promise<void> = Promise.resolve();
      try {
        if (round.lock !== undefined) {
          // The lock is taken before the forget starts: the forget then certainly waits for it.
          const [sql, values] = round.lock(user, mark);
          holder = await holdLock(sql, values);
          watcher = new pg.Client({ connectionString: control.url });
          watcher.on('error', () => undefined);
          await watcher.connect();
        }
        const cut = await forgetThroughKill(
          store,
          user,
          async () => {
            if (watcher === undefined) {
              await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * forgetMs)));
              return;
            }
            lockWaits = 0;
            const watching = watcher;
            poll = (async () => {
              while (polling && lockWaits === 0) {
                const waits = await watching.query(
                  `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
                );
                lockWaits = (waits.rows[0] as { n: number }).n;
                if (lockWaits === 0) await new Promise((resolve) => setTimeout(resolve, 5));
              }
            })().catch(() => undefined);
            await until(() => lockWaits > 0, 10_000);
          },
          () => (control.kill as () => Promise<void>)(),
        );
        if (round.lock !== undefined || cut.error !== undefined) {
          // Held by the lock, the forget was certainly in flight: it must fail, typed, soon after the kill.
          expectUnavailable(cut.error, 'postgres', round.name);
          expect(cut.afterKillMs, 'from the kill to the failure').toBeLessThan(FAST_MS);
        }
        polling = false;
        await control.restart();
        await poll;
        // One transaction: a forget cut short removed nothing, one that finished removed everything.
        const left = (await store.list({ userId: user, limit: 1000 })).length;
        // (A kill between COMMIT and its reply fails the call with the rows gone: outcome unknown.)
        expect([0, SESSIONS]).toContain(left);
        if (cut.error === undefined || round.lock !== undefined)
          expect(left).toBe(cut.error === undefined ? 0 : SESSIONS);
        await finishAndCheck(store, user, left, kept, round.name);
        expect(await rowsHolding(mark), 'rows that still hold the user').toEqual({});
        report.push(
          `forgetUser outage (postgres, ${round.name}; a forget takes ${forgetMs.toFixed(0)} ms): ${cut.error === undefined ? 'finished before the kill' : `UNAVAILABLE ${cut.afterKillMs.toFixed(0)} ms after the kill`}, ${left} sessions left, ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
      } finally {
        polling = false;
        await holder?.end().catch(() => undefined);
        await watcher?.end().catch(() => undefined);
      }
    }, 120_000);
  }
});

const redisServer = await redisTestServer({ durable: true });
if (redisServer.url === undefined) console.warn(`[redis] forget outages skipped: ${redisServer.skip}`);
const redisSkip = redisServer.url === undefined ? ` (skipped: ${redisServer.skip})` : '';

describe.skipIf(redisServer.url === undefined)(`forgetUser on redis: the server killed mid-way${redisSkip}`, () => {
  const url = redisServer.url as string;
  const prefix = `forget:${randomBytes(6).toString('hex')}:`;
  // Three batches of the forget script (200 sessions each).
  const SESSIONS = 600;
  let store: SessionStore;
  let admin: Redis;
  const kept = { user: '', ids: [] as string[], before: undefined as unknown };

  beforeAll(async () => {
    store = await redisStore(url, { prefix, ...OPTIONS });
    kept.user = `user-${marker()}`;
    kept.ids = await plant(store, kept.user, marker(), 3);
    kept.before = await snapshotOf(store, kept.user, kept.ids);
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    if (redisServer.url !== undefined) await redisServer.stop();
  });

  const connectAdmin = async (): Promise<Redis> => {
    admin?.disconnect();
    admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    admin.on('error', () => undefined);
    await admin.connect();
    return admin;
  };

  /** Keys under the prefix whose name or content holds `mark`. */
  const keysHolding = async (mark: string): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const type = await admin.type(key);
        const content =
          type === 'string'
            ? [await admin.get(key)]
            : type === 'hash'
              ? Object.entries(await admin.hgetall(key)).flat()
              : type === 'zset'
                ? await admin.zrange(key, '0', '-1')
                : type === 'set'
                  ? await admin.smembers(key)
                  : type === 'list'
                    ? await admin.lrange(key, 0, -1)
                    : [`(a ${type})`];
        if (key.includes(mark) || content.some((item) => item?.includes(mark) === true)) found.push(key);
      }
    } while (cursor !== '0');
    return found;
  };

  const random = seededRandom(SEED + 1);
  const rounds = [
    { name: 'between two batches (a batch done, the next held by CLIENT PAUSE WRITE)', between: true },
    { name: 'at a seeded random moment', between: false },
  ];
  for (const round of rounds) {
    it(`killed ${round.name}: UNAVAILABLE, and after a restart a re-run leaves nothing of the user`, async (context) => {
      if (redisServer.url === undefined || redisServer.kill === undefined || redisServer.restart === undefined) {
        context.skip('CHATSTATE_TEST_REDIS_URL is set, and an external server is not ours to kill');
        return;
      }
      const { kill, restart } = redisServer;
      const started = performance.now();
      const mark = marker();
      const user = `user-${mark}`;
      await plant(store, user, mark, SESSIONS);
      await connectAdmin();
      const index = `${prefix}u:${user}`;
      expect(await admin.zcard(index)).toBe(SESSIONS);
      const cut = await forgetThroughKill(
        store,
        user,
        async (forget) => {
          if (!round.between) {
            await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 100)));
            return;
          }
          let settled = false;
          void forget.then(() => (settled = true));
          // Polled between the scripts (each runs alone): a count below the start means a batch is done.
          while (!settled && (await admin.zcard(index)) === SESSIONS) await new Promise((r) => setTimeout(r, 1));
          await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
        },
        kill,
      );
      if (round.between || cut.error !== undefined) {
        expectUnavailable(cut.error, 'redis', round.name);
        expect(cut.afterKillMs, 'from the kill to the failure').toBeLessThan(FAST_MS);
      }
      await restart();
      await connectAdmin();
      const left = await admin.zcard(index);
      // A batch was done before the kill. Under load the pause can arrive after the last batch too
      // (the forget then died in its value pass, still mid-way): the report says which it was.
      if (round.between) expect(left, 'a batch was removed before the kill').toBeLessThan(SESSIONS);
      await finishAndCheck(store, user, left, kept, round.name);
      expect(await keysHolding(mark), 'keys that still hold the user').toEqual([]);
      report.push(
        `forgetUser outage (redis, ${round.name}): ${cut.error === undefined ? 'finished before the kill' : `UNAVAILABLE ${cut.afterKillMs.toFixed(0)} ms after the kill`}, ${left} of ${SESSIONS} sessions left, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }, 120_000);
  }
});
