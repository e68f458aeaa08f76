import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { DEFAULT_WEIGHTS } from './counter.js';
import { ESTIMATE_WEIGHTS, estimate, estimateText, type EstimateWeights } from './estimate.js';

// Scale 1 makes the piece prices visible without the safety margin.
const unscaled: EstimateWeights = { ...ESTIMATE_WEIGHTS, scale: 1 };
const exact = (text: string): number => countTokens(text, { disallowedSpecial: new Set() });

// Hand-written texts of each kind an agent history holds (not from the bench corpus the weights were fitted on).
const SAMPLES: Record<string, string> = {
  prose:
    'The session keeps every message immutable, so a compaction never changes the history you passed in. When the budget is exceeded, the oldest tool outputs go first, then older dialog turns; the system prompt is always kept. If you need the exact number of tokens, use the o200k_base counter instead of the estimate.',
  compactJson: JSON.stringify({
    rows: [
      {
        id: 1042,
        name: 'Grace Miller',
        email: 'grace.miller@example.com',
        status: 'active',
        created_at: '2024-10-16T15:04:18.000Z',
        amount: 7884.92,
      },
      {
        id: 1043,
        name: 'Ivan Lopez',
        email: 'ivan.lopez@acme.io',
        status: 'pending',
        created_at: '2025-02-01T09:12:44.000Z',
        tags: ['billing', 'priority'],
      },
    ],
    row_count: 2,
  }),
  prettyJson: JSON.stringify(
    {
      path: 'src/session/token-budget.ts',
      size: 4096,
      entries: [
        { name: 'index.ts', type: 'file', size: 1234 },
        { name: 'utils', type: 'directory', size: 4096 },
      ],
      truncated: false,
    },
    null,
    2,
  ),
  typescript:
    'export async function loadSession(sessionId: string, options: LoadOptions = {}): Promise<Session | undefined> {\n  const record = await store.get(sessionId);\n  if (record === undefined) {\n    return undefined;\n  }\n  for (const message of record.messages) {\n    validateMessage(message, { strict: options.strict ?? true });\n  }\n  return Session.fromJSON(record);\n}',
  python:
    'def summarize_orders(orders: list[dict]) -> dict:\n    totals = {}\n    for order in orders:\n        if order.get("status") != "paid":\n            continue\n        totals[order["customer_id"]] = totals.get(order["customer_id"], 0) + order["amount"]\n    return {"customers": len(totals), "revenue": sum(totals.values())}',
};

describe('estimateText', () => {
  it('is 0 for empty text and at least 1 for any other text', () => {
    expect(estimateText('')).toBe(0);
    for (const text of ['a', ' ', '\n', '.', '7', '数', '🙂']) expect(estimateText(text)).toBeGreaterThanOrEqual(1);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }), (text) => {
        const count = estimateText(text);
        return Number.isInteger(count) && count >= 1;
      }),
    );
  });

  it('counts a short common word as one token, not one plus a rounding margin', () => {
    expect(estimateText('hello')).toBe(1);
    expect(estimateText('the')).toBe(1);
  });

  it.each(Object.entries(SAMPLES))('does not undercount %s and overcounts it by at most 20%%', (_kind, text) => {
    const ratio = estimateText(text) / exact(text);
    expect(ratio).toBeGreaterThanOrEqual(0.97);
    expect(ratio).toBeLessThanOrEqual(1.2);
  });

  it('beats characters/4 on JSON, which it would undercount', () => {
    const text = SAMPLES.compactJson ?? '';
    const truth = exact(text);
    expect(Math.ceil(text.length / 4)).toBeLessThan(truth * 0.9);
    expect(Math.abs(estimateText(text) - truth)).toBeLessThan(Math.abs(Math.ceil(text.length / 4) - truth));
  });

  it('splits camelCase and acronyms the way BPE does', () => {
    expect(estimateText('getUserName', unscaled)).toBe(3);
    expect(estimateText('getusername', unscaled)).toBe(2);
    expect(estimateText('JSONParser', unscaled)).toBe(2);
  });

  it('prices numbers in groups of three digits, and the space before a number', () => {
    expect(estimateText('1234567', unscaled)).toBe(3);
    expect(estimateText('a 123', unscaled)).toBe(3);
    expect(estimateText('a b', unscaled)).toBe(2);
  });

  it('lets punctuation absorb the line break after it, and prices indentation once per line', () => {
    expect(estimateText('{\n', unscaled)).toBe(1);
    expect(estimateText('a\n', unscaled)).toBe(2);
    expect(estimateText('\n\n\n', unscaled)).toBe(1);
    expect(estimateText('        x', unscaled)).toBe(2);
  });

  it('glues one punctuation character to the next word only when no space precedes it', () => {
    const glued = estimateText('a.length', unscaled);
    const spaced = estimateText('a .length', unscaled);
    expect(glued).toBeLessThan(spaced);
  });

  it('prices words with non-ASCII letters above ASCII words of the same length', () => {
    expect(estimateText('Größenänderung')).toBeGreaterThan(estimateText('Grossenaenderg'));
    expect(estimateText('Übersetzung')).toBeGreaterThanOrEqual(exact('Übersetzung'));
    expect(estimateText('数据库连接')).toBeGreaterThanOrEqual(exact('数据库连接'));
  });

  it('applies the given weights', () => {
    const text = SAMPLES.prose ?? '';
    expect(estimateText(text, { ...unscaled, scale: 2 })).toBe(
      Math.round(estimateText(text, { ...unscaled, scale: 1 }) * 2),
    );
    expect(estimateText('0123456789', { ...unscaled, digitsPerToken: 1 })).toBe(10);
  });

  it('never throws on lone surrogates or control characters', () => {
    expect(() => estimateText('\ud800\udfff\u0000\u001b[31m\ud83d')).not.toThrow();
  });
});

describe('estimate', () => {
  it('counts a message as its text plus the per-message overhead', () => {
    const message = Message.user(SAMPLES.prose ?? '');
    expect(estimate.name).toBe('estimate');
    expect(estimate.countText('hello world')).toBe(estimateText('hello world'));
    expect(estimate.countMessage(message)).toBe(DEFAULT_WEIGHTS.perMessage + estimateText(SAMPLES.prose ?? ''));
  });

  it('counts tool calls by name and arguments', () => {
    const message = Message.assistant('', {
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"src/index.ts"}' }],
    });
    const expected =
      DEFAULT_WEIGHTS.perMessage +
      DEFAULT_WEIGHTS.perToolCall +
      estimateText('read_file') +
      estimateText('{"path":"src/index.ts"}');
    expect(estimate.countMessage(message)).toBe(expected);
  });
});

describe('long whitespace runs (review regression)', () => {
  it('does not count a long run as one token', () => {
    for (const [ch, n] of [
      [' ', 10_000],
      ['\n', 1000],
      ['\t', 1000],
      ['\r\n', 1000],
      ['\n', 64],
    ] as const) {
      const text = `x${ch.repeat(n)}y`;
      expect(estimateText(text), JSON.stringify(ch) + n).toBeGreaterThanOrEqual(countTokens(text));
    }
  });
});
