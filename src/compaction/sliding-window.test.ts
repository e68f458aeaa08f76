import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import type { Message } from '../message/message.js';
import { estimate } from '../tokens/estimate.js';
import { slidingWindow } from './sliding-window.js';

const counter = estimate;
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

describe('slidingWindow', () => {
  it('keeps the last N turns, each with the context that introduces it', () => {
    const messages = conversation([{ tools: [2] }, { context: true }, { context: true, tools: [1] }]);
    const compactor = slidingWindow({ turns: 2 });
    expect(compactor.shouldCompact({ messages, counter })).toBe(true);
    const result = compactor.compact({ messages, counter });
    expectInvariants(messages, messages.slice(), result, counter);
    expect(ids(result.messages)).toEqual(['sys', 't1-1', 't1-2', 't1-3', 't2-1', 't2-2', 't2-3', 't2-4', 't2-5']);
    expect(result.removed.count).toBe(5);
    expect(result.strategy).toBe('slidingWindow');
  });

  it('does nothing with N turns or fewer', () => {
    const messages = conversation([{}, {}]);
    const compactor = slidingWindow({ turns: 2 });
    expect(compactor.shouldCompact({ messages, counter })).toBe(false);
    const result = compactor.compact({ messages, counter });
    expect(result.messages).toBe(messages);
    expect(result.compacted).toBe(false);
  });

  it('rejects a non-positive number of turns', () => {
    expect(() => slidingWindow({ turns: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
