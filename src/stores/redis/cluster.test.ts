import { describe, expect, it } from 'vitest';
import { isClusterUrl, keySlot, ownedClusterOptions, parseClusterUrl } from './cluster.js';

describe('redis+cluster:// URLs', () => {
  it('lists seed nodes, with the default port, IPv6 literals, credentials, TLS and the prefix', () => {
    expect(parseClusterUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,cache.local', 'redis')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'cache.local', port: 6379 },
      ],
      tls: false,
    });
    expect(parseClusterUrl('rediss+cluster://app:p%40ss%3Aw@[::1]:7000/0?prefix=chat%3A', 'redis')).toEqual({
      nodes: [{ host: '::1', port: 7000 }],
      username: 'app',
      password: 'p@ss:w',
      tls: true,
      prefix: 'chat:',
    });
    expect(parseClusterUrl('REDIS+CLUSTER://:secret@h:1/', 'redis')).toMatchObject({ password: 'secret', tls: false });
    expect(parseClusterUrl('redis+cluster://:secret@h:1/', 'redis')).not.toHaveProperty('username');
    expect(isClusterUrl('redis+cluster://h:1')).toBe(true);
    expect(isClusterUrl('redis://h:1')).toBe(false);
  });

  it('refuses what a cluster cannot be, without echoing the URL (it may hold a password)', () => {
    for (const url of [
      'redis+cluster://',
      'redis+cluster://:secret@',
      'redis+cluster://h:99999',
      'redis+cluster://h:7000,,h:7001',
      'redis+cluster://:secret@h:7000/2',
      'redis+cluster://:secret@h:7000?prefx=a',
      'redis+cluster://:%E0%A4%A@h:7000',
      'redis://h:7000',
    ]) {
      let caught: unknown;
      try {
        parseClusterUrl(url, 'chats');
      } catch (error) {
        caught = error;
      }
      expect(caught, url).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(String((caught as Error).message), url).toMatch(/^chats: /);
      expect(String((caught as Error).message), url).not.toContain('secret');
    }
  });

  it("gives the cluster client the store's timeouts, and no retry of a command that may have run", () => {
    const options = ownedClusterOptions(
      { nodes: [{ host: 'h', port: 1 }], tls: true, password: 'pw' },
      { connectTimeoutMs: 1500, commandTimeoutMs: 4000 },
      0,
    );
    expect(options).toMatchObject({
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      slotsRefreshTimeout: 1500,
      redisOptions: {
        connectTimeout: 1500,
        commandTimeout: 4000,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        password: 'pw',
        tls: {},
      },
    });
    expect(typeof options.clusterRetryStrategy).toBe('function');
  });

  it('computes the hash slot of a key as Redis Cluster does, by its hash tag when it has one', () => {
    // Values of CLUSTER KEYSLOT, as Redis's documentation gives them.
    expect(keySlot('somekey')).toBe(11058);
    expect(keySlot('foo{hash_tag}')).toBe(2515);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    // An empty tag is no tag: the whole key is hashed.
    expect(keySlot('a{}b')).not.toBe(keySlot('{}'));
    expect(keySlot('app:{17}:x:all')).toBe(keySlot('{17}'));
  });
});
