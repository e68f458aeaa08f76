/**
 * The OpenAI Agents session on every store, by property: after `addItems` batches it gives the items
 * back the same, and `getItems(limit)` and `popItem` agree with the list. (The converter's round
 * trip: src/interchange/openai-agents/convert.test.ts.)
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { batches } from './batches.js';
import { itemArb } from './items.arbitrary.js';

await describeEveryStore(
  'openai-agents items on a store',
  (subject) => {
    const stores = storesOf(subject);

    it('addItems in batches, then getItems, getItems(limit) and popItem agree with the list', async () => {
      const store = await stores.open();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(itemArb, { minLength: 1, maxLength: 10 }),
          fc.array(fc.nat(), { maxLength: 3 }),
          fc.nat(),
          async (items, cuts, limit) => {
            const session = chatstateSession({ store, sessionId: `property-${run++}` });
            for (const batch of batches(items, cuts)) await session.addItems(batch);
            expect(await session.getItems()).toEqual(items);
            const k = (limit % items.length) + 1;
            expect(await session.getItems(k)).toEqual(items.slice(-k));
            expect(await session.popItem()).toEqual(items.at(-1));
            expect(await session.getItems()).toEqual(items.slice(0, -1));
          },
        ),
        { numRuns: 12 },
      );
    }, 60_000);
  },
  'oaitems',
);
