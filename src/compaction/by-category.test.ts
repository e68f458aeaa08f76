import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants, toolProblems } from '../../test/support/compaction.js';
import { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/counter.js';
import { byCategory } from './by-category.js';

/** 10 tokens a message, plus 5 for each tool call it makes. */
const counter: TokenCounter = {
  name: 'flat',
  countText: () => 0,
  countMessage: (m) => 10 + 5 * (m.toolCalls?.length ?? 0),
};
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

describe('byCategory', () => {
  it('drops the oldest tool exchanges first, each call with all of its results', () => {
    // sys 10 | turn 0: user, call(2) 20, 2 results, answer = 60 | turn 1: 60 | turn 2: user, answer = 20. Total 150.
    const messages = conversation([{ tools: [2] }, { tools: [2] }, {}]);
    const result = byCategory({ maxTokens: 140, targetTokens: 120 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    // Dropping turn 0's exchange (call 20 + results 20) is enough: 110 ≤ 120.
    expect(ids(result.messages)).toEqual([
      'sys',
      't0-1',
      't0-5',
      't1-1',
      't1-2',
      't1-3',
      't1-4',
      't1-5',
      't2-1',
      't2-2',
    ]);
    expect(result.tokensAfter).toBe(110);
    expect(result.modified.count).toBe(0);
  });

  it('keeps the text of an assistant message whose calls it drops, under the same id', () => {
    const messages = conversation([{ tools: [1], callText: 'Let me look that up.' }, {}]);
    const result = byCategory({ maxTokens: 60, targetTokens: 60 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    const kept = result.messages.find((m) => m.id === 't0-2') as Message;
    expect(kept.toolCalls).toBeUndefined();
    expect(Message.text(kept)).toBe('Let me look that up.');
    expect(result.modified).toEqual({ count: 1, tokensSaved: 5 });
    expect(result.removed).toMatchObject({ count: 1, tokens: 10, firstId: 't0-3', lastId: 't0-3' });
    expect(toolProblems(result.messages)).toEqual([]);
  });

  it('then drops the oldest dialog turns, keeping their context', () => {
    const messages = conversation([{ context: true }, {}, {}]);
    const result = byCategory({ maxTokens: 60, targetTokens: 50 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    expect(ids(result.messages)).toEqual(['sys', 't0-1', 't2-1', 't2-2']);
    expect(result.reachedTarget).toBe(true);
  });

  it('drops context last, and only what the budget needs', () => {
    const messages = conversation([{ context: true }, { context: true }, {}]);
    const result = byCategory({ maxTokens: 40, targetTokens: 40 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    // t0-1 comes before the first user message: it is the preamble, pinned like the system prompt.
    expect(ids(result.messages)).toEqual(['sys', 't0-1', 't2-1', 't2-2']);
    expect(result.reachedTarget).toBe(true);
  });

  it('follows a custom order', () => {
    const messages = conversation([{}, { context: true, tools: [1] }, {}]);
    const total = messages.reduce((sum, m) => sum + counter.countMessage(m), 0);
    const contextTokens = counter.countMessage(messages.find((m) => m.id === 't1-1') as Message);
    const result = byCategory({
      maxTokens: total - 1,
      targetTokens: total - contextTokens,
      order: ['context'],
    }).compact({ messages, counter });
    expect(ids(result.messages)).toEqual(ids(messages).filter((id) => id !== 't1-1'));
  });

  it('never touches the latest turn, even when it alone is over budget', () => {
    const messages = conversation([{}, { tools: [3, 3] }]);
    const result = byCategory({ maxTokens: 20 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    expect(ids(result.messages)).toEqual(ids([messages[0] as Message, ...messages.slice(3)]));
    expect(result.reachedTarget).toBe(false);
  });

  it('starts the kept dialog at a user message once it drops anything', () => {
    const messages = [
      Message.system('rules', { id: 's' }),
      Message.assistant('Hi! Ask me anything.', { id: 'greeting' }),
      ...conversation([{ tools: [1] }, {}], { system: false }),
    ];
    const result = byCategory({ maxTokens: 60, targetTokens: 60 }).compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    expect(result.messages.map((m) => m.id)).not.toContain('greeting');
  });

  it('returns the input itself when within budget', () => {
    const messages = conversation([{}, {}]);
    const compactor = byCategory({ maxTokens: 80 });
    expect(compactor.shouldCompact({ messages, counter })).toBe(false);
    expect(compactor.compact({ messages, counter }).messages).toBe(messages);
    // At the limit the trigger holds back, but a direct call compacts to the target (75%).
    expect(byCategory({ maxTokens: 50 }).shouldCompact({ messages, counter })).toBe(false);
    expect(byCategory({ maxTokens: 50 }).compact({ messages, counter }).tokensAfter).toBe(30);
  });

  it.each([[[]], [['system']], [['dialog', 'dialog']], ['dialog']])(
    'rejects order %o with INVALID_ARGUMENT',
    (order) => {
      expect(() => byCategory({ maxTokens: 10, order } as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('order') }),
      );
    },
  );
});
