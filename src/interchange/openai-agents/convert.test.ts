/**
 * The round trip of the one OpenAI Agents converter, by property: any items become valid chatstate
 * messages and come back deep-equal, whether they arrive in one list or in batches. (The adapter's
 * session over every store: test/adapters/openai-agents/items-on-store.each-store.test.ts.)
 */
import type { AgentInputItem } from '@openai/agents-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemsArb, runnerItemArb } from '../../../test/adapters/openai-agents/items.arbitrary.js';
import { Message } from '../../message/message.js';
import { batches } from '../../../test/adapters/openai-agents/batches.js';
import { canonicalJson } from '../../internal/canonical-json.js';
import { itemsToMessages, messagesToItems } from './convert.js';

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
