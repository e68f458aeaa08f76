/**
 * The compaction invariants, for every built-in strategy, on random valid histories and random
 * budgets: directly, through `Session.compact` / `Session.prune`, and on re-compaction.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byCategory,
  composite,
  isSummary,
  messageLimit,
  offload,
  resolvePrunePolicy,
  slidingWindow,
  split,
  summarize,
  tokenBuffer,
  tokenLimit,
  triggers,
  truncateToolOutputs,
  type Compactor,
  type DroppableCategory,
  type PrunePolicy,
} from '../../src/compaction/index.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { createCounter, estimate } from '../../src/tokens/index.js';
import type { TokenCounter } from '../../src/tokens/counter.js';
import { historyArb } from '../support/arbitraries.js';
import { expectInvariants, tokensOf } from '../support/compaction.js';

/** Random budgets, turned into options relative to the history they apply to. */
interface Budget {
  /** Fraction of the history's tokens used as the maximum. */
  fraction: number;
  /** Fraction of the maximum used as the target. */
  targetFraction: number;
  /** A small count (messages, turns). */
  small: number;
  order: DroppableCategory[];
}

const budgetArb: fc.Arbitrary<Budget> = fc.record({
  fraction: fc.double({ min: 0, max: 1.3, noNaN: true }),
  targetFraction: fc.double({ min: 0.1, max: 1, noNaN: true }),
  small: fc.integer({ min: 1, max: 14 }),
  order: fc.shuffledSubarray<DroppableCategory>(['tool_output', 'dialog', 'context'], { minLength: 1 }),
});

const summarizer = (messages: readonly Message[], context: { previousSummary?: string }): string =>
  `Summary of ${messages.length} messages${context.previousSummary === undefined ? '' : ' and an earlier summary'}.`;
const archive = { archive: (): void => undefined };

interface Case {
  name: string;
  build: (budget: Budget, total: number) => Compactor;
  /** A composite reports what each part did (see `expectInvariants`). */
  composite?: boolean;
  /** The trigger fires whatever the history (`triggers.always`). */
  alwaysFires?: boolean;
}

const max = (budget: Budget, total: number): number => Math.max(1, Math.round(budget.fraction * total));
const target = (budget: Budget, total: number): number =>
  Math.max(1, Math.floor(budget.targetFraction * max(budget, total)));

const cases: Case[] = [
  { name: 'messageLimit', build: (b) => messageLimit({ maxMessages: b.small }) },
  { name: 'tokenLimit', build: (b, t) => tokenLimit({ maxTokens: max(b, t), targetTokens: target(b, t) }) },
  { name: 'tokenLimit (default target)', build: (b, t) => tokenLimit({ maxTokens: max(b, t) }) },
  { name: 'tokenBuffer', build: (b, t) => tokenBuffer({ maxTokens: max(b, t) }) },
  { name: 'slidingWindow', build: (b) => slidingWindow({ turns: b.small }) },
  {
    name: 'byCategory',
    build: (b, t) => byCategory({ maxTokens: max(b, t), targetTokens: target(b, t), order: b.order }),
  },
  {
    name: 'truncateToolOutputs',
    build: (b) => truncateToolOutputs({ maxTokens: 4 + b.small * 2, keepRecentTurns: 1 + (b.small % 3) }),
  },
  { name: 'summarize (turns)', build: (b) => summarize({ summarizer, keepTurns: b.small }) },
  {
    name: 'summarize (tokens)',
    build: (b, t) => summarize({ summarizer, maxTokens: max(b, t), targetTokens: target(b, t) }),
  },
  { name: 'offload', build: (b) => offload({ archive, turns: b.small }) },
  {
    name: 'composite(truncate, byCategory, messageLimit)',
    composite: true,
    build: (b, t) =>
      composite(
        truncateToolOutputs({ maxTokens: 8 }),
        byCategory({ maxTokens: max(b, t), order: b.order }),
        messageLimit({ maxMessages: 4 + b.small }),
      ),
  },
  {
    name: 'composite(summarize, tokenLimit)',
    composite: true,
    build: (b, t) => composite(summarize({ summarizer, keepTurns: b.small }), tokenLimit({ maxTokens: max(b, t) })),
  },
  {
    name: 'split(always, tokenLimit)',
    alwaysFires: true,
    build: (b, t) => split({ trigger: triggers.always, strategy: tokenLimit({ maxTokens: max(b, t) }) }),
  },
];

const counters: Array<[string, TokenCounter]> = [
  ['estimate', estimate],
  ['words', createCounter({ name: 'words', countText: (text) => text.split(/\s+/).filter(Boolean).length })],
];

/** Messages as comparable values: summaries get fresh ids each time, so only their text counts. */
const comparable = (messages: readonly Message[]): unknown[] =>
  messages.map((m) => (isSummary(m) ? `summary: ${Message.text(m)}` : m));

const historyAndBudget = fc.tuple(historyArb({ maxTurns: 10 }), budgetArb, fc.constantFrom(...counters));

describe.each(cases)('$name keeps the invariants', ({ build, composite: merged, alwaysFires }) => {
  it('applied directly, and again on its own output', async () => {
    let compactedRuns = 0;
    await fc.assert(
      fc.asyncProperty(historyAndBudget, async ([messages, budget, [, counter]]) => {
        const snapshot = messages.slice();
        const compactor = build(budget, tokensOf(messages, counter));
        const result = await compactor.compact({ messages, counter });
        expectInvariants(messages, snapshot, result, counter, { composite: merged });
        if (result.compacted) compactedRuns += 1;
        // 7. An output within budget is left alone, by the trigger and by the strategy itself.
        if (result.reachedTarget && result.error === undefined) {
          const again = { messages: result.messages, counter };
          expect(compactor.shouldCompact(again)).toBe(alwaysFires === true);
          const second = await compactor.compact(again);
          expect(second.compacted).toBe(false);
          expect(second.messages).toBe(result.messages);
        }
      }),
      { numRuns: 60 },
    );
    // The property is not vacuous: random budgets make the strategy change many histories.
    expect(compactedRuns).toBeGreaterThan(5);
  });

  it('through Session.compact and Session.prune', async () => {
    await fc.assert(
      fc.asyncProperty(historyAndBudget, fc.boolean(), async ([messages, budget, [, counter]], force) => {
        const session = Session.create({ messages });
        const compactor = build(budget, tokensOf(messages, counter));
        const { session: next, result } = await session.compact(compactor, { counter, force });
        expect(session.messages).toEqual(messages);
        if (result === undefined) {
          expect(force).toBe(false);
          expect(compactor.shouldCompact({ messages: session.messages, counter })).toBe(false);
          expect(next).toBe(session);
          return;
        }
        expectInvariants(session.messages, messages, result, counter, { composite: merged });
        expect(next.messages).toEqual(result.messages);
        expect(next.version).toBe(result.compacted ? session.version + 1 : session.version);
        const pruned = await session.prune(compactor, { counter, force });
        expect(comparable(pruned.messages)).toEqual(comparable(next.messages));
      }),
      { numRuns: 40 },
    );
  });
});

describe('tokenLimit with measured usage', () => {
  it('keeps the invariants and meets the target in measured tokens', () => {
    fc.assert(
      fc.property(
        historyAndBudget,
        fc.double({ min: 0.3, max: 3, noNaN: true }),
        fc.nat(),
        ([messages, budget, [, counter]], ratio, at) => {
          const messageCount = 1 + (at % messages.length);
          const counted = tokensOf(messages.slice(0, messageCount), counter);
          const lastUsage = { inputTokens: Math.max(1, Math.round(counted * ratio)), messageCount };
          const factor = lastUsage.inputTokens / counted;
          const total = tokensOf(messages, counter);
          const maxTokens = max(budget, total);
          const targetTokens = target(budget, total);
          const compactor = tokenLimit({ maxTokens, targetTokens });
          const input = { messages, counter, lastUsage };
          expect(compactor.shouldCompact(input)).toBe(lastUsage.inputTokens + total - counted > maxTokens);
          const result = compactor.compact(input);
          expectInvariants(messages, messages.slice(), result, counter);
          if (result.reachedTarget) expect(result.tokensAfter * factor).toBeLessThanOrEqual(targetTokens + 1e-9);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('Coreason prune policies', () => {
  const policyArb = fc.oneof(
    fc.constant<PrunePolicy>({ strategy: 'all' }),
    fc.integer({ min: 1, max: 8 }).map<PrunePolicy>((limit) => ({ strategy: 'sliding_window', limit })),
    fc.integer({ min: 1, max: 600 }).map<PrunePolicy>((limit) => ({ strategy: 'token_buffer', limit })),
    fc.integer({ min: 1, max: 8 }).map<PrunePolicy>((limit) => ({ strategy: 'summary', limit, summarizer })),
    fc.integer({ min: 1, max: 8 }).map<PrunePolicy>((limit) => ({ strategy: 'vector_store', limit, archive })),
  );

  it('keep the invariants through Session.prune', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb({ maxTurns: 10 }), policyArb, async (messages, policy) => {
        const session = Session.create({ messages });
        const pruned = await session.prune(policy);
        const result = await resolvePrunePolicy(policy).compact({ messages: session.messages, counter: estimate });
        expectInvariants(session.messages, messages, result, estimate);
        expect(comparable(pruned.messages)).toEqual(comparable(result.messages));
        if (policy.strategy === 'all') expect(pruned).toBe(session);
      }),
      { numRuns: 100 },
    );
  });
});
