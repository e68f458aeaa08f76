/**
 * The context window: what the model is sent of a long history — within the budget, whole turns,
 * system messages kept, tool exchanges whole, the latest turn always — while the store keeps all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Conversation } from '../../src/runtime/conversation.js';
import { contextWindow, continueHistory, steppedWindow } from '../../src/runtime/context-window.js';
import { Session } from '../../src/session/session.js';
import { memoryStore } from '../../src/stores/memory.js';
import { estimate } from '../../src/tokens/estimate.js';
import { historyArb } from '../support/arbitraries.js';
import { conversation, lastUserIndex, tokensOf, toolProblems } from '../support/compaction.js';
import { say, scriptedModel } from '../support/scripted-model.js';
import { closeAfterTest } from './fixtures.js';

/** Checks what a window must be for `history`: an in-order subsequence keeping the invariants. */
function expectValidWindow(history: readonly Message[], view: readonly Message[]): void {
  const position = new Map(history.map((message, i) => [message.id, i]));
  let previous = -1;
  for (const message of view) {
    const at = position.get(message.id) as number;
    expect(at).toBeGreaterThan(previous);
    previous = at;
  }
  expect(toolProblems(view)).toEqual([]);
  const kept = new Set(view.map((message) => message.id));
  for (const message of history)
    if (message.category === 'system') expect(kept.has(message.id), `system message ${message.id} kept`).toBe(true);
  // The latest turn is whole: everything from the last user message on.
  const last = lastUserIndex(history);
  if (last >= 0) for (const message of history.slice(last)) expect(kept.has(message.id)).toBe(true);
}

describe('contextWindow', () => {
  it('sends everything when it fits', () => {
    const history = conversation([{}, { tools: [2] }]);
    const view = contextWindow(history, [], 10_000, estimate);
    expect(view.full).toBe(true);
    expect(view.messages.map((message) => message.id)).toEqual(history.map((message) => message.id));
  });

  it('keeps the preamble, system notes and the newest whole turns within the budget', () => {
    const history = conversation(
      Array.from({ length: 60 }, (_, t) => ({ tools: t % 3 === 0 ? [2] : [], system: t === 5 })),
    );
    const added = [Message.user('the new question', { id: 'new' })];
    const budget = 400;
    const view = contextWindow(history, added, budget, estimate);
    expect(view.full).toBe(false);
    expect(view.messages[0]?.id).toBe('sys');
    expect(view.messages.some((message) => message.id === 't5-2')).toBe(true);
    expect(view.messages.at(-1)?.id).toBe('new');
    expect(tokensOf(view.messages, estimate)).toBeLessThanOrEqual(budget);
    expectValidWindow([...history, ...added], view.messages);
    // The first dialog message after the pinned ones starts a turn.
    const firstDialog = view.messages.find((message) => message.category !== 'system');
    expect(firstDialog?.role).toBe('user');
    // Nearly the whole budget is used: no turn that fits was left out.
    expect(tokensOf(view.messages, estimate)).toBeGreaterThan(budget - 60);
  });

  it('keeps the latest turn whole even when it alone is over the budget', () => {
    const history = conversation([{}, {}, { tools: [3, 3], outputWords: 200 }]);
    const view = contextWindow(history, [], 100, estimate);
    expect(view.full).toBe(false);
    expect(view.messages.map((message) => message.id)).toEqual([
      'sys',
      ...history.slice(lastUserIndex(history)).map((message) => message.id),
    ]);
    expect(toolProblems(view.messages)).toEqual([]);
  });

  it('keeps its invariants on any valid history and budget', () => {
    fc.assert(
      fc.property(
        historyArb({ maxTurns: 12 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 3 }),
        (messages, budget, split) => {
          // The turn in flight may be part of `added`: split the history anywhere near its end.
          const cut = Math.max(0, messages.length - split);
          const view = contextWindow(messages.slice(0, cut), messages.slice(cut), budget, estimate);
          expectValidWindow(messages, view.messages);
          if (view.full) expect(view.messages).toHaveLength(messages.length);
        },
      ),
      { numRuns: 300 },
    );
  });
  it('gives the same window for a history continued from an earlier scan as for a fresh one', () => {
    fc.assert(
      fc.property(historyArb({ maxTurns: 10 }), fc.nat(), fc.integer({ min: 1, max: 2000 }), (messages, at, budget) => {
        const cut = at % (messages.length + 1);
        const earlier = Object.freeze(messages.slice(0, cut));
        const later = Object.freeze(messages.slice());
        contextWindow(earlier, [], budget, estimate);
        continueHistory(earlier, later);
        const continued = contextWindow(later, [], budget, estimate);
        // A copy that is not frozen is never cached: scanned from scratch.
        const fresh = contextWindow(messages.slice(), [], budget, estimate);
        expect(continued.messages.map((message) => message.id)).toEqual(fresh.messages.map((message) => message.id));
      }),
      { numRuns: 200 },
    );
  });

  it('gives fresh-scan windows along a chain of continued histories, also where two branch off one', () => {
    fc.assert(
      fc.property(
        historyArb({ maxTurns: 10 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 1, max: 2000 }),
        (messages, cuts, branchAt, budget) => {
          // Histories of growing length, each continuing the previous one (the scans share their facts).
          const lengths = [...cuts.map((cut) => cut % (messages.length + 1)), messages.length].sort((a, b) => a - b);
          const chain = lengths.map((length) => Object.freeze(messages.slice(0, length)));
          const windowIds = (history: readonly Message[]): string[] =>
            contextWindow(history, [], budget, estimate).messages.map((message) => message.id);
          windowIds(chain[0] as readonly Message[]);
          for (let i = 1; i < chain.length; i++)
            continueHistory(chain[i - 1] as readonly Message[], chain[i] as readonly Message[]);
          // A branch: the first history continued by another history than the chain's next one.
          const base = chain[0] as readonly Message[];
          const extra = conversation([{}, { tools: [1] }], { system: false }).map((message, i) =>
            Message.user(`branch ${i}`, { id: `branch-${branchAt}-${i}` }),
          );
          const branch = Object.freeze([...base, ...extra.slice(0, 1 + (branchAt % extra.length))]);
          continueHistory(base, branch);
          for (const history of [...chain, branch])
            expect(windowIds(history)).toEqual(
              contextWindow(history.slice(), [], budget, estimate).messages.map((message) => message.id),
            );
          // Counted with another counter, the same facts still give that counter's window.
          const doubled = { ...estimate, countMessage: (message: Message) => 2 * estimate.countMessage(message) };
          const last = chain.at(-1) as readonly Message[];
          expect(contextWindow(last, [], budget, doubled).messages.map((message) => message.id)).toEqual(
            contextWindow(last.slice(), [], budget, doubled).messages.map((message) => message.id),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('Conversation with a context window', () => {
  it('sends the model a window of a long session and stores every message', async () => {
    const store = memoryStore();
    const history = conversation(
      Array.from({ length: 500 }, () => ({})),
      { system: false },
    );
    await store.save(Session.create({ id: 'long', messages: history }).withUsage({ inputTokens: 9000 }));
    const model = scriptedModel([say('short answer', { inputTokens: 300, outputTokens: 2 })]);
    const chat = closeAfterTest(new Conversation({ store, agents: { id: 'a', model }, contextWindow: 300 }));
    const result = await chat.send('long', 'latest question');
    const sent = model.requests[0]?.messages ?? [];
    expect(sent.length).toBeLessThan(100);
    expect(sent.at(-1)?.content).toBe('latest question');
    expect(sent[0]?.role).toBe('user');
    const stored = await store.load('long');
    expect(stored.messages).toHaveLength(1002);
    expect(result.session.messages).toHaveLength(1002);
    // A window's usage measures the window, not a prefix of the session: the recorded usage stays as it was.
    expect(stored.lastUsage).toEqual({ inputTokens: 9000, messageCount: 1000 });
  });
});

describe('steppedWindow', () => {
  it('cuts where a fresh replay cuts, whatever chain of continued histories led there (every process cuts alike)', () => {
    fc.assert(
      fc.property(
        historyArb({ maxTurns: 14 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 20, max: 1500 }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        (messages, cuts, high, lowMark) => {
          const marks = { high, low: Math.floor(high * lowMark) };
          const lengths = [...cuts.map((cut) => cut % (messages.length + 1)), messages.length].sort((a, b) => a - b);
          const chain = lengths.map((length) => Object.freeze(messages.slice(0, length)));
          const ids = (history: readonly Message[]): string[] =>
            steppedWindow(history, [], marks, estimate).messages.map((message) => message.id);
          // Each history asked once (as each turn does), the next continuing it.
          const seen = [ids(chain[0] as readonly Message[])];
          for (let i = 1; i < chain.length; i++) {
            continueHistory(chain[i - 1] as readonly Message[], chain[i] as readonly Message[]);
            seen.push(ids(chain[i] as readonly Message[]));
          }
          chain.forEach((history, i) => {
            const fresh = steppedWindow(history.slice(), [], marks, estimate).messages.map((message) => message.id);
            expect(seen[i]).toEqual(fresh);
          });
          // The whole history is a valid conversation (its prefixes may end inside a tool exchange).
          expectValidWindow(messages, steppedWindow(messages.slice(), [], marks, estimate).messages);
        },
      ),
      { numRuns: 200 },
    );
  });
});
