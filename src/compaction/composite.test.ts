import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import type { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/counter.js';
import { composite } from './composite.js';
import { messageLimit } from './message-limit.js';
import { split } from './split.js';
import { summarize } from './summarize.js';
import { tokenLimit } from './token-limit.js';
import { triggers } from './triggers.js';
import { truncateToolOutputs } from './truncate-tool-outputs.js';
import type { CompactionResult, SyncCompactor } from './types.js';

const ten: TokenCounter = { name: 'ten', countText: () => 0, countMessage: () => 10 };
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

describe('composite', () => {
  it('runs each part whose trigger fires on the running result, and merges the reports', () => {
    const messages = conversation([{}, {}, {}, {}, {}]); // 11 messages, 110 tokens
    const compactor: SyncCompactor = composite(
      tokenLimit({ maxTokens: 100, targetTokens: 90 }),
      messageLimit({ maxMessages: 4 }),
    );
    expect(compactor.name).toBe('composite(tokenLimit,messageLimit)');
    expect(compactor.shouldCompact({ messages, counter: ten })).toBe(true);
    // Typed synchronous: no await needed when every part is synchronous.
    const result: CompactionResult = compactor.compact({ messages, counter: ten });
    expectInvariants(messages, messages.slice(), result, ten, { composite: true });
    expect(result.strategy).toBe('tokenLimit+messageLimit');
    expect(ids(result.messages)).toEqual(['sys', 't3-1', 't3-2', 't4-1', 't4-2']);
    expect(result.removed).toEqual({ count: 6, tokens: 60, firstId: 't0-1', lastId: 't2-2' });
    expect(result.tokensBefore).toBe(110);
    expect(result.tokensAfter).toBe(50);
  });

  it('skips parts whose trigger does not fire', () => {
    const messages = conversation([{}, {}]);
    const result = composite(tokenLimit({ maxTokens: 1000 }), messageLimit({ maxMessages: 2 })).compact({
      messages,
      counter: ten,
    });
    expect(result.strategy).toBe('messageLimit');
    expect(ids(result.messages)).toEqual(['sys', 't1-1', 't1-2']);
  });

  it('returns the input itself when no part fires', () => {
    const messages = conversation([{}]);
    const compactor = composite(tokenLimit({ maxTokens: 1000 }), messageLimit({ maxMessages: 20 }));
    expect(compactor.shouldCompact({ messages, counter: ten })).toBe(false);
    const result = compactor.compact({ messages, counter: ten });
    expect(result.messages).toBe(messages);
    expect(result).toMatchObject({ compacted: false, strategy: compactor.name, tokensBefore: 30, tokensAfter: 30 });
  });

  it('awaits asynchronous parts and continues after a failed summary', async () => {
    const messages = conversation([{}, {}, {}, {}]);
    const failing = summarize({ summarizer: () => '', keepTurns: 1 });
    const outcome = composite(failing, messageLimit({ maxMessages: 4 })).compact({ messages, counter: ten });
    expect(outcome).toBeInstanceOf(Promise);
    const result = await outcome;
    expect(result.error?.code).toBe('SUMMARY_FAILED');
    expect(result.compacted).toBe(true);
    expect(result.strategy).toBe('summarize+messageLimit');
    expect(ids(result.messages)).toEqual(['sys', 't2-1', 't2-2', 't3-1', 't3-2']);
  });

  it('counts what a later part removes of an earlier part’s work', async () => {
    const messages = conversation([{}, {}, {}, {}]);
    const result = await composite(
      summarize({ summarizer: () => 'gist', keepTurns: 3 }),
      messageLimit({ maxMessages: 2 }),
    ).compact({
      messages,
      counter: ten,
    });
    expectInvariants(messages, messages.slice(), result, ten, { composite: true });
    expect(result.added.length).toBe(1);
    expect(result.messages.some((m) => m.id === result.added[0]?.id)).toBe(false);
  });

  it('rejects no parts or a part that is not a compactor', () => {
    expect(() => composite()).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => composite({ name: 'x', compact: () => undefined } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('split', () => {
  it('runs the strategy when the trigger fires, under the strategy’s name', () => {
    const messages = conversation([{ tools: [1] }, {}, {}]);
    const compactor = split({ trigger: triggers.messageCount(6), strategy: messageLimit({ maxMessages: 2 }) });
    expect(compactor.name).toBe('messageLimit');
    expect(compactor.shouldCompact({ messages, counter: ten })).toBe(true);
    expect(compactor.shouldCompact({ messages: messages.slice(0, 6), counter: ten })).toBe(false);
    expect(ids(compactor.compact({ messages, counter: ten }).messages)).toEqual(['sys', 't2-1', 't2-2']);
  });

  it('rejects a missing trigger or strategy', () => {
    expect(() => split({ strategy: messageLimit({ maxMessages: 2 }) } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('trigger') }),
    );
    expect(() => split({ trigger: triggers.always } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('strategy') }),
    );
  });
});

describe('triggers', () => {
  const messages = conversation([{}, {}]); // 5 messages, 4 non-system, 50 tokens
  const input = { messages, counter: ten };

  it('count messages (system aside) and tokens (measured usage first)', () => {
    expect(triggers.messageCount(3).shouldCompact(input)).toBe(true);
    expect(triggers.messageCount(4).shouldCompact(input)).toBe(false);
    expect(triggers.tokenCount(49).shouldCompact(input)).toBe(true);
    expect(triggers.tokenCount(50).shouldCompact(input)).toBe(false);
    expect(triggers.tokenCount(50).shouldCompact({ ...input, lastUsage: { inputTokens: 80, messageCount: 5 } })).toBe(
      true,
    );
  });

  it('combine with any and all', () => {
    const { any, all, always, never } = triggers;
    expect(any(never, always).shouldCompact(input)).toBe(true);
    expect(any().shouldCompact(input)).toBe(false);
    expect(all(always, never).shouldCompact(input)).toBe(false);
    expect(all().shouldCompact(input)).toBe(true);
    expect(all(triggers.messageCount(1), triggers.tokenCount(10)).shouldCompact(input)).toBe(true);
  });

  it('reject invalid arguments', () => {
    expect(() => triggers.messageCount(-1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => triggers.tokenCount(1.5)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => triggers.any({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('pair with a strategy that needs no trigger of its own', () => {
    const compactor = split({ trigger: triggers.never, strategy: truncateToolOutputs({ maxTokens: 5 }) });
    expect(compactor.shouldCompact(input)).toBe(false);
  });
});
