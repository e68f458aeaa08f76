/**
 * `SharedValues`: the values of shared owners read once per run, and bounded with the oldest out
 * first (a full memo no longer forgets everything at once).
 */
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../stores/memory-store.js';
import { SharedValues } from './bundle.js';

const user = (index: number) => ({ scope: 'user' as const, userId: `u${index}` });

describe('SharedValues', () => {
  it('reads an owner once, and past its bound forgets only the oldest owners', async () => {
    const store = memoryStore();
    const shared = new SharedValues();
    await store.values.set(user(0), { plan: 'free' });
    await store.values.set(user(1), { plan: 'free' });
    // 10,000 owners fill the memo; one more makes room by forgetting u0 alone.
    for (let index = 0; index <= 10_000; index++) await shared.read(store, user(index));
    await store.values.set(user(0), { plan: 'paid' });
    await store.values.set(user(1), { plan: 'paid' });
    expect(await shared.read(store, user(1))).toEqual({ plan: 'free' });
    expect(await shared.read(store, user(0))).toEqual({ plan: 'paid' });
    await store.close();
  });
});
