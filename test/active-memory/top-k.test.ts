/** `TopK` keeps exactly what a full sort would put first. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopK } from '../../src/active-memory/top-k.js';

describe('TopK', () => {
  it('keeps the best limit items, best first, as sorting everything would', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.integer({ min: 0, max: 12 }), (values, limit) => {
        // Ties broken by position, so the order is total and the expectation unique.
        const items = values.map((value, position) => ({ value, position }));
        const compare = (a: (typeof items)[number], b: (typeof items)[number]): number =>
          b.value - a.value || a.position - b.position;
        const top = new TopK(limit, compare);
        for (const item of items) top.offer(item);
        expect(top.sorted()).toEqual([...items].sort(compare).slice(0, limit));
      }),
    );
  });

  it('reports the item a newcomer must beat once full', () => {
    const top = new TopK<number>(2, (a, b) => b - a);
    top.offer(5);
    expect(top.floor).toBeUndefined();
    top.offer(9);
    top.offer(7);
    expect(top.floor).toBe(7);
    expect(top.sorted()).toEqual([9, 7]);
  });
});
