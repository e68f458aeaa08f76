/**
 * `MAX_MESSAGE_CHARS` limits the whole message — content, tool-call arguments, metadata, raw parts,
 * provider options, token counts — measured as its JSON text, in the same walk that checks it:
 * `TOO_LARGE` from `Message.create` and `Message.fromStored` alike, and early, before a huge value
 * is walked whole.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatstateError } from '../../src/errors.js';
import { jsonSize, readJson } from '../../src/message/json-value.js';
import { MAX_MESSAGE_CHARS, Message, type MessageInput } from '../../src/message/message.js';
import { messageSize } from '../../src/message/rules.js';
import { historyArb } from '../support/arbitraries.js';
import { outcomeOf } from '../support/errors.js';

const MB = 1024 * 1024;
const sixty = 'a'.repeat(60 * MB);
const third = 'b'.repeat(Math.ceil(MAX_MESSAGE_CHARS / 3));

describe('a message over MAX_MESSAGE_CHARS is TOO_LARGE, wherever its size is', () => {
  const cases: Array<[string, () => unknown]> = [
    [
      '60 MB of tool arguments as text',
      () => ({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: sixty }] }),
    ],
    [
      '60 MB of tool arguments as an object',
      () => ({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: { blob: sixty } }] }),
    ],
    [
      'tool arguments spread over many calls',
      () => ({
        role: 'assistant',
        content: '',
        toolCalls: [0, 1, 2].map((index) => ({ id: `c${index}`, name: 'f', arguments: third })),
      }),
    ],
    ['60 MB of metadata', () => ({ role: 'user', content: 'x', metadata: { blob: sixty } })],
    ['metadata and content that fit apart', () => ({ role: 'user', content: third, metadata: { a: third, b: third } })],
    [
      '60 MB in a raw part',
      () => ({ role: 'user', content: [{ type: 'raw', provider: 'gemini', value: { blob: sixty } }] }),
    ],
    [
      '60 MB of provider options',
      () => ({ role: 'user', content: [{ type: 'text', text: 'x', providerOptions: { anthropic: { blob: sixty } } }] }),
    ],
    ['60 MB of content', () => ({ role: 'user', content: sixty })],
    [
      '300,000 small metadata entries',
      () => ({
        role: 'user',
        content: third,
        metadata: Object.fromEntries(Array.from({ length: 300_000 }, (_, index) => [`key${index}`, 'v'.repeat(70)])),
      }),
    ],
  ];
  it.each(cases)('%s', (_name, build) => {
    const input = build() as MessageInput;
    expect(outcomeOf(() => Message.create(input))).toBe('TOO_LARGE');
    expect(
      outcomeOf(() => Message.fromStored({ id: 'm1', timestamp: '2025-01-01T00:00:00.000Z', ...(input as object) })),
    ).toBe('TOO_LARGE');
  });

  it('stops early on a value that shares one subtree exponentially (a "billion laughs" object)', () => {
    let bomb: unknown = 'x'.repeat(100);
    for (let level = 0; level < 50; level += 1) bomb = { a: bomb, b: bomb };
    const start = performance.now();
    expect(outcomeOf(() => Message.user('x', { metadata: { bomb } }))).toBe('TOO_LARGE');
    expect(
      outcomeOf(() => Message.assistant('', { toolCalls: [{ id: 'c', name: 'f', arguments: { bomb } as never }] })),
    ).toBe('TOO_LARGE');
    expect(performance.now() - start).toBeLessThan(2000);
  });

  it('reports the size and the limit (only the limit when one value alone passed it, and its read stopped there)', () => {
    const errorOf = (input: MessageInput): ChatstateError | undefined => {
      try {
        Message.create(input);
      } catch (error) {
        return error as ChatstateError;
      }
      return undefined;
    };
    const whole = errorOf({ role: 'user', content: third, metadata: { a: third, b: third } });
    expect(whole).toMatchObject({ code: 'TOO_LARGE', details: { limit: MAX_MESSAGE_CHARS } });
    expect(whole?.details.size).toBeGreaterThan(MAX_MESSAGE_CHARS);
    const early = errorOf({ role: 'user', content: 'x', metadata: { a: third, b: third, c: third } });
    expect(early).toMatchObject({ code: 'TOO_LARGE', details: { limit: MAX_MESSAGE_CHARS } });
    expect(early?.details.size).toBeUndefined();
  });

  it('accepts a message of exactly the limit, from create and from storage, so what was accepted reads back', () => {
    const base = { id: 'm1', role: 'user', category: 'dialog', timestamp: '2025-01-01T00:00:00.000Z' } as const;
    const envelope = JSON.stringify({ ...base, content: '', metadata: {} }).length;
    const message = Message.create({ ...base, content: 'x'.repeat(MAX_MESSAGE_CHARS - envelope) });
    expect(messageSize(message)).toBe(MAX_MESSAGE_CHARS);
    expect(Message.fromStored(JSON.parse(JSON.stringify({ ...message, seq: 7 })))).toEqual({ ...message, seq: 7 });
  });
});

/** The characters escape sequences add to the JSON text of `value` (its strings and keys). */
function escapes(value: unknown): number {
  if (typeof value === 'string') return JSON.stringify(value).length - value.length - 2;
  if (typeof value !== 'object' || value === null) return 0;
  let extra = 0;
  for (const [key, item] of Object.entries(value)) extra += (Array.isArray(value) ? 0 : escapes(key)) + escapes(item);
  return extra;
}

describe('the size measured', () => {
  it('is the length of the message’s JSON text without seq, escape sequences counted as one character', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        for (const message of history) {
          const { seq: _seq, ...fields } = message;
          expect(messageSize(message) + escapes(fields)).toBe(JSON.stringify(fields).length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('by readJson is jsonSize of the copy, and the JSON text length when nothing needs escaping', () => {
    const json = fc.jsonValue().filter((value) => !/\\/.test(JSON.stringify(value)));
    fc.assert(
      fc.property(json, (value) => {
        const read = readJson(value);
        expect(read.ok).toBe(true);
        if (!read.ok) return;
        expect(read.size).toBe(jsonSize(read.value));
        expect(read.size).toBe(JSON.stringify(read.value).length);
      }),
      { numRuns: 500 },
    );
  });
});
