/**
 * The Redis store on a Redis Cluster through a real outage: one of the three masters SIGKILLed
 * (`appendonly yes`, `appendfsync always`, so what it acknowledged survives) and started again on
 * its port and directory. While it is down, every operation on its slots — and `list` and
 * `purgeExpired`, which visit every bucket — fails with a typed, retryable `UNAVAILABLE` in bounded
 * time, the other masters' sessions keep working, and neither this process nor a child appending
 * through the outage crashes; once it is back, the same store serves everything again and every
 * acknowledged write is there.
 */
import { randomBytes } from 'node:crypto';
import { Redis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { redisStore } from '../../src/stores/redis/index.js';
import {
  clusterAdmin,
  deleteClusterKeysUnder,
  masterPortOf,
  redisClusterTestServer,
} from '../support/redis-cluster.js';
import {
  AckLedger,
  LEDGER,
  STALL_MS,
  TIMEOUTS,
  attemptAll,
  eventually,
  expectUnavailable,
  runOutageChild,
  type Operation,
} from '../support/store-outage.js';

const STORE = 'redis';
const server = await redisClusterTestServer({ durable: true });
if (server.url === undefined) console.warn(`[redis-cluster] outages skipped: ${server.skip}`);
const skip =
  server.url === undefined
    ? `skipped: ${server.skip}`
    : server.throwaway
      ? ''
      : 'skipped: CHATSTATE_TEST_REDIS_CLUSTER_URL is set, and an external cluster is not ours to kill';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (text: string, id: string) => Message.user(text, { id });

describe.skipIf(skip !== '')(`redis store on a cluster: a master killed and restarted ${skip}`, () => {
  const url = server.url as string;
  const nodes = server.url === undefined ? [] : server.nodes;
  const prefix = `outage:${randomBytes(6).toString('hex')}:`;
  const storeUrl = `${url}?prefix=${prefix}`;
  let admin: Cluster;
  let store: SessionStore;
  /** The port of the master that serves a session id's bucket. */
  let portOf: (id: string) => number;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    admin = clusterAdmin(url);
    portOf = await masterPortOf(url);
    store = await redisStore(storeUrl, TIMEOUTS);
  });
  afterAll(async () => {
    process.removeListener('unhandledRejection', onUnhandled);
    await store?.close();
    await deleteClusterKeysUnder(admin, prefix).catch(() => undefined);
    await admin?.quit();
    if (server.url !== undefined) await server.stop();
  });

  /** The master of the ledger's bucket is the one the tests kill. */
  const victim = () => {
    const port = portOf(LEDGER);
    const node = nodes.find((candidate) => candidate.port === port);
    if (node === undefined) throw new Error(`no node on ${port}`);
    return node;
  };

  /** `count` session ids whose buckets are on the victim (`on: true`) or on another master. */
  const idsOn = (on: boolean, count: number, stem: string): string[] => {
    const ids: string[] = [];
    for (let index = 0; ids.length < count; index += 1) {
      const id = `${stem}-${index}`;
      if ((portOf(id) === victim().port) === on) ids.push(id);
    }
    return ids;
  };

  it('its sessions are UNAVAILABLE in bounded time, the others work, and after its restart nothing acknowledged is lost', async () => {
    const down = idsOn(true, 6, 'down');
    const up = idsOn(false, 6, 'up');
    for (const id of [...down, ...up])
      await store.save(Session.create({ id, userId: 'u-out', messages: [say(`first of ${id}`, `${id}-0`)] }));
    await store.save(Session.create({ id: LEDGER, userId: 'u-out' }));
    await store.values.set({ scope: 'session', sessionId: down[0] as string }, { kept: 'yes' });
    const ledger = new AckLedger(store, 'cl', STORE);
    try {
      await sleep(300);
      await victim().kill();

      // Right away, and again once the other masters have marked it failed (node timeout 1 s).
      for (const round of ['at-once', 'marked-failed']) {
        if (round === 'marked-failed') await sleep(1500);
        const target = down[1] as string;
        const failing: Operation[] = [
          { name: 'load', run: () => store.load(target) },
          { name: 'get', run: () => store.get(target) },
          { name: 'readMessages', run: () => store.readMessages(target, { limit: 1 }) },
          { name: 'summary', run: () => store.summary(target) },
          { name: 'append', run: () => store.append(target, [say('lost?', `${target}-${round}`)]) },
          { name: 'save', run: () => store.save(Session.create({ id: down[2] as string })) },
          { name: 'delete', run: () => store.delete(down[3] as string) },
          {
            name: 'values.get',
            run: () => store.values.get({ scope: 'session', sessionId: down[0] as string }, 'kept'),
          },
          { name: 'list', run: () => store.list({ userId: 'u-out' }) },
          { name: 'purgeExpired', run: () => store.purgeExpired() },
        ];
        for (const attempt of await attemptAll(failing)) {
          expect(attempt.error, `${attempt.name} (${round}) succeeded with its master down`).toBeDefined();
          const details = expectUnavailable(attempt.error, STORE, `${attempt.name} (${round})`);
          if (['load', 'get', 'readMessages', 'summary', 'values.get', 'list'].includes(attempt.name))
            expect(details.outcome, attempt.name).toBe('not-applied');
          expect(attempt.ms, `${attempt.name} (${round}) took ${Math.round(attempt.ms)} ms`).toBeLessThan(STALL_MS);
        }
        // The other masters' sessions are served as if nothing happened.
        for (const id of up) {
          const appended = await store.append(id, [say(`during ${round}`, `${id}-${round}`)]);
          expect(appended.appended).toHaveLength(1);
          expect((await store.load(id)).messages.map((message) => message.id)).toContain(`${id}-${round}`);
        }
      }

      await victim().restart();
      if (server.url !== undefined) await server.healthy();
      // The same store serves everything again, once the restarted master has loaded its data.
      const rows = await eventually(() => store.list({ userId: 'u-out', limit: 100 }));
      expect(rows.map((row) => row.id).sort()).toEqual([...down, ...up, LEDGER].sort());
      for (const id of down) expect((await eventually(() => store.load(id))).messages[0]?.id).toBe(`${id}-0`);
      expect(await store.values.get({ scope: 'session', sessionId: down[0] as string }, 'kept')).toBe('yes');
      const after = await eventually(() => store.append(down[1] as string, [say('after', 'after-restart')]));
      expect(after.appended).toHaveLength(1);
    } finally {
      await ledger.stop();
      // A failed assertion must not leave the master down for the next test.
      if (!victim().running()) await victim().restart();
    }
    // The ledger lives on the killed master: it failed, typed, during the outage, and every append it was told succeeded is stored once.
    expect(ledger.failures.length).toBeGreaterThan(0);
    ledger.expectOnlyUnavailable();
    expect(ledger.acked.length).toBeGreaterThan(5);
    await ledger.expectAllStored();
    expect(unhandled).toEqual([]);
  }, 120_000);

  it('a master killed amid creates and deletes leaves every bucket with exactly its stored sessions indexed: none lost, none made up', async () => {
    // The invariant: a session's head and every index entry that lists it are in one slot and
    // change in one script, which the append-only file keeps whole; so in every bucket, at every
    // moment, the ids the indexes hold are the ids that have a head.
    const attempted: string[] = [];
    const created: string[] = [];
    const deleted: string[] = [];
    // Deletes that failed: the session is there whole or gone, either is right.
    const undecided = new Set<string>();
    // Created and not yet picked for deletion.
    const alive: string[] = [];
    let running = true;
    const churn = (async () => {
      for (let n = 0; running && n < 2000; n += 1) {
        const id = `crash-${n}`;
        attempted.push(id);
        try {
          await store.save(Session.create({ id, userId: 'u-crash', messages: [say(id, `${id}-0`)] }));
          created.push(id);
          alive.push(id);
        } catch (error) {
          expectUnavailable(error, STORE, `churn ${id}`);
        }
        const doomed = n % 3 === 2 ? alive.shift() : undefined;
        if (doomed !== undefined)
          try {
            if (await store.delete(doomed)) deleted.push(doomed);
          } catch (error) {
            expectUnavailable(error, STORE, `churn delete ${doomed}`);
            undecided.add(doomed);
          }
        await sleep(5);
      }
    })();
    try {
      // Killed once the victim holds acknowledged writes (however busy the machine), bounded in time.
      const onVictimNow = () => created.filter((id) => portOf(id) === victim().port).length;
      for (let waited = 0; onVictimNow() < 3 && waited < 30_000; waited += 20) await sleep(20);
      await victim().kill();
      await sleep(800);
    } finally {
      running = false;
      await churn;
      if (!victim().running()) await victim().restart();
    }
    if (server.url !== undefined) await server.healthy();
    const listed = new Set(
      (await eventually(() => store.list({ userId: 'u-crash', limit: 1000 }))).map((row) => row.id),
    );
    // Every acknowledged create is listed (unless deleted since), every acknowledged delete is not.
    for (const id of created)
      if (!deleted.includes(id) && !undecided.has(id)) expect(listed.has(id), `created ${id}`).toBe(true);
    for (const id of deleted) expect(listed.has(id), `deleted ${id}`).toBe(false);
    // A write that failed is there whole or not at all: listed exactly when it can be read.
    for (const id of attempted) expect((await store.get(id)) !== undefined, id).toBe(listed.has(id));
    // And in the keys themselves: per bucket, the indexes hold the ids that have heads.
    let heads = 0;
    // A connection to each node of its own: the admin client dropped the killed one.
    for (const { port } of nodes) {
      const node = new Redis(port, '127.0.0.1');
      try {
        const byBucket = new Map<string, Set<string>>();
        let cursor = '0';
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}{*}:s:crash-*:h`, 'COUNT', 1000);
          for (const key of keys) {
            const [, bucket, id] = /^(.*\{\d+\}:)s:(.*):h$/.exec(key) ?? [];
            if (bucket === undefined || id === undefined) throw new Error(`unexpected key ${key}`);
            byBucket.set(bucket, (byBucket.get(bucket) ?? new Set()).add(id));
          }
          cursor = next;
        } while (cursor !== '0');
        for (const [bucket, ids] of byBucket) {
          heads += ids.size;
          const indexed = (await node.zrange(`${bucket}u:u-crash`, '0', '-1')).filter((id) => id.startsWith('crash-'));
          const all = (await node.zrange(`${bucket}x:all`, '0', '-1')).filter((id) => id.startsWith('crash-'));
          expect(indexed.sort(), bucket).toEqual([...ids].sort());
          expect(all.sort(), bucket).toEqual([...ids].sort());
        }
      } finally {
        await node.quit();
      }
    }
    expect(heads).toBe(listed.size);
    const onVictim = created.filter((id) => portOf(id) === victim().port);
    expect(
      onVictim.length,
      `acknowledged writes on the killed master, of ${attempted.length} attempted`,
    ).toBeGreaterThan(0);
    expect(unhandled).toEqual([]);
  }, 120_000);

  it('a stalled master (SIGSTOP) times out its own sessions alone: the other masters are served throughout', async () => {
    const stalled = idsOn(true, 1, 'stall-down')[0] as string;
    const steady = idsOn(false, 2, 'stall-up');
    for (const id of [stalled, ...steady])
      await store.save(Session.create({ id, messages: [say('before', `${id}-0`)] }));
    victim().pause();
    try {
      // Past two command timeouts: each timeout replaces the stalled node's connection, never the others'.
      const started = Date.now();
      const stalledCalls: Array<Promise<unknown>> = [];
      let round = 0;
      while (Date.now() - started < 2.5 * TIMEOUTS.commandTimeoutMs) {
        if (round % 5 === 0)
          stalledCalls.push(store.append(stalled, [say('stalled', `stall-${round}`)]).catch((error: unknown) => error));
        for (const id of steady) {
          const appended = await store.append(id, [say(`round ${round}`, `${id}-r${round}`)]);
          expect(appended.appended, `${id} round ${round}`).toHaveLength(1);
        }
        round += 1;
        await sleep(50);
      }
      expect(round).toBeGreaterThan(10);
      for (const error of await Promise.all(stalledCalls)) {
        const details = expectUnavailable(error, STORE, 'an append to the stalled master');
        expect(['TIMEOUT', 'CONNECTION']).toContain(details.reason);
      }
    } finally {
      victim().resume();
    }
    if (server.url !== undefined) await server.healthy();
    const back = await eventually(() => store.append(stalled, [say('resumed', 'stall-resumed')]));
    expect(back.appended).toHaveLength(1);
    // Each timed-out append is stored once or not at all (its outcome was unknown), and nothing else moved.
    const ids = (await store.load(stalled)).messages.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe(`${stalled}-0`);
    expect(ids.at(-1)).toBe('stall-resumed');
  }, 60_000);

  it('a store opened while a master is down serves the other masters, and the down one once it is back', async () => {
    const down = idsOn(true, 1, 'open-down')[0] as string;
    const up = idsOn(false, 1, 'open-up')[0] as string;
    for (const id of [down, up]) await store.save(Session.create({ id, messages: [say('before', `${id}-0`)] }));
    await victim().kill();
    let opened: SessionStore | undefined;
    try {
      opened = await redisStore(storeUrl, TIMEOUTS);
      expect((await opened.load(up)).messages.map((message) => message.id)).toEqual([`${up}-0`]);
      expectUnavailable(await opened.load(down).catch((error: unknown) => error), STORE, 'load on the down master');
    } finally {
      await victim().restart();
    }
    if (server.url !== undefined) await server.healthy();
    expect((await eventually(() => opened.load(down))).messages.map((message) => message.id)).toEqual([`${down}-0`]);
    await opened.close();
  }, 60_000);

  it('a process appending to a session on a master that is killed gets typed errors, exits normally, and lost nothing acknowledged', async () => {
    const session = idsOn(true, 1, 'child')[0] as string;
    let outage: Promise<void> | undefined;
    const child = await runOutageChild(['append', storeUrl, session, '15', '40000'], (_line, { acked }) => {
      if (outage === undefined && acked.length >= 20) {
        outage = (async () => {
          await victim().kill();
          await sleep(1500);
          await victim().restart();
        })();
      }
    });
    await outage;
    expect(child.signal, child.stderr).toBeNull();
    expect(child.code, child.stderr).toBe(0);
    expect(child.lines).toContain('DONE');
    expect(
      child.lines.filter((line) => line.startsWith('UNTYPED')),
      child.stderr,
    ).toEqual([]);
    expect(child.errors.length).toBeGreaterThan(0);
    for (const error of child.errors) expect(error).toMatch(/^UNAVAILABLE true /);
    if (server.url !== undefined) await server.healthy();
    const stored = (await eventually(() => store.load(session))).messages.map((message) => message.id);
    for (const id of child.acked)
      expect(
        stored.filter((candidate) => candidate === id),
        id,
      ).toHaveLength(1);
  }, 120_000);
});
