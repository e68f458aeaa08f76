import { describe, expect, it } from 'vitest';
import { conversation, expectInvariants } from '../../test/support/compaction.js';
import { Message } from '../message/message.js';
import { createCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';
import { truncateToolOutputs } from './truncate-tool-outputs.js';

const words = createCounter({ name: 'words', countText: (text) => text.split(/\s+/).filter(Boolean).length });

function history(outputWords: number): Message[] {
  const output = Array.from({ length: outputWords }, (_, i) => `w${i}`).join(' ');
  return [
    Message.system('rules', { id: 's' }),
    Message.user('read the log', { id: 'u1' }),
    Message.assistant('', { id: 'a1', toolCalls: [{ id: 'c1', name: 'read' }] }),
    Message.tool('c1', output, { id: 'r1', name: 'read' }),
    Message.assistant('It is long.', { id: 'a2' }),
    Message.user('and the other one?', { id: 'u2' }),
    Message.assistant('', { id: 'a3', toolCalls: [{ id: 'c2', name: 'read' }] }),
    Message.tool('c2', output, { id: 'r2', name: 'read' }),
    Message.assistant('Also long.', { id: 'a4' }),
  ];
}

describe('truncateToolOutputs', () => {
  it('keeps the head and tail of long results around a marker, under the same id', () => {
    const messages = history(200);
    const compactor = truncateToolOutputs({ maxTokens: 50 });
    expect(compactor.shouldCompact({ messages, counter: words })).toBe(true);
    const result = compactor.compact({ messages, counter: words });
    expectInvariants(messages, messages.slice(), result, words);
    const truncated = result.messages[3] as Message;
    expect(truncated.id).toBe('r1');
    expect(truncated.toolCallId).toBe('c1');
    const text = Message.text(truncated);
    expect(text.startsWith('w0 w1 w2')).toBe(true);
    expect(text.endsWith('w198 w199')).toBe(true);
    expect(text).toMatch(/\[… \d+ tokens truncated …\]/);
    expect(words.countMessage(truncated)).toBeLessThanOrEqual(50);
    expect(truncated.metadata.truncated).toEqual({ originalTokens: 200, maxTokens: 50 });
    expect(result.modified.count).toBe(1);
    expect(result.modified.tokensSaved).toBe(
      words.countMessage(messages[3] as Message) - words.countMessage(truncated),
    );
    expect(result.removed.count).toBe(0);
    // The latest turn's result is what the model works with now: untouched.
    expect(result.messages[7]).toBe(messages[7]);
    expect(result.reachedTarget).toBe(true);
  });

  it('leaves its own output alone, and shortens it again for a smaller limit', () => {
    const messages = history(200);
    const first = truncateToolOutputs({ maxTokens: 50 }).compact({ messages, counter: words });
    const again = truncateToolOutputs({ maxTokens: 50 });
    expect(again.shouldCompact({ messages: first.messages, counter: words })).toBe(false);
    expect(again.compact({ messages: first.messages, counter: words }).messages).toBe(first.messages);
    const smaller = truncateToolOutputs({ maxTokens: 30 }).compact({ messages: first.messages, counter: words });
    const shorter = smaller.messages[3] as Message;
    expect(words.countMessage(shorter)).toBeLessThanOrEqual(30);
    expect(shorter.metadata.truncated).toEqual({ originalTokens: 200, maxTokens: 30 });
  });

  it('truncates the latest turn too with keepRecentTurns: 0, and protects more turns on request', () => {
    const messages = history(200);
    const all = truncateToolOutputs({ maxTokens: 50, keepRecentTurns: 0 }).compact({ messages, counter: words });
    expect(all.modified.count).toBe(2);
    const none = truncateToolOutputs({ maxTokens: 50, keepRecentTurns: 2 }).compact({ messages, counter: words });
    expect(none.compacted).toBe(false);
    expect(none.messages).toBe(messages);
  });

  it('accepts a marker template or function', () => {
    const messages = history(200);
    const template = truncateToolOutputs({ maxTokens: 50, marker: '<<{tokens} cut>>' }).compact({
      messages,
      counter: words,
    });
    expect(Message.text(template.messages[3] as Message)).toMatch(/<<\d+ cut>>/);
    const fn = truncateToolOutputs({ maxTokens: 50, marker: (n) => `(${n} omitted)` }).compact({
      messages,
      counter: words,
    });
    expect(Message.text(fn.messages[3] as Message)).toMatch(/\(\d+ omitted\)/);
  });

  it('keeps non-text parts and forgets a cached token count of the old content', () => {
    const long = 'lorem ipsum '.repeat(400);
    const messages = [
      Message.user('screenshot please', { id: 'u1' }),
      Message.assistant('', { id: 'a1', toolCalls: [{ id: 'c1', name: 'shot' }] }),
      Message.tool(
        'c1',
        [
          { type: 'text', text: long },
          { type: 'image', url: 'https://example.test/s.png', detail: 'low' },
        ],
        {
          id: 'r1',
          tokens: { estimate: 9999 },
        },
      ),
      Message.assistant('done', { id: 'a2' }),
      Message.user('thanks', { id: 'u2' }),
      Message.assistant('welcome', { id: 'a3' }),
    ];
    const result = truncateToolOutputs({ maxTokens: 300 }).compact({ messages, counter: estimate });
    const truncated = result.messages[2] as Message;
    expect(Array.isArray(truncated.content)).toBe(true);
    expect((truncated.content as readonly { type: string }[]).map((part) => part.type)).toEqual(['text', 'image']);
    expect(truncated.tokens).toBeUndefined();
    expect(estimate.countMessage(truncated)).toBeLessThanOrEqual(300);
  });

  it('does nothing to short results', () => {
    const messages = conversation([{ tools: [2] }, {}]);
    const result = truncateToolOutputs({ maxTokens: 100 }).compact({ messages, counter: words });
    expect(result.messages).toBe(messages);
  });

  it.each([
    [{ maxTokens: 0 }, 'maxTokens'],
    [{ maxTokens: 10, keepRecentTurns: -1 }, 'keepRecentTurns'],
    [{ maxTokens: 10, marker: '' }, 'marker'],
    [{ maxTokens: 10, marker: 3 }, 'marker'],
  ])('rejects %o with INVALID_ARGUMENT naming %s', (options, option) => {
    expect(() => truncateToolOutputs(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(option) }),
    );
  });
});

describe('truncateToolOutputs without a turn boundary (review regression)', () => {
  it('leaves the latest turn alone when no cut point exists', () => {
    const huge = 'data '.repeat(2000);
    const noUser = [
      Message.system('sys'),
      Message.assistant('', { toolCalls: [{ id: 'c1', name: 'read', arguments: {} }] }),
      Message.tool('c1', huge),
    ];
    // The only user message sits inside the tool exchange, so it starts no turn: everything is the latest turn.
    const interjected = [
      Message.assistant('', { toolCalls: [{ id: 'c2', name: 'read', arguments: {} }] }),
      Message.user('wait, also this'),
      Message.tool('c2', huge),
    ];
    for (const messages of [noUser, interjected]) {
      const compactor = truncateToolOutputs({ maxTokens: 50 });
      expect(compactor.shouldCompact({ messages, counter: estimate })).toBe(false);
      expect(compactor.compact({ messages, counter: estimate }).compacted).toBe(false);
      expect(
        truncateToolOutputs({ maxTokens: 50, keepRecentTurns: 0 }).compact({ messages, counter: estimate }).compacted,
      ).toBe(true);
    }
  });
});
