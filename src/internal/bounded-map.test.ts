/** `BoundedMap`: at most `max` entries, the oldest by write (or by use) forgotten first, and told. */
import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  it('keeps at most max entries, forgetting the one written longest ago; reads do not renew by default', () => {
    const map = new BoundedMap<string, number>({ max: 2 });
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
    expect(map.has('a')).toBe(false);
    expect(map.size).toBe(2);
  });

  it('renews an entry on a write of a key it holds', () => {
    const map = new BoundedMap<string, number>({ max: 2 });
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect([...map.keys()]).toEqual(['a', 'c']);
    expect(map.get('a')).toBe(10);
  });

  it("with renew 'use', a read that finds an entry renews it (least recently used goes)", () => {
    const map = new BoundedMap<string, number>({ max: 2, renew: 'use' });
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    expect(map.get('missing')).toBeUndefined();
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['a', 'c']);
    // `has` looks without renewing.
    expect(map.has('a')).toBe(true);
    map.set('d', 4);
    expect([...map.keys()]).toEqual(['c', 'd']);
  });

  it('tells onEvict of each entry forgotten to make room, never of delete or clear', () => {
    const evicted: Array<[string, number]> = [];
    const map = new BoundedMap<string, number>({ max: 1, onEvict: (key, value) => evicted.push([key, value]) });
    map.set('a', 1).set('a', 2).set('b', 3);
    map.delete('b');
    map.set('c', 4).set('d', 5);
    map.clear();
    expect(evicted).toEqual([
      ['a', 2],
      ['c', 4],
    ]);
    expect(map.size).toBe(0);
  });

  it('forgets the entries a test picks', () => {
    const map = new BoundedMap<string, number>({ max: 10 });
    for (const key of ['t1\na', 't1\nb', 't2\na']) map.set(key, key.length);
    expect(map.deleteWhere((key) => key.startsWith('t1\n'))).toBe(2);
    expect([...map.keys()]).toEqual(['t2\na']);
  });

  it('refuses a max that is not a positive integer', () => {
    for (const max of [0, -1, 1.5, Number.NaN])
      expect(() => new BoundedMap({ max })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
