import { describe, expect, it } from 'vitest';
import type { ChatstateError } from '../errors.js';
import { compaction } from '../compaction/index.js';
import { Message } from '../message/message.js';
import { storedAt } from '../message/message.js';
import { estimate } from '../tokens/estimate.js';
import { compactionLog } from './compaction-log.js';
import { Session } from './session.js';
import { MAX_TIMELINE_POINTS, tokenTimeline } from './timeline.js';

function turn(i: number, tools = 0): Message[] {
  const calls = Array.from({ length: tools }, (_, k) => ({ id: `c${i}_${k}`, name: 'lookup', arguments: { k } }));
  return [
    Message.user(`question ${i} `.repeat(10)),
    ...(tools === 0
      ? []
      : [
          Message.assistant('', { toolCalls: calls }),
          ...calls.map((call) => Message.tool(call.id, 'result '.repeat(200), { name: 'lookup' })),
        ]),
    Message.assistant(`answer ${i} `.repeat(10)),
  ];
}

/** `messages` as a store gives them back: numbered from `first`. */
function numbered(messages: readonly Message[], first = 1): Message[] {
  return messages.map((message, i) => storedAt(message, first + i));
}

describe('tokenTimeline', () => {
  it('gives the context at the end of each turn by category, the preamble in the first turn', () => {
    const session = Session.create({ messages: [Message.system('rules'), ...turn(0), ...turn(1, 2)] });
    const timeline = tokenTimeline(session.history, session.metadata, { counter: estimate });
    expect(timeline.turnCount).toBe(2);
    expect(timeline.points.map((point) => point.index)).toEqual([0, 3]);
    expect(timeline.points[0]?.messages).toBe(3);
    const last = timeline.points.at(-1);
    expect(last?.tokens.system).toBe(estimate.countMessage(session.messages[0] as Message));
    const total = Object.values(last?.tokens ?? {}).reduce((sum, value) => sum + value, 0);
    expect(total).toBe(session.tokenCount());
    expect(last).toMatchObject({ toolCalls: 2, messages: 5 });
    expect(timeline.toolHeavy.map((heavy) => heavy.turn)).toEqual([1]);
  });

  it('marks a logged compaction with its tokens before and after, and shows the context it had', () => {
    let session = Session.create({ messages: [Message.system('rules')] });
    for (let i = 0; i < 8; i++) session = session.append(...turn(i));
    const before = session.tokenCount();
    session = session.compact(compaction.slidingWindow({ turns: 2 })).session;
    session = session.append(...turn(8));
    const timeline = tokenTimeline(session.history, session.metadata, { counter: estimate });
    const [mark] = timeline.marks;
    expect(mark).toMatchObject({ kind: 'compaction', strategy: 'slidingWindow', tokensBefore: before });
    expect(mark?.tokensAfter).toBeLessThan(before);
    // The turn that ended where the compaction ran held the whole context then.
    const at = timeline.points.find((point) => point.turn === mark?.turn);
    expect(Object.values(at?.tokens ?? {}).reduce((sum, value) => sum + value, 0)).toBe(before);
    // After it, the context is what the session holds.
    const now = timeline.points.at(-1);
    expect(Object.values(now?.tokens ?? {}).reduce((sum, value) => sum + value, 0)).toBe(session.tokenCount());
  });

  it('keeps each compaction’s before and after points by sequence number, also once its messages are gone', () => {
    let seq = 0;
    const stored = (messages: readonly Message[]): Message[] => messages.map((message) => storedAt(message, ++seq));
    let session = Session.create({ messages: stored([Message.system('rules')]) });
    for (let i = 0; i < 6; i++) session = session.append(...stored(turn(i)));
    const firstCut = seq;
    session = session.compact(compaction.slidingWindow({ turns: 1 })).session;
    for (let i = 6; i < 12; i++) session = session.append(...stored(turn(i)));
    session = session.compact(compaction.slidingWindow({ turns: 1 })).session;
    const timeline = tokenTimeline(session.history, session.metadata, { counter: estimate });
    const [first, second] = compactionLog(session.metadata);
    expect(first?.afterSeq).toBe(firstCut);
    const around = timeline.points.filter((point) => point.kind !== 'turn');
    expect(around.map((point) => [point.kind, point.x])).toEqual([
      ['before-compaction', firstCut],
      ['after-compaction', firstCut + 0.5],
      ['after-compaction', seq + 0.5],
    ]);
    const sum = (tokens: Record<string, number>): number => Object.values(tokens).reduce((a, b) => a + b, 0);
    expect(sum(around[0]?.tokens ?? {})).toBe(first?.tokensBefore.total);
    expect(sum(around[1]?.tokens ?? {})).toBe(first?.tokensAfter.total);
    // The turn the second compaction ended is still held: it shows the context before it.
    expect(sum(timeline.points.find((point) => point.x === seq)?.tokens ?? {})).toBe(second?.tokensBefore.total);
    expect(timeline.points.map((point) => point.x)).toEqual(
      [...timeline.points.map((point) => point.x)].sort((a, b) => a - b),
    );
  });

  it('marks summaries, and gaps in the sequence numbers when no log explains them', () => {
    const messages = numbered([Message.system('rules'), ...turn(0), ...turn(1), ...turn(2)]);
    // Turn 0 (seq 2 and 3) cut by hand: a gap.
    const cut = tokenTimeline([messages[0] as Message, ...messages.slice(3)], {}, { counter: estimate });
    expect(cut.marks).toEqual([{ kind: 'cut', x: 1.5, turn: 0, index: 0, removedMessages: 2 }]);
    expect(cut.seqRuns).toEqual([
      [1, 1],
      [4, 4],
    ]);
    // Summarized as a store keeps it: the summary takes the next number, what follows is renumbered after it.
    const summary = storedAt(Message.context('summary', { metadata: { summary: true, summarizedCount: 2 } }), 8);
    const rest = messages.slice(3).map((message, i) => storedAt(message, 9 + i));
    const summarized = tokenTimeline([messages[0] as Message, summary, ...rest], {}, { counter: estimate });
    expect(summarized.marks).toEqual([{ kind: 'summary', x: 8, turn: 0, index: 1, removedMessages: 2 }]);
    expect(summarized.seqRuns).toEqual([
      [1, 1],
      [8, 5],
    ]);
  });

  it('downsamples many turns to the points asked for, keeping each span’s peak and the newest turn', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 1000; i++) messages.push(...turn(i));
    const timeline = tokenTimeline(numbered(messages), {}, { counter: estimate, maxPoints: 100 });
    expect(timeline.turnCount).toBe(1000);
    expect(timeline.points).toHaveLength(100);
    expect(timeline.downsampled).toBe(true);
    expect(timeline.points.at(-1)?.turn).toBe(999);
    expect(timeline.seqRuns).toEqual([[1, 2000]]);
  });

  it('gives each turn the usage of its replies’ calls, none for a turn without, none for a compaction', () => {
    const reply = (text: string, inputTokens: number, cachedInputTokens?: number): Message =>
      Message.assistant(text, {
        metadata: {
          usage: { model: 'm', inputTokens, outputTokens: 5, ...(cachedInputTokens ? { cachedInputTokens } : {}) },
        },
      });
    let session = Session.create({ messages: [Message.system('rules')] });
    session = session.append(Message.user('first'), reply('calling', 1000), reply('done', 1200, 900));
    session = session.append(Message.user('second'), Message.assistant('no usage kept'));
    // Usage on a user message is not a call's: it is not read.
    session = session.append(
      Message.user('third', { metadata: { usage: { inputTokens: 50 } } }),
      reply('cached', 2000, 1800),
    );
    session = session.compact(compaction.slidingWindow({ turns: 2 }), { force: true }).session;
    session = session.append(Message.user('fourth'), reply('after', 400, 0));
    const timeline = tokenTimeline(session.history, session.metadata, { counter: estimate });
    const turns = timeline.points.filter((point) => point.kind === 'turn');
    expect(turns.map((point) => point.usage)).toEqual([
      undefined,
      { calls: 1, inputTokens: 2000, cachedInputTokens: 1800 },
      { calls: 1, inputTokens: 400, cachedInputTokens: 0 },
    ]);
    expect(turns[0]).not.toHaveProperty('usage');
    const compacted = timeline.points.filter((point) => point.kind !== 'turn');
    expect(compacted.length).toBeGreaterThan(0);
    for (const point of compacted) expect(point).not.toHaveProperty('usage');
    // Before the compaction: the first turn, its two calls summed.
    const whole = tokenTimeline(
      [Message.user('first'), reply('calling', 1000), reply('done', 1200, 900)],
      {},
      { counter: estimate },
    );
    expect(whole.points[0]?.usage).toEqual({ calls: 2, inputTokens: 2200, cachedInputTokens: 900 });
  });

  it('gives a downsampled point the usage of its whole bucket, not of the turn it keeps', () => {
    /** Turns whose reply has usage (100 input tokens, `i` cached) when `measured(i)`. */
    const turns = (count: number, measured: (i: number) => boolean): Message[] =>
      Array.from({ length: count }, (_, i) => [
        Message.user(`question ${i}`),
        Message.assistant(
          `answer ${i}`,
          measured(i) ? { metadata: { usage: { inputTokens: 100, cachedInputTokens: i } } } : {},
        ),
      ]).flat();
    // Buckets of 4 turns (0–3, 4–7, 8–9), each keeping its peak (its last: the context only grows); every third turn without usage.
    const timeline = tokenTimeline(numbered(turns(10, (i) => i % 3 !== 2)), {}, { counter: estimate, maxPoints: 3 });
    expect(timeline.downsampled).toBe(true);
    expect(timeline.points.map((point) => [point.turn, point.usage])).toEqual([
      [3, { calls: 3, inputTokens: 300, cachedInputTokens: 0 + 1 + 3 }],
      [7, { calls: 3, inputTokens: 300, cachedInputTokens: 4 + 6 + 7 }],
      [9, { calls: 1, inputTokens: 100, cachedInputTokens: 9 }],
    ]);
    // A bucket none of whose turns has usage carries none.
    const early = tokenTimeline(numbered(turns(4, (i) => i < 2)), {}, { counter: estimate, maxPoints: 2 });
    expect(early.points.map((point) => point.usage)).toEqual([
      { calls: 2, inputTokens: 200, cachedInputTokens: 1 },
      undefined,
    ]);
    expect(early.points[1]).not.toHaveProperty('usage');
  });

  it.each([0, MAX_TIMELINE_POINTS + 1, 1.5])('refuses maxPoints %s with INVALID_ARGUMENT', (maxPoints) => {
    expect(() => tokenTimeline([], {}, { counter: estimate, maxPoints })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as ChatstateError,
    );
  });
});
