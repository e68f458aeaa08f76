/**
 * What only the Redis store has: its Lua scripts surviving `SCRIPT FLUSH`, native expiry that
 * really frees keys (and the index cleanup after it), a caller's own client, a key layout no id
 * can subvert, damaged hashes reported as `CORRUPT`, write confirmation, and the missing-package
 * error. Runs against a real server (see test/support/redis-server.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError, DataError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { rangeOf } from '../../src/store/driver-helpers.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { openStore } from '../../src/stores/open-store.js';
import { redisDriver, redisStore, type RedisStoreOptions } from '../../src/stores/redis/index.js';
import { SCRIPTS } from '../../src/stores/redis/scripts.js';
import { redisTestServer } from '../support/redis-server.js';

const server = await redisTestServer();
if (server.url === undefined) console.warn(`[redis] skipped: ${server.skip}`);
const title = server.url === undefined ? `redis store specifics (skipped: ${server.skip})` : 'redis store specifics';

describe.skipIf(server.url === undefined)(title, () => {
  const url = server.url as string;
  // Made in beforeAll: the body of a skipped describe still runs, and must not connect anywhere.
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(url);
  });
  const opened: SessionStore[] = [];
  const prefixes: string[] = [];

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const prefix of prefixes.splice(0)) {
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length > 0) await admin.del(...keys);
    }
  });
  afterAll(async () => {
    await admin.quit();
    if ('stop' in server) await server.stop();
  });

  function freshPrefix(): string {
    const prefix = `t${randomBytes(6).toString('hex')}:`;
    prefixes.push(prefix);
    return prefix;
  }

  async function open(options: RedisStoreOptions = {}): Promise<{ store: SessionStore; prefix: string }> {
    const prefix = options.prefix ?? freshPrefix();
    const store = await redisStore(url, { ...options, prefix });
    opened.push(store);
    return { store, prefix };
  }

  const say = (text: string, id?: string): Message => Message.user(text, id === undefined ? {} : { id });

  it('reloads its scripts after SCRIPT FLUSH: EVALSHA fails over to EVAL and the script is cached again', async () => {
    const { store } = await open();
    await store.save(Session.create({ id: 'flushed', messages: [say('one')] }));
    await admin.script('FLUSH');
    expect(await admin.script('EXISTS', SCRIPTS.append.sha)).toEqual([0]);
    const result = await store.append('flushed', [say('two')]);
    expect(result.appended.map((message) => message.seq)).toEqual([2]);
    expect(await admin.script('EXISTS', SCRIPTS.append.sha)).toEqual([1]);
    await admin.script('FLUSH');
    expect((await store.load('flushed')).messages.map((message) => Message.text(message))).toEqual(['one', 'two']);
    expect((await store.list()).map((row) => row.id)).toEqual(['flushed']);
  });

  it('sets native expiry on every key of a session with a TTL, and an append slides it', async () => {
    const { store, prefix } = await open();
    const ttlMs = 3_600_000;
    await store.save(Session.create({ id: 'kept', messages: [say('hello')] }), { ttlMs });
    const keys = ['h', 'm', 'd'].map((kind) => `${prefix}s:kept:${kind}`);
    for (const key of keys) {
      const left = await admin.pttl(key);
      expect(left, key).toBeGreaterThan(0);
      expect(left, key).toBeLessThanOrEqual(ttlMs);
    }
    // Drop the TTL of one key by hand: the next append must set it again (sliding expiry).
    await admin.persist(keys[1] as string);
    await store.append('kept', [say('again')]);
    for (const key of keys) expect(await admin.pttl(key), key).toBeGreaterThan(0);
    // A session without retention has no expiry at all.
    await store.save(Session.create({ id: 'forever', messages: [say('x')] }));
    for (const kind of ['h', 'm', 'd']) expect(await admin.pttl(`${prefix}s:forever:${kind}`)).toBe(-1);
  });

  it('lets Redis remove an expired session by itself; list skips it and purgeExpired clears its index entries', async () => {
    const { store, prefix } = await open();
    await store.save(Session.create({ id: 'short', userId: 'ann', agentId: 'bot', messages: [say('bye')] }), {
      ttlMs: 50,
    });
    await store.save(Session.create({ id: 'stays', userId: 'ann', agentId: 'bot', messages: [say('hi')] }));
    // Waiting for Redis's expiry is waiting for an event, not measuring speed: the bound is a hang guard.
    const deadline = Date.now() + 10_000;
    while ((await admin.exists(`${prefix}s:short:h`, `${prefix}s:short:m`, `${prefix}s:short:d`)) > 0) {
      if (Date.now() > deadline) throw new Error('Redis did not expire the session keys within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await store.get('short')).toBeUndefined();
    expect((await store.list()).map((row) => row.id)).toEqual(['stays']);
    expect((await store.list({ userId: 'ann' })).map((row) => row.id)).toEqual(['stays']);
    expect((await store.list({ agentId: 'bot', limit: 1 })).map((row) => row.id)).toEqual(['stays']);
    // The index entries outlive the keys until purgeExpired, which counts the session as purged.
    expect(await admin.zscore(`${prefix}u:ann`, 'short')).not.toBeNull();
    expect(await store.purgeExpired()).toBe(1);
    for (const key of ['x:all', 'x:exp', 'u:ann', 'a:bot'])
      expect(await admin.zscore(`${prefix}${key}`, 'short'), key).toBeNull();
    expect(await admin.hlen(`${prefix}x:ou`)).toBe(0);
    expect(await admin.hlen(`${prefix}x:oa`)).toBe(0);
    expect(await store.purgeExpired()).toBe(0);
    expect((await store.load('stays')).messages).toHaveLength(1);
  });

  it('purges by the store clock even while Redis still holds the keys', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const { store, prefix } = await open({ now: () => now });
    await store.save(Session.create({ id: 'old', userId: 'u1', messages: [say('a')] }), { ttlMs: 60_000 });
    await store.save(Session.create({ id: 'new', userId: 'u1', messages: [say('b')] }));
    now += 120_000;
    expect(await admin.exists(`${prefix}s:old:h`)).toBe(1);
    expect(await store.get('old')).toBeUndefined();
    expect((await store.list({ userId: 'u1' })).map((row) => row.id)).toEqual(['new']);
    expect(await store.purgeExpired()).toBe(1);
    expect(await admin.exists(`${prefix}s:old:h`, `${prefix}s:old:m`, `${prefix}s:old:d`)).toBe(0);
    expect(await admin.zcard(`${prefix}u:u1`)).toBe(1);
  });

  it('purges one id prefix past more other expired sessions than a script batch examines', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const { store, prefix } = await open({ now: () => now });
    // Others expire first, so every batch of the expiry index starts with entries the prefix skips.
    for (let i = 0; i < 450; i += 1) await store.save(Session.create({ id: `other.${i}` }), { ttlMs: 1_000 });
    for (let i = 0; i < 5; i += 1) await store.save(Session.create({ id: `mine.${i}` }), { ttlMs: 2_000 });
    now += 2_000;
    expect(await store.purgeExpired({ idPrefix: 'mine.' })).toBe(5);
    expect(await admin.zcard(`${prefix}x:exp`)).toBe(450);
    expect(await store.purgeExpired({ idPrefix: 'mine.' })).toBe(0);
    expect(await store.purgeExpired()).toBe(450);
    expect(await admin.zcard(`${prefix}x:exp`)).toBe(0);
  });

  it('works on a client the caller passes, keeps its keyPrefix, and leaves it open on close', async () => {
    const keyPrefix = freshPrefix();
    const client = new Redis(url, { keyPrefix });
    try {
      const store = await redisStore(client, { prefix: 'app:' });
      await store.save(Session.create({ id: 'mine', messages: [say('hi')] }));
      await store.append('mine', [say('there')]);
      expect(await admin.exists(`${keyPrefix}app:s:mine:h`)).toBe(1);
      expect(await admin.exists('app:s:mine:h')).toBe(0);
      expect((await store.load('mine')).messages).toHaveLength(2);
      await store.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });

  it('takes its prefix from ?prefix= in an openStore URL', async () => {
    const prefix = freshPrefix();
    const store = await openStore(`${url}${url.includes('?') ? '&' : '?'}prefix=${encodeURIComponent(prefix)}`);
    opened.push(store);
    await store.save(Session.create({ id: 'by-url', messages: [say('x')] }));
    expect(await admin.exists(`${prefix}s:by-url:h`)).toBe(1);
  });

  it('keeps owners and ids that look like other keys apart', async () => {
    const { store } = await open();
    // Owners are free text: these mimic session, index and bookkeeping keys of the layout.
    await store.save(Session.create({ id: 'foo', userId: 's:foo:h', agentId: 'x:all', messages: [say('one')] }));
    await store.save(Session.create({ id: 'all', userId: 'a:x', agentId: 'u:s:foo:h', messages: [say('two')] }));
    await store.save(Session.create({ id: 'h', messages: [say('three')] }));
    expect((await store.load('foo')).userId).toBe('s:foo:h');
    expect((await store.list({ userId: 's:foo:h' })).map((row) => row.id)).toEqual(['foo']);
    expect((await store.list({ agentId: 'x:all' })).map((row) => row.id)).toEqual(['foo']);
    expect((await store.list({ agentId: 'u:s:foo:h' })).map((row) => row.id)).toEqual(['all']);
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['all', 'foo', 'h']);
    expect(await store.delete('all')).toBe(true);
    expect((await store.load('foo')).messages).toHaveLength(1);
    expect((await store.list()).map((row) => row.id).sort()).toEqual(['foo', 'h']);
  });

  it('with an encryption key, no message text, title, metadata or variable reaches Redis in the clear', async () => {
    const { store, prefix } = await open({ encryption: randomBytes(32) });
    const secret = 'plaintext-marker-7f3a';
    await store.save(
      Session.create({
        id: 'sealed',
        userId: 'owner',
        messages: [say(`first ${secret}`)],
        metadata: { note: secret },
        variables: { v: secret },
      }),
      { ttlMs: 3_600_000 },
    );
    await store.append('sealed', [say(`second ${secret}`), Message.assistant(`reply ${secret}`)]);
    const keys = await admin.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(3);
    let values = 0;
    for (const key of keys) {
      const type = await admin.type(key);
      const content =
        type === 'hash'
          ? Object.entries(await admin.hgetall(key)).flat()
          : type === 'zset'
            ? await admin.zrange(key, '0', '-1')
            : [];
      values += content.length;
      for (const value of content) expect(value, key).not.toContain(secret);
    }
    expect(values).toBeGreaterThan(10);
    expect((await store.load('sealed')).messages.map((message) => Message.text(message))).toEqual([
      `first ${secret}`,
      `second ${secret}`,
      `reply ${secret}`,
    ]);
    expect((await store.list())[0]?.title).toBe(`first ${secret}`);
  });

  it('creates no key for a hostile id', async () => {
    const { store, prefix } = await open();
    // On a throwaway server the whole key space is ours to compare; on a shared one, only our prefix.
    const snapshot = async (): Promise<string[]> =>
      (await admin.keys('throwaway' in server && server.throwaway ? '*' : `${prefix}*`)).sort();
    await store.save(Session.create({ id: 'fine', messages: [say('x')] }));
    const before = await snapshot();
    for (const id of ['../x', 'a:b', 'x:all', 'fine:h', '__proto__', '*', 'a b', 'new\nline', '']) {
      for (const attempt of [
        () => store.load(id),
        () => store.append(id, [say('y')]),
        () => store.delete(id),
        () => store.readMessages(id),
      ]) {
        await expect(attempt(), JSON.stringify(id)).rejects.toMatchObject({ code: 'INVALID_ID' });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('reports garbage in a head hash as CORRUPT naming the store, on every path that reads it', async () => {
    const { store, prefix } = await open();
    await store.save(Session.create({ id: 'bad', messages: [say('x')] }));
    await admin.hset(`${prefix}s:bad:h`, 'version', 'twelve');
    // A listing shows it, damaged and why, rather than failing (the damaged-session spec).
    expect((await store.list()).find((row) => row.id === 'bad')?.damaged).toMatch(/^redis: .*version/);
    for (const attempt of [
      () => store.load('bad'),
      () => store.append('bad', [say('y')]),
      () => store.readMessages('bad'),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(DataError);
      expect((error as DataError).code).toBe('CORRUPT');
      expect((error as DataError).message).toMatch(/^redis: /);
    }
    // A save with an expected version cannot compare against a garbage version either.
    await expect(store.save(Session.create({ id: 'bad' }), { expectedVersion: 1 })).rejects.toMatchObject({
      code: 'CORRUPT',
    });
    await admin.hset(`${prefix}s:bad:h`, 'version', '1', 'id', 'other');
    await expect(store.load('bad')).rejects.toMatchObject({
      code: 'CORRUPT',
      message: expect.stringMatching(/^redis: .*belongs to "other"/),
    });
  });

  it('takes a name option, used by store.name and every error it raises', async () => {
    const { store, prefix } = await open({ name: 'cache' });
    expect(store.name).toBe('cache');
    await expect(store.append('missing', [say('x')])).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'cache: no session "missing"',
    });
    await store.save(Session.create({ id: 'bad', messages: [say('x')] }));
    await admin.hset(`${prefix}s:bad:h`, 'version', 'twelve');
    await expect(store.load('bad')).rejects.toMatchObject({
      code: 'CORRUPT',
      message: expect.stringMatching(/^cache: /),
    });
    await store.close();
    await expect(store.list()).rejects.toMatchObject({ code: 'CLOSED', message: 'cache: the store is closed' });
    await expect(redisStore(url, { name: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(redisStore('redis://127.0.0.1:1', { name: 'cache', confirm: { timeoutMs: 0 } })).rejects.toMatchObject(
      { message: expect.stringMatching(/^cache: /) },
    );
    await expect(redisStore('redis://127.0.0.1:1', { name: 'cache', connectTimeoutMs: 500 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      details: { store: 'cache' },
    });
  });

  it('reports a message without its body as CORRUPT', async () => {
    const { store, prefix } = await open();
    const saved = await store.save(Session.create({ id: 'holes', messages: [say('a'), say('b')] }));
    await admin.hdel(`${prefix}s:holes:d`, (saved.messages[1] as Message).id);
    await expect(store.load('holes')).rejects.toMatchObject({
      code: 'CORRUPT',
      message: expect.stringMatching(/^redis: .*has no body/),
    });
  });

  it('stores and reads sessions larger than one script batch, and reads any seq window of them', async () => {
    const { store } = await open();
    const messages = Array.from({ length: 1203 }, (_, index) => say(`m${index}`, `msg-${index}`));
    await store.save(Session.create({ id: 'big', messages }));
    const loaded = await store.load('big');
    expect(loaded.messages.map((message) => message.id)).toEqual(messages.map((message) => message.id));
    expect(loaded.messages.map((message) => message.seq)).toEqual(messages.map((_, index) => index + 1));
    const records = loaded.messages.map((message) => ({ seq: message.seq as number, id: message.id, data: '' }));
    for (const range of [
      { limit: 200 },
      { afterSeq: 1000 },
      { beforeSeq: 600, limit: 501 },
      { afterSeq: 10, beforeSeq: 12 },
      { afterSeq: 1203 },
      { beforeSeq: 1, limit: 5 },
    ]) {
      const read = await store.readMessages('big', range);
      expect(
        read.map((message) => message.seq),
        JSON.stringify(range),
      ).toEqual(rangeOf(records, range).map((record) => record.seq));
    }
    const result = await store.append('big', [say('next'), say('m0', 'msg-0')]);
    expect(result.appended.map((message) => message.seq)).toEqual([1204]);
    expect(result.duplicates).toEqual(['msg-0']);
  });

  it('confirms writes with WAIT when asked, and rejects (the write applied) when replicas do not answer', async () => {
    const { store } = await open({ confirm: { replicas: 1, timeoutMs: 20 } });
    const error = await store
      .save(Session.create({ id: 'unconfirmed', messages: [say('x')] }))
      .catch((caught: unknown) => caught);
    expect(ChatstateError.isInstance(error)).toBe(true);
    expect((error as ChatstateError).message).toMatch(
      /^redis: the write to session "unconfirmed" was applied but not confirmed/,
    );
    expect((await store.load('unconfirmed')).messages).toHaveLength(1);
    // With no replicas asked for, a confirmation is immediate.
    const { store: plain } = await open({ confirm: { replicas: 0 } });
    await plain.save(Session.create({ id: 'plain' }));
    // fsync confirmation (WAITAOF) works on Redis >= 7.2 with appendonly yes, and is refused at open elsewhere.
    const [major = 0, minor = 0] = (/redis_version:(\d+)\.(\d+)/.exec(await admin.info('server')) ?? [])
      .slice(1)
      .map(Number);
    const appendOnly = ((await admin.config('GET', 'appendonly')) as string[])[1] === 'yes';
    if (appendOnly && (major > 7 || (major === 7 && minor >= 2))) {
      const { store: fsynced } = await open({ confirm: { aof: true } });
      await fsynced.save(Session.create({ id: 'fsynced', messages: [say('x')] }));
    } else {
      await expect(redisDriver(url, { prefix: freshPrefix(), confirm: { aof: true } })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/^redis: confirm.aof needs Redis 7.2 or later with appendonly yes/),
      });
    }
    await expect(redisDriver(url, { confirm: { timeoutMs: 0 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(redisDriver(url, { confirm: { replicas: -1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('keeps the key layout of every earlier version on one server, so stored data needs no migration', async () => {
    const { store, prefix } = await open();
    await store.save(Session.create({ id: 'kept', userId: 'u1', agentId: 'a1', messages: [say('hello')] }), {
      ttlMs: 3_600_000,
    });
    await store.values.set({ scope: 'user', userId: 'u1' }, { color: 'blue' });
    await store.values.set({ scope: 'session', sessionId: 'kept' }, { note: 'n' });
    await store.values.set({ scope: 'app' }, { mode: 'm' });
    const keys = (await admin.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
    expect(keys).toEqual(
      [
        's:kept:h',
        's:kept:m',
        's:kept:d',
        's:kept:v',
        'x:all',
        'x:exp',
        'x:ou',
        'x:oa',
        'u:u1',
        'a:a1',
        'v:user:u1',
        'v:session:kept',
        'v:app',
      ].sort(),
    );
    // The Redis Cluster layout, asked for on one server, is another set of keys (hash-tagged buckets).
    const clustered = await open({ cluster: true });
    await clustered.store.save(Session.create({ id: 'kept', messages: [say('hello')] }));
    const tagged = (await admin.keys(`${clustered.prefix}*`)).map((key) => key.slice(clustered.prefix.length));
    expect(tagged.sort()).toEqual(['s:kept:d', 's:kept:h', 's:kept:m', 'x:all'].map((key) => `{25}:${key}`));
  });

  it('rejects bad prefixes, clients and URLs without echoing credentials', async () => {
    await expect(redisDriver(url, { prefix: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(redisDriver({} as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const error = await redisDriver('redis://user:s3cret@[bad').catch((caught: unknown) => caught);
    expect((error as ChatstateError).code).toBe('INVALID_ARGUMENT');
    expect((error as ChatstateError).message).not.toContain('s3cret');
  });

  it('names the package to install when ioredis cannot be found', () => {
    // A child whose module resolution has no ioredis: a real missing package, not a mock.
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier === 'ioredis') { const error = new Error('Cannot find package ioredis'); error.code = 'ERR_MODULE_NOT_FOUND'; throw error; }
      return next(specifier, context);
    }`;
    const program = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
      const { openStore } = await import(${JSON.stringify(new URL('../../src/stores/open-store.ts', import.meta.url).href)});
      try { await openStore('redis://127.0.0.1:1'); console.log('opened'); }
      catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }
    `;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
      encoding: 'utf8',
    });
    const reported = JSON.parse(output.trim().split('\n').at(-1) as string) as { code: string; message: string };
    expect(reported.code).toBe('MISSING_DEPENDENCY');
    expect(reported.message).toMatch(/^redis: .*`ioredis`.*npm install ioredis/);
  });
});
