import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import { estimate } from '../tokens/estimate.js';
import { messageLimit } from './message-limit.js';

const counter = estimate;
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

describe('messageLimit', () => {
  it('keeps the most recent whole turns within the limit, system messages aside', () => {
    const messages = conversation([{}, {}, { system: true }, {}]);
    const compactor = messageLimit({ maxMessages: 4 });
    expect(compactor.shouldCompact({ messages, counter })).toBe(true);
    const result = compactor.compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    expect(ids(result.messages)).toEqual(['sys', 't2-1', 't2-2', 't2-3', 't3-1', 't3-2']);
    expect(result.removed).toEqual({
      count: 4,
      tokens: result.tokensBefore - result.tokensAfter,
      firstId: 't0-1',
      lastId: 't1-2',
    });
    expect(result.reachedTarget).toBe(true);
    expect(result.strategy).toBe('messageLimit');
    expect(compactor.shouldCompact({ messages: result.messages, counter })).toBe(false);
  });

  it('never splits a turn to fill the limit exactly', () => {
    const messages = conversation([{}, { tools: [1] }, {}]);
    // 5 messages allowed: the tool turn (4) plus the last (2) is 6, so only the last turn fits.
    const result = messageLimit({ maxMessages: 5 }).compact({ messages, counter });
    expect(ids(result.messages)).toEqual(['sys', 't2-1', 't2-2']);
  });

  it('keeps the latest turn whole when it alone exceeds the limit (goaitools emptied the history)', () => {
    const messages = conversation([{}, { tools: [3, 2] }]);
    const result = messageLimit({ maxMessages: 2 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    expect(result.messages.length).toBe(messages.length - 2);
    expect(result.messages.filter((m) => m.category !== 'system').length).toBeGreaterThan(2);
    expect(result.reachedTarget).toBe(false);
  });

  it('returns the input itself when within the limit or when there is no turn to cut at', () => {
    const messages = conversation([{}, {}]);
    const within = messageLimit({ maxMessages: 4 }).compact({ messages, counter });
    expect(within.messages).toBe(messages);
    expect(within.compacted).toBe(false);
    expect(within.reachedTarget).toBe(true);
    const noUser = [Message.assistant('a'), Message.assistant('b'), Message.assistant('c')];
    const stuck = messageLimit({ maxMessages: 1 }).compact({ messages: noUser, counter });
    expect(stuck.messages).toBe(noUser);
    expect(stuck.reachedTarget).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN, '3', undefined])('rejects maxMessages %s with INVALID_ARGUMENT', (maxMessages) => {
    expect(() => messageLimit({ maxMessages } as never)).toThrow(ChatstateError);
    try {
      messageLimit({ maxMessages } as never);
    } catch (error) {
      expect((error as ChatstateError).code).toBe('INVALID_ARGUMENT');
      expect((error as Error).message).toContain('maxMessages');
    }
  });

  it('rejects a missing options object', () => {
    expect(() => messageLimit(undefined as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
