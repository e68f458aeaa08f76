/**
 * The round trip of the one OpenAI Agents converter (`interchange/openai-agents`), by property:
 * any items become valid chatstate messages and come back deep-equal, whether they arrive in one
 * list or in batches; on every store, the session gives them back the same after `addItems`
 * batches, and `getItems(limit)` and `popItem` agree with the list.
 */
import type { AgentInputItem } from '@openai/agents-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { itemsToMessages, messagesToItems } from '../../../src/interchange/openai-agents/convert.js';
import { canonicalJson } from '../../../src/internal/canonical-json.js';
import { Message } from '../../../src/message/message.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { itemArb, itemsArb, runnerItemArb } from './items.arbitrary.js';

/** `items` cut into consecutive batches at `cuts` (positions taken modulo the length). */
function batches<T>(items: readonly T[], cuts: readonly number[]): T[][] {
  const points = [...new Set(cuts.map((cut) => (items.length === 0 ? 0 : cut % items.length)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let start = 0;
  for (const point of [...points, items.length]) {
    if (point > start) out.push(items.slice(start, point));
    start = Math.max(start, point);
  }
  return out;
}

describe('openai-agents items ⇄ chatstate messages', () => {
  it('any items become valid messages and come back deep-equal', () => {
    fc.assert(
      fc.property(itemsArb, (items) => {
        const messages = itemsToMessages(items);
        expect(messages.every((message) => Message.is(message))).toBe(true);
        // Every message holds at least one item (what makes getItems(limit) one bounded read).
        expect(messages.every((message) => messagesToItems([message]).length > 0)).toBe(true);
        expect(messagesToItems(messages)).toEqual(items);
        // Through JSON, as a store keeps them.
        const stored = messages.map((message) => Message.fromStored(JSON.parse(JSON.stringify(message))));
        expect(messagesToItems(stored)).toEqual(items);
      }),
      { numRuns: 400 },
    );
  });

  it('batches give the same items as one list', () => {
    fc.assert(
      fc.property(itemsArb, fc.array(fc.nat(), { maxLength: 4 }), (items, cuts) => {
        const messages = batches(items, cuts).flatMap((batch) => itemsToMessages(batch));
        expect(messagesToItems(messages)).toEqual(items);
      }),
      { numRuns: 200 },
    );
  });

  it('stores what the runner writes without a verbatim copy', () => {
    fc.assert(
      fc.property(fc.array(runnerItemArb, { maxLength: 16 }), (items) => {
        const messages = itemsToMessages(items);
        expect(messagesToItems(messages)).toEqual(items);
        for (const message of messages) {
          expect(message.metadata).not.toHaveProperty(['openaiAgents', 'verbatim']);
          expect(message.metadata).not.toHaveProperty(['openaiAgents', 'held']);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('maps the common items compactly: nothing kept twice', () => {
    const call = { type: 'function_call', callId: 'call_1', name: 'weather', arguments: '{}', status: 'completed' };
    const result = {
      type: 'function_call_result',
      callId: 'call_1',
      name: 'weather',
      status: 'completed',
      output: { type: 'text', text: 'sunny' },
    };
    const answer = {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Sunny.' }],
    };
    const messages = itemsToMessages([{ role: 'user', content: 'Weather?' }, call, result, answer] as AgentInputItem[]);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Weather?'],
      ['assistant', ''],
      ['tool', 'sunny'],
      ['assistant', [{ type: 'text', text: 'Sunny.' }]],
    ]);
    // No message keeps its items verbatim, and no text is stored twice.
    for (const message of messages)
      expect(JSON.stringify(message.metadata)).not.toMatch(/verbatim|sunny|Sunny|Weather/);
  });

  it('keeps an item’s "__proto__" field as data, read like any other field (no verbatim copy)', () => {
    const items = [
      JSON.parse('{"role":"user","content":"hi","__proto__":{"tier":"free"}}'),
      JSON.parse('{"role":"user","content":"hi","__proto__":{"tier":"paid"}}'),
    ] as AgentInputItem[];
    const messages = itemsToMessages(items);
    const back = messagesToItems(messages);
    // Compared as data (canonical text): toEqual does not look at a "__proto__" own key.
    expect(back.map(canonicalJson)).toEqual(items.map(canonicalJson));
    expect(back.every((item) => Object.getPrototypeOf(item) === Object.prototype)).toBe(true);
    for (const message of messages) expect(message.metadata).not.toHaveProperty(['openaiAgents', 'verbatim']);
  });
});

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
