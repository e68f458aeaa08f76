import { describe, expect, it } from 'vitest';
import { ConnectionGate } from './gate.js';

describe('ConnectionGate', () => {
  it('lets `permits` through at once and the others in order, as permits come back', async () => {
    const gate = new ConnectionGate(2, 'pg');
    const first = await gate.acquire(1000);
    const second = await gate.acquire(1000);
    const order: number[] = [];
    const third = gate.acquire(1000).then((release) => (order.push(3), release));
    const fourth = gate.acquire(1000).then((release) => (order.push(4), release));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    first();
    first(); // a second release of one permit gives nothing more
    (await third)();
    expect(order).toEqual([3]);
    second();
    (await fourth)();
    expect(order).toEqual([3, 4]);
    // Every permit is back: two at once again, none waiting.
    const again = [await gate.acquire(10), await gate.acquire(10)];
    for (const release of again) release();
  });

  it('refuses a wait past its bound as UNAVAILABLE (BUSY, nothing applied), and keeps the queue whole', async () => {
    const gate = new ConnectionGate(1, 'pg');
    const held = await gate.acquire(1000);
    const late = gate.acquire(30);
    const patient = gate.acquire(5000);
    await expect(late).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      details: { store: 'pg', reason: 'BUSY', outcome: 'not-applied' },
    });
    held();
    // The one that timed out left the line: the next permit goes to the one still waiting.
    (await patient)();
  });
});
