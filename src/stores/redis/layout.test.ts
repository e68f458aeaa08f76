import { describe, expect, it } from 'vitest';
import { CLUSTER_BUCKETS, bucketOf, clusterLayout, fnv1a, singleLayout } from './layout.js';

describe('the Redis key layouts', () => {
  it('keeps one server on the prefix alone, as every earlier version did, and declares no key', () => {
    const layout = singleLayout('kp:chatstate:');
    expect(layout.cluster).toBe(false);
    expect(layout.bases).toEqual(['kp:chatstate:']);
    expect(layout.sessionBase('any')).toBe('kp:chatstate:');
    expect(layout.valueBase('user:alice')).toBe('kp:chatstate:');
    expect(layout.routingKey('kp:chatstate:')).toBeUndefined();
  });

  it('puts a cluster store in 64 hash-tagged buckets, a session and its namespaces in one', () => {
    const layout = clusterLayout('kp:', 'chatstate:', 'redis');
    expect(layout.cluster).toBe(true);
    expect(layout.bases).toHaveLength(CLUSTER_BUCKETS);
    expect(layout.bases[0]).toBe('kp:chatstate:{0}:');
    expect(layout.bases[63]).toBe('kp:chatstate:{63}:');
    const base = layout.sessionBase('chat-1');
    expect(base).toBe(`kp:chatstate:{${bucketOf('chat-1')}}:`);
    expect(layout.valueBase('session:chat-1')).toBe(base);
    expect(layout.valueBase('session:chat-1/embeddings')).toBe(base);
    expect(layout.valueBase('user:alice')).toBe(`kp:chatstate:{${bucketOf('user:alice')}}:`);
    // The routing key leaves the client's keyPrefix out: the client puts it in front.
    expect(layout.routingKey(base)).toBe(`chatstate:{${bucketOf('chat-1')}}:x:all`);
  });

  it('hashes ids to buckets with FNV-1a, a stored-format constant that must never change', () => {
    // Published FNV-1a 32-bit test vectors, then the buckets of a few ids as stored.
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(['chat-1', 'trip-lisbon', 'knowledge.u-42', 'user:alice', 'ü'].map(bucketOf)).toEqual([57, 18, 47, 16, 10]);
    const counts = new Map<number, number>();
    for (let index = 0; index < 6400; index += 1) {
      const bucket = bucketOf(`session-${index}`);
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    }
    expect(counts.size).toBe(CLUSTER_BUCKETS);
    // Ids spread over every bucket.
    expect(Math.min(...counts.values())).toBeGreaterThan(50);
    expect(Math.max(...counts.values())).toBeLessThan(150);
  });

  it('refuses braces in a cluster prefix: they would make one hash tag of the whole store', () => {
    expect(() => clusterLayout('', 'app{x}:', 'redis')).toThrow(/must not contain/);
    expect(() => clusterLayout('k{', 'app:', 'redis')).toThrow(/must not contain/);
  });
});
