import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import type { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/counter.js';
import { tokenBuffer } from './token-buffer.js';
import { tokenLimit } from './token-limit.js';

/** Every message costs 10 tokens: budgets read as message counts × 10. */
const ten: TokenCounter = { name: 'ten', countText: () => 0, countMessage: () => 10 };
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

describe('tokenLimit', () => {
  // 1 system + 5 turns of 2 messages = 110 tokens.
  const messages = conversation([{}, {}, {}, {}, {}]);

  it('compacts above maxTokens, down to targetTokens (hysteresis)', () => {
    const compactor = tokenLimit({ maxTokens: 100, targetTokens: 50 });
    expect(compactor.shouldCompact({ messages, counter: ten })).toBe(true);
    expect(compactor.shouldCompact({ messages: messages.slice(0, 10), counter: ten })).toBe(false);
    const result = compactor.compact({ messages, counter: ten });
    expectInvariants(messages, messages.slice(), result, ten);
    expect(ids(result.messages)).toEqual(['sys', 't3-1', 't3-2', 't4-1', 't4-2']);
    expect(result.tokensBefore).toBe(110);
    expect(result.tokensAfter).toBe(50);
    expect(result.removed).toEqual({ count: 6, tokens: 60, firstId: 't0-1', lastId: 't2-2' });
    expect(result.reachedTarget).toBe(true);
  });

  it('targets 75% of maxTokens by default', () => {
    const result = tokenLimit({ maxTokens: 100 }).compact({ messages, counter: ten });
    expect(result.tokensAfter).toBe(70);
  });

  it('keeps the latest turn whole when it alone exceeds the target', () => {
    const big = conversation([{}, { tools: [3, 3] }]);
    const result = tokenLimit({ maxTokens: 30, targetTokens: 20 }).compact({ messages: big, counter: ten });
    expectInvariants(big, big.slice(), result, ten);
    expect(result.messages.length).toBe(big.length - 2);
    expect(result.reachedTarget).toBe(false);
  });

  it('trusts measured usage for the prefix it measured, plus counts of later messages', () => {
    const compactor = tokenLimit({ maxTokens: 100, targetTokens: 50 });
    // The provider measured 60 tokens for the first 9 messages (we count 90), then 2 more messages.
    const lastUsage = { inputTokens: 60, messageCount: 9 };
    expect(compactor.shouldCompact({ messages, counter: ten, lastUsage })).toBe(false);
    expect(compactor.shouldCompact({ messages, counter: ten, lastUsage: { inputTokens: 95, messageCount: 9 } })).toBe(
      true,
    );
    // With a measured/counted ratio of 2, the target of 50 real tokens is 25 counted: one turn.
    const doubled = compactor.compact({ messages, counter: ten, lastUsage: { inputTokens: 180, messageCount: 9 } });
    expect(ids(doubled.messages)).toEqual(['sys', 't4-1', 't4-2']);
    expect(doubled.reachedTarget).toBe(false);
    // A ratio of 0.5 lets 100 counted tokens through.
    const halved = compactor.compact({ messages, counter: ten, lastUsage: { inputTokens: 45, messageCount: 9 } });
    expect(halved.tokensAfter).toBe(90);
    expect(halved.reachedTarget).toBe(true);
  });

  it('ignores usage that measured a longer history than this one', () => {
    const compactor = tokenLimit({ maxTokens: 100, targetTokens: 50 });
    const lastUsage = { inputTokens: 5000, messageCount: 50 };
    expect(compactor.shouldCompact({ messages: messages.slice(0, 5), counter: ten, lastUsage })).toBe(false);
  });

  it('returns the input itself when it fits', () => {
    const result = tokenLimit({ maxTokens: 200 }).compact({ messages, counter: ten });
    expect(result.messages).toBe(messages);
    expect(result).toMatchObject({
      compacted: false,
      tokensBefore: 110,
      tokensAfter: 110,
      reachedTarget: true,
      added: [],
    });
  });

  it.each([
    [{ maxTokens: 0 }, 'maxTokens'],
    [{ maxTokens: 10.5 }, 'maxTokens'],
    [{ maxTokens: 100, targetTokens: 101 }, 'targetTokens'],
    [{ maxTokens: 100, targetTokens: 0 }, 'targetTokens'],
  ])('rejects %o with INVALID_ARGUMENT naming %s', (options, option) => {
    expect(() => tokenLimit(options)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(option) }),
    );
  });

  it('rejects an input without a counter', () => {
    expect(() => tokenLimit({ maxTokens: 10 }).compact({ messages } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('tokenBuffer', () => {
  it('keeps the latest whole turns that fit in maxTokens itself', () => {
    const messages = conversation([{}, {}, {}, {}, {}]);
    const compactor = tokenBuffer({ maxTokens: 60 });
    expect(compactor.shouldCompact({ messages, counter: ten })).toBe(true);
    const result = compactor.compact({ messages, counter: ten });
    expect(result.tokensAfter).toBe(50);
    expect(result.strategy).toBe('tokenBuffer');
    expect(compactor.shouldCompact({ messages: result.messages, counter: ten })).toBe(false);
  });

  it('rejects a missing maxTokens', () => {
    expect(() => tokenBuffer({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
