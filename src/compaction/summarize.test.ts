import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import { ChatstateError } from '../errors.js';
import { Message } from '../message/message.js';
import type { TokenCounter } from '../tokens/counter.js';
import { isSummary, summarize } from './summarize.js';
import type { Summarizer } from './types.js';

const ten: TokenCounter = { name: 'ten', countText: () => 0, countMessage: () => 10 };
const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

/** A summarizer that records what it was given. */
function recording(): Summarizer & { calls: Array<{ ids: string[]; previousSummary?: string }> } {
  const calls: Array<{ ids: string[]; previousSummary?: string }> = [];
  const summarizer = (messages: readonly Message[], context: { previousSummary?: string }): string => {
    calls.push({
      ids: ids(messages),
      ...(context.previousSummary === undefined ? {} : { previousSummary: context.previousSummary }),
    });
    return `summary #${calls.length}`;
  };
  return Object.assign(summarizer, { calls });
}

describe('summarize', () => {
  it('replaces all but the last keepTurns turns with one context message at their place', async () => {
    const messages = conversation([{ tools: [1] }, { system: true }, {}, {}]);
    const summarizer = recording();
    const compactor = summarize({ summarizer, keepTurns: 2 });
    expect(compactor.shouldCompact({ messages, counter: ten })).toBe(true);
    const result = await compactor.compact({ messages, counter: ten });
    expectInvariants(messages, messages.slice(), result, ten);
    expect(summarizer.calls).toEqual([{ ids: ['t0-1', 't0-2', 't0-3', 't0-4', 't1-1', 't1-3'] }]);
    const summary = result.messages[1] as Message;
    expect(ids(result.messages)).toEqual(['sys', summary.id, 't1-2', 't2-1', 't2-2', 't3-1', 't3-2']);
    expect(summary).toMatchObject({ role: 'system', category: 'context', content: 'summary #1' });
    expect(summary.metadata).toEqual({ summary: true, summarizedCount: 6, firstId: 't0-1', lastId: 't1-3' });
    expect(isSummary(summary)).toBe(true);
    expect(result.added).toEqual([summary]);
    expect(result.removed).toEqual({ count: 6, tokens: 60, firstId: 't0-1', lastId: 't1-3' });
    expect(result.tokensAfter).toBe(result.tokensBefore - 60 + 10);
    expect(compactor.shouldCompact({ messages: result.messages, counter: ten })).toBe(false);
  });

  it('passes the earlier summary as previousSummary and covers what it covered', async () => {
    const summarizer = recording();
    const compactor = summarize({ summarizer, keepTurns: 1 });
    const first = await compactor.compact({ messages: conversation([{}, {}]), counter: ten });
    const grown = [
      ...first.messages,
      Message.user('next', { id: 'u-next' }),
      Message.assistant('ok', { id: 'a-next' }),
    ];
    const second = await compactor.compact({ messages: grown, counter: ten });
    expectInvariants(grown, grown.slice(), second, ten);
    expect(summarizer.calls[1]).toEqual({ ids: ['t1-1', 't1-2'], previousSummary: 'summary #1' });
    const summary = second.messages[1] as Message;
    expect(summary.metadata).toEqual({ summary: true, summarizedCount: 4, firstId: 't0-1', lastId: 't1-2' });
    expect(ids(second.messages)).toEqual(['sys', summary.id, 'u-next', 'a-next']);
  });

  it('summarizes by token budget, keeping at least keepTurns turns', async () => {
    const messages = conversation([{}, {}, {}, {}, {}]);
    const byTokens = await summarize({ summarizer: recording(), maxTokens: 100, targetTokens: 60 }).compact({
      messages,
      counter: ten,
    });
    // Turns 0–2 go (60 tokens), the summary comes in (10): 60 ≤ 60.
    expect(byTokens.tokensAfter).toBe(60);
    expect(byTokens.reachedTarget).toBe(true);
    const floor = await summarize({ summarizer: recording(), maxTokens: 100, targetTokens: 30, keepTurns: 3 }).compact({
      messages,
      counter: ten,
    });
    expect(floor.messages.length).toBe(1 + 1 + 6);
    expect(floor.reachedTarget).toBe(false);
  });

  const failures: Array<[string, Summarizer]> = [
    [
      'throws',
      () => {
        throw new Error('model down');
      },
    ],
    ['rejects', () => Promise.reject(new Error('timeout'))],
    ['returns an empty string', () => ''],
    ['returns whitespace', () => '  \n\t '],
    ['returns a non-string', () => undefined as unknown as string],
  ];

  it.each(failures)('keeps the history unchanged when the summarizer %s', async (_, summarizer) => {
    const messages = conversation([{}, {}, {}]);
    const result = await summarize({ summarizer, keepTurns: 1 }).compact({ messages, counter: ten });
    expect(result.messages).toBe(messages);
    expect(result.compacted).toBe(false);
    expect(result.reachedTarget).toBe(false);
    expect(result.removed.count).toBe(0);
    expect(result.error).toBeInstanceOf(ChatstateError);
    expect(result.error?.code).toBe('SUMMARY_FAILED');
  });

  it('attaches the cause of a thrown or rejected summary', async () => {
    const cause = new Error('rate limited');
    const messages = conversation([{}, {}]);
    const result = await summarize({ summarizer: async () => Promise.reject(cause), keepTurns: 1 }).compact({
      messages,
      counter: ten,
    });
    expect(result.error?.cause).toBe(cause);
    expect(result.error?.message).toContain('rate limited');
  });

  it('does not call the summarizer when there is nothing to summarize', async () => {
    const summarizer = recording();
    const messages = conversation([{}, {}]);
    const result = await summarize({ summarizer, keepTurns: 2 }).compact({ messages, counter: ten });
    expect(result.messages).toBe(messages);
    expect(summarizer.calls).toEqual([]);
  });

  it('requires a summarizer and a budget', () => {
    expect(() => summarize({ keepTurns: 2 } as never)).toThrow(
      expect.objectContaining({ code: 'MISSING_COLLABORATOR', message: expect.stringContaining('summarizer') }),
    );
    expect(() => summarize({ summarizer: 'x', keepTurns: 2 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => summarize({ summarizer: () => 's' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('keepTurns') }),
    );
    expect(() => summarize({ summarizer: () => 's', keepTurns: 2, targetTokens: 5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => summarize({ summarizer: () => 's', keepTurns: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('summarize with a hostile summarizer (review regression)', () => {
  it('reports a summarizer that throws a value String() cannot convert', async () => {
    const messages = conversation([{}, {}, {}]);
    const summarizer = (): string => {
      throw Object.create(null) as unknown;
    };
    const result = await summarize({ summarizer, keepTurns: 1 }).compact({ messages, counter: ten });
    expect(result.error?.code).toBe('SUMMARY_FAILED');
    expect(result.messages).toBe(messages);
  });
});
