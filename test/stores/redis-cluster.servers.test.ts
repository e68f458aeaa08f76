/**
 * The conformance suite against a real Redis Cluster of three masters (a throwaway one, or
 * `CHATSTATE_TEST_REDIS_CLUSTER_URL`), cross-process spec included, and what only the cluster
 * layout promises: sessions spread over every master, every key of a script in one slot (which the
 * server itself enforces: the control script below is refused), and a caller's own `Cluster`.
 * Every store gets its own key prefix, whose keys are deleted after its test.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { redisStore, type RedisLike } from '../../src/stores/redis/index.js';
import { CLUSTER_BUCKETS } from '../../src/stores/redis/layout.js';
import { SCRIPTS } from '../../src/stores/redis/scripts.js';
import { runStoreConformance } from '../../src/testing/index.js';
import { keysBackup } from '../support/backups.js';
import { BUILT_IN_STORES } from '../support/built-in-stores.js';
import { keySlot, parseClusterUrl } from '../../src/stores/redis/cluster.js';
import { bucketOf } from '../../src/stores/redis/layout.js';
import {
  clusterAdmin,
  clusterKeyContents,
  deleteClusterKeysUnder,
  redisClusterTestServer,
} from '../support/redis-cluster.js';

const server = await redisClusterTestServer();

/** Every key under `prefix`, by the port of the master that holds it. */
async function keysByMaster(admin: Cluster, prefix: string): Promise<Map<number, string[]>> {
  const found = new Map<number, string[]>();
  for (const node of admin.nodes('master')) {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    found.set(Number(node.options.port), keys);
  }
  return found;
}

if (server.url === undefined) {
  console.warn(`[redis-cluster] conformance skipped: ${server.skip}`);
  describe.skip(`SessionStore conformance: redis-cluster [skipped: ${server.skip}]`, () => {
    it('runs against a real Redis Cluster', () => undefined);
  });
} else {
  const url = server.url;
  let admin: Cluster;
  const prefixes = new WeakMap<SessionStore, string>();
  const urlWith = (prefix: string): string => `${url}?prefix=${encodeURIComponent(prefix)}`;

  beforeAll(async () => {
    admin = clusterAdmin(url);
    await admin.ping();
  });
  afterAll(async () => {
    await admin.quit();
    await server.stop();
  });

  const prefixOf = (store: SessionStore): string => {
    const prefix = prefixes.get(store);
    if (prefix === undefined) throw new Error('not a store this suite created');
    return prefix;
  };

  runStoreConformance({
    name: 'redis-cluster',
    async create(options) {
      const prefix = `conf:${randomBytes(6).toString('hex')}:`;
      const store = await redisStore(urlWith(prefix), options);
      prefixes.set(store, prefix);
      return store;
    },
    async destroy(store) {
      await store.close();
      await deleteClusterKeysUnder(admin, prefixOf(store));
    },
    async reopen(store, options) {
      const second = await redisStore(urlWith(prefixOf(store)), options);
      prefixes.set(second, prefixOf(store));
      return second;
    },
    contents: (store) => clusterKeyContents(admin, prefixOf(store)),
    // The keys copied under another prefix, on the master that holds each (its bucket's tag follows the prefix).
    async backup(store) {
      const copy = `conf:${randomBytes(6).toString('hex')}:`;
      return keysBackup(
        admin.nodes('master'),
        prefixOf(store),
        copy,
        {
          open: async (options) => redisStore(urlWith(copy), options),
          contents: () => clusterKeyContents(admin, copy),
        },
        () => deleteClusterKeysUnder(admin, copy),
      );
    },
    crossProcess: { url: (store) => urlWith(prefixOf(store)), register: BUILT_IN_STORES },
    // PUBLISH reaches every node: a subscriber on any master hears writes to every slot.
    capabilities: { changeFeed: 'all' },
    // What no store writes (a negative version) in the session's head hash, in its bucket, as a hand edit would.
    async damage(store, id) {
      await admin.hset(`${prefixOf(store)}{${bucketOf(id)}}:s:${id}:h`, 'version', '-1');
    },
    extras: (scope) => {
      it('spreads sessions over every master, each session with its index entries and values in one slot', async () => {
        const store = await scope.open();
        const prefix = prefixOf(store);
        const ids = Array.from({ length: 96 }, (_, index) => `spread-${index}`);
        for (const id of ids) {
          await store.save(Session.create({ id, userId: 'u-spread', messages: [Message.user(`hello ${id}`)] }), {
            ttlMs: 3_600_000,
          });
          await store.values.set({ scope: 'session', sessionId: id }, { note: id });
        }
        const byMaster = await keysByMaster(admin, prefix);
        expect(byMaster.size).toBe(3);
        const heads = new Map<number, number>();
        for (const [port, keys] of byMaster) heads.set(port, keys.filter((key) => key.endsWith(':h')).length);
        // Every master holds sessions (the 64 buckets fall 21/22/21 on three equal slot ranges).
        for (const [port, count] of heads) expect(count, `sessions on the master on ${port}`).toBeGreaterThan(10);
        expect([...heads.values()].reduce((sum, count) => sum + count, 0)).toBe(ids.length);
        // Every key of the store carries one of the 64 hash tags, and lies in that tag's slot.
        const tagged = /^conf:[0-9a-f]{12}:\{(\d+)\}:/;
        const slotOfTag = new Map<string, number>();
        for (const keys of byMaster.values()) {
          for (const key of keys) {
            const tag = tagged.exec(key)?.[1];
            expect(tag, key).toBeDefined();
            expect(Number(tag)).toBeLessThan(CLUSTER_BUCKETS);
            const slot = Number(await admin.cluster('KEYSLOT', key));
            // The store's own slot function (it finds the node a stalled command went to) agrees.
            expect(keySlot(key), key).toBe(slot);
            slotOfTag.set(tag as string, slotOfTag.get(tag as string) ?? slot);
            expect(slot, key).toBe(slotOfTag.get(tag as string));
          }
        }
        // A session's head, messages, values and index entries are keys of one bucket.
        for (const id of ids.slice(0, 8)) {
          const own = [...byMaster.values()].flat().filter((key) => key.includes(`:s:${id}:`));
          expect(own.map((key) => key.slice(key.lastIndexOf(':') + 1)).sort()).toEqual(['d', 'h', 'm', 'v']);
          const tags = new Set(own.map((key) => tagged.exec(key)?.[1]));
          expect(tags.size).toBe(1);
          const bucket = `${prefix}{${[...tags][0] as string}}:`;
          expect(await admin.zscore(`${bucket}x:all`, id)).not.toBeNull();
          expect(await admin.zscore(`${bucket}u:u-spread`, id)).not.toBeNull();
          expect(await admin.zscore(`${bucket}x:exp`, id)).not.toBeNull();
          expect(await admin.hget(`${bucket}v:session:${id}`, 'note')).not.toBeNull();
        }
        const listed = await store.list({ userId: 'u-spread', limit: 200 });
        expect(listed.map((row) => row.id).sort()).toEqual([...ids].sort());
      });

      it("the server refuses a script that reaches a second slot, and every script of the store runs on a caller's Cluster", async () => {
        // The control: a script declared on bucket 0 that writes a key of bucket 1 is refused by
        // the cluster itself, so each script the store ran below kept to its declared key's slot.
        const control = await admin
          .eval("redis.call('SET', KEYS[1], 1); return redis.call('SET', ARGV[1], 1)", 1, 'ctl:{0}:a', 'ctl:{1}:b')
          .catch((error: unknown) => error);
        expect(String(control)).toMatch(/same slot|CROSSSLOT|non local key/);
        await admin.del('ctl:{0}:a');

        // A caller's Cluster (isCluster: true) with its own keyPrefix, seen through a recorder of every script call.
        const keyPrefix = `kp${randomBytes(4).toString('hex')}:`;
        const client = clusterAdmin(url, { keyPrefix });
        const called = new Set<string>();
        const names = new Map(Object.values(SCRIPTS).flatMap((script) => [[script.sha, script.name] as const]));
        const sources = new Map(Object.values(SCRIPTS).map((script) => [script.source, script.name] as const));
        const recorder: RedisLike = {
          isCluster: true,
          options: { keyPrefix },
          call: (command, args) => {
            if (command === 'EVALSHA' || command === 'EVAL') {
              // EVAL re-sends a script a node does not hold yet (the first run of a script on a fresh node).
              const script = (command === 'EVALSHA' ? names : sources).get(String(args[0]));
              called.add(script ?? 'unknown');
              // One declared key: the routing key of the script's bucket.
              expect(args[1]).toBe(1);
            }
            return client.call(command, ...args);
          },
        };
        const prefix = 'rec:';
        const store = await redisStore(recorder, { prefix });
        try {
          await store.save(
            Session.create({ id: 'rec-1', userId: 'u', agentId: 'a', messages: [Message.user('one')] }),
            {
              ttlMs: 60_000,
            },
          );
          await store.append('rec-1', [Message.user('two')]);
          await store.readMessages('rec-1', { limit: 1 });
          await store.load('rec-1');
          await store.summary('rec-1');
          await store.list({ userId: 'u' });
          expect((await store.marks?.('u'))?.map((mark) => mark.id)).toEqual(['rec-1']);
          expect((await store.readMessagesAt?.([{ sessionId: 'rec-1', seq: 1 }]))?.map((m) => m?.content)).toEqual([
            'one',
          ]);
          const [last] = await store.readMessages('rec-1', { limit: 1 });
          const { version } = await store.load('rec-1');
          await store.replaceTail?.('rec-1', {
            afterSeq: (last?.seq ?? 1) - 1,
            messages: [Message.user('two, again')],
            expectedVersion: version,
          });
          await store.values.set({ scope: 'user', userId: 'u' }, { color: 'green' });
          expect(await store.values.get({ scope: 'user', userId: 'u' }, 'color')).toBe('green');
          await store.purgeExpired();
          // Forgetting a user runs its own scripts: a session of another user, and an agent's values of them.
          await store.save(
            Session.create({ id: 'rec-2', userId: 'gone', agentId: 'a', messages: [Message.user('x')] }),
          );
          await store.values.set({ scope: 'agent', agentId: 'a', userId: 'gone' }, { mood: 'calm' });
          expect((await store.forgetUser('gone')).removed).toMatchObject({ sessions: 1 });
          expect(await store.delete('rec-1')).toBe(true);
          expect([...called].sort()).toEqual(
            Object.values(SCRIPTS)
              .map((script) => script.name)
              .sort(),
          );
          // Every key went under the client's keyPrefix, then the store's prefix.
          const keys = [...(await keysByMaster(admin, keyPrefix)).values()].flat();
          expect(keys.length).toBeGreaterThan(0);
          for (const key of keys) expect(key.startsWith(`${keyPrefix}${prefix}{`), key).toBe(true);
        } finally {
          await store.close();
          await deleteClusterKeysUnder(admin, keyPrefix);
          await client.quit();
        }
      });

      it('refuses a cluster node opened as one server, the single-server layout on a cluster, and confirm', async () => {
        const seed = parseClusterUrl(url, 'test').nodes[0];
        if (server.throwaway && seed !== undefined) {
          // A plain client on one node would reach only the sessions that hash to that node's slots.
          const error = await redisStore(`redis://${seed.host}:${seed.port}`).catch((caught: unknown) => caught);
          expect(error).toMatchObject({
            code: 'INVALID_ARGUMENT',
            message: expect.stringMatching(/redis\+cluster:\/\//),
          });
        }
        await expect(redisStore(url, { cluster: false })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        await expect(redisStore(url, { confirm: { replicas: 1 } })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/confirm is not supported on Redis Cluster/),
        });
      });

      it('lists many sessions of equal and different times in one order across every master, page by page', async () => {
        const store = await scope.open();
        const at = ['2024-05-01T10:00:00.000Z', '2024-05-01T11:00:00.000Z', '2024-05-01T12:00:00.000Z'];
        const saved: Array<{ id: string; updatedAt: string }> = [];
        for (let index = 0; index < 150; index += 1) {
          const updatedAt = at[index % 3] as string;
          const session = Session.fromJSON({
            ...Session.create({ id: `page-${String(index).padStart(3, '0')}` }).toJSON(),
            createdAt: '2024-01-01T00:00:00.000Z',
            updatedAt,
          });
          await store.save(session, { keepUpdatedAt: true });
          saved.push({ id: session.id, updatedAt });
        }
        const order = saved
          .sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? -1 : 1) : a.updatedAt < b.updatedAt ? 1 : -1))
          .map((row) => row.id);
        expect((await store.list({ limit: 200 })).map((row) => row.id)).toEqual(order);
        for (const limit of [1, 7, 64]) {
          const walked: string[] = [];
          let after: { updatedAt: string; id: string } | undefined;
          for (;;) {
            const page = await store.list({ limit, ...(after === undefined ? {} : { after }) });
            walked.push(...page.map((row) => row.id));
            const last = page.at(-1);
            if (page.length < limit || last === undefined) break;
            after = last;
          }
          expect(walked).toEqual(order);
        }
        expect((await store.list({ offset: 100, limit: 30 })).map((row) => row.id)).toEqual(order.slice(100, 130));
      });
    },
  });
}
