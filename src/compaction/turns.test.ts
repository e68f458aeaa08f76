import { describe, expect, it } from 'vitest';
import { conversation } from '../../test/support/compaction.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/counter.js';
import { estimate } from '../tokens/estimate.js';
import { tokenLimit } from './token-limit.js';
import { advanceToFirstUserMessage, countMessages, findTurns } from './turns.js';

const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);

/** A counter that counts its own calls (marked as caching, so nothing wraps it). */
function spyCounter(): TokenCounter & { calls: number } {
  const counter = {
    name: 'spy',
    calls: 0,
    countText: (text: string) => text.length,
    countMessage(message: Message): number {
      counter.calls += 1;
      return 1 + Message.text(message).length;
    },
    [Symbol.for('chatstate.cachedCounter')]: true,
  };
  return counter;
}

describe('findTurns', () => {
  it('pins system messages and cuts at user messages, with the context right before them', () => {
    const messages = conversation([{}, { context: true, system: true }, { tools: [2] }]);
    const counts = new Float64Array(messages.length).fill(1);
    const turns = findTurns(messages, counts);
    expect(ids(messages)).toEqual([
      'sys',
      't0-1',
      't0-2',
      't1-1',
      't1-2',
      't1-3',
      't1-4',
      't2-1',
      't2-2',
      't2-3',
      't2-4',
      't2-5',
    ]);
    // The system prompt runs into the first user message: cutting there drops nothing.
    expect(Array.from(turns.cuts)).toEqual([0, 3, 7]);
    expect(Array.from(turns.cutMessages)).toEqual([0, 2, 5]);
    expect(Array.from(turns.cutTokens)).toEqual([0, 2, 5]);
    expect(turns.pinnedCount).toBe(2);
    expect(turns.pinned[0]).toBe(1);
    expect(turns.pinned[5]).toBe(1);
    expect(turns.lastUser).toBe(7);
    expect(turns.total).toBe(messages.length);
    expect(turns.droppableTokens).toBe(messages.length - 2);
  });

  it('never cuts inside a tool exchange, whatever the order of the results', () => {
    const call = Message.assistant('', {
      id: 'a1',
      toolCalls: [
        { id: 'c1', name: 'f' },
        { id: 'c2', name: 'f' },
      ],
    });
    const messages = [
      Message.user('q1', { id: 'u1' }),
      call,
      Message.tool('c2', 'r2', { id: 'r2' }),
      // A user message inside an exchange (a result still outstanding) is not a turn boundary.
      Message.user('interjection', { id: 'u2' }),
      Message.tool('c1', 'r1', { id: 'r1' }),
      Message.assistant('done', { id: 'a2' }),
      Message.user('q3', { id: 'u3' }),
    ];
    const turns = findTurns(messages, new Float64Array(messages.length));
    expect(Array.from(turns.cuts)).toEqual([0, 6]);
  });

  it('finds the call of a result that answers an older assistant message', () => {
    const messages = [
      Message.user('q', { id: 'u1' }),
      Message.assistant('', { id: 'a1', toolCalls: [{ id: 'old', name: 'f' }] }),
      Message.assistant('', { id: 'a2', toolCalls: [{ id: 'new', name: 'f' }] }),
      Message.tool('new', 'r', { id: 'r-new' }),
      Message.user('q2', { id: 'u2' }),
      Message.tool('old', 'r', { id: 'r-old' }),
      Message.user('q3', { id: 'u3' }),
    ];
    const turns = findTurns(messages, new Float64Array(messages.length));
    expect(Array.from(turns.cuts)).toEqual([0, 6]);
  });

  it('keeps the results of a pinned (system-category) call pinned with it', () => {
    const messages = [
      Message.user('q', { id: 'u1' }),
      Message.assistant('', { id: 'a1', category: 'system', toolCalls: [{ id: 'c', name: 'f' }] }),
      Message.tool('c', 'r', { id: 'r' }),
      Message.user('q2', { id: 'u2' }),
    ];
    const turns = findTurns(messages, new Float64Array(messages.length));
    expect(Array.from(turns.pinned)).toEqual([0, 1, 1, 0]);
  });
});

describe('countMessages', () => {
  it('counts each message once and remembers the counts of a frozen history', () => {
    const counter = spyCounter();
    const messages = Object.freeze(conversation([{}, {}]));
    const first = countMessages(messages, counter);
    expect(counter.calls).toBe(messages.length);
    expect(countMessages(messages, counter)).toBe(first);
    expect(counter.calls).toBe(messages.length);
    // A mutable array could change between two calls: it is counted again.
    countMessages(messages.slice(), counter);
    expect(counter.calls).toBe(2 * messages.length);
  });

  it('reads each count once per compaction, trigger included', () => {
    const counter = spyCounter();
    const session = Session.create({ messages: conversation([{ tools: [1] }, {}, {}, {}]) });
    const { result } = session.compact(tokenLimit({ maxTokens: 60, targetTokens: 30 }), { counter });
    expect(result?.compacted).toBe(true);
    expect(counter.calls).toBe(session.messages.length);
  });

  it('counts only the appended message when compacting again (the counter caches per message)', () => {
    let calls = 0;
    // A plain counter without a cache: compaction wraps it in one.
    const counter: TokenCounter = {
      name: 'plain',
      countText: (text) => text.length,
      countMessage: (message) => {
        calls += 1;
        return estimate.countMessage(message);
      },
    };
    const compactor = tokenLimit({ maxTokens: 100_000 });
    let session = Session.create({ messages: conversation([{ tools: [2] }, {}, { tools: [1, 1] }]) });
    session.compact(compactor, { counter, force: true });
    expect(calls).toBe(session.messages.length);
    session = session.append(Message.user('one more question'));
    session.compact(compactor, { counter, force: true });
    expect(calls).toBe(session.messages.length);
  });
});

describe('advanceToFirstUserMessage', () => {
  it('drops what precedes the first user message but keeps system messages', () => {
    const messages = [
      Message.system('rules', { id: 's' }),
      Message.assistant('hello, how can I help?', { id: 'greeting' }),
      Message.user('hi', { id: 'u' }),
      Message.assistant('hey', { id: 'a' }),
    ];
    expect(ids(advanceToFirstUserMessage(messages))).toEqual(['s', 'u', 'a']);
  });

  it('returns the input itself when it already starts at a user turn, and only system messages without one', () => {
    const messages = conversation([{}]);
    expect(advanceToFirstUserMessage(messages)).toBe(messages);
    const noUser = [Message.system('s', { id: 's' }), Message.assistant('x', { id: 'a' })];
    expect(ids(advanceToFirstUserMessage(noUser))).toEqual(['s']);
  });
});

describe('the preamble', () => {
  it('pins leading system-role messages (context included) but not a leading summary', () => {
    const messages = [
      Message.system('rules', { id: 's' }),
      Message.context('policy', { id: 'policy' }),
      Message.context('earlier talk, summarized', { id: 'summary', metadata: { summary: true } }),
      Message.user('q1', { id: 'u1' }),
      Message.assistant('a1', { id: 'a1' }),
      Message.context('retrieved for q2', { id: 'ctx2' }),
      Message.user('q2', { id: 'u2' }),
      Message.assistant('a2', { id: 'a2' }),
    ];
    const turns = findTurns(messages, new Float64Array(messages.length));
    expect(Array.from(turns.pinned)).toEqual([1, 1, 0, 0, 0, 0, 0, 0]);
    const kept = tokenLimit({ maxTokens: 1, targetTokens: 1 }).compact({ messages, counter: estimate }).messages;
    expect(ids(kept)).toEqual(['s', 'policy', 'ctx2', 'u2', 'a2']);
  });
});
