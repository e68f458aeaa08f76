/**
 * Compaction by chatstate's compactors through `runCompaction`, by property on every store: over
 * random conversations (turns with zero, one or parallel tool calls, reasoning before calls), after
 * every turn, the items left never hold a function call without its result or a result without its
 * call, start at a user message, and end with the newest turn whole.
 */
import type { AgentInputItem } from '@openai/agents-core';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { compaction } from '../../../src/compaction/index.js';
import type { Strategy } from '../../../src/compaction/types.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';

/** One turn as the runner stores it: the question, calls (with reasoning before), their results, the answer. */
function turnItems(index: number, calls: number, reasoning: boolean, answer: string): AgentInputItem[] {
  const ids = Array.from({ length: calls }, (_, call) => `call_${index}_${call}`);
  return [
    { type: 'message', role: 'user', content: `question ${index}` },
    ...(reasoning && calls > 0 ? [{ type: 'reasoning', content: [{ type: 'input_text', text: 'hmm' }] }] : []),
    ...ids.map((callId) => ({ type: 'function_call', callId, name: 'weather', arguments: '{}', status: 'completed' })),
    ...ids.map((callId) => ({
      type: 'function_call_result',
      callId,
      name: 'weather',
      status: 'completed',
      output: { type: 'text', text: `result ${callId} `.repeat(5) },
    })),
    { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer }] },
  ] as AgentInputItem[];
}

const turnArb = fc.record({
  calls: fc.integer({ min: 0, max: 3 }),
  reasoning: fc.boolean(),
  answer: fc.constantFrom('ok', 'Sunny and warm in every city you asked about.', 'Done.'),
});

const strategies: Array<[string, () => Strategy]> = [
  ['messageLimit', () => compaction.messageLimit({ maxMessages: 6 })],
  ['tokenLimit', () => compaction.tokenLimit({ maxTokens: 250 })],
  ['slidingWindow', () => compaction.slidingWindow({ turns: 2 })],
];

await describeEveryStore(
  'openai-agents compaction',
  (subject) => {
    const stores = storesOf(subject);

    it('keeps calls with their results, starts at a user message, keeps the newest turn', async () => {
      const store = await stores.open();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(turnArb, { minLength: 2, maxLength: 7 }),
          fc.constantFrom(...strategies),
          async (turns, [name, make]) => {
            let compactions = 0;
            const session = chatstateSession({
              store,
              sessionId: `compact-${run++}`,
              compaction: { strategy: make(), onCompaction: () => compactions++ },
            });
            let last: AgentInputItem[] = [];
            for (const [index, turn] of turns.entries()) {
              last = turnItems(index, turn.calls, turn.reasoning, turn.answer);
              await session.addItems(last);
              await session.runCompaction();
              const items = await session.getItems();
              const called = new Set<string>();
              const answered = new Set<string>();
              for (const item of items) {
                if (item.type === 'function_call') called.add(item.callId);
                if (item.type === 'function_call_result') {
                  expect(called.has(item.callId)).toBe(true);
                  answered.add(item.callId);
                }
              }
              expect([...called].sort()).toEqual([...answered].sort());
              expect(items[0]).toMatchObject({ role: 'user' });
              expect(items.slice(-last.length)).toEqual(last);
            }
            // Five turns are always over 6 messages and over 2 turns; a token budget is passed only by
            // long enough turns (five short "ok" turns fit in 250 tokens: seed -1622762503).
            if (turns.length >= 5 && name !== 'tokenLimit') expect(compactions).toBeGreaterThan(0);
          },
        ),
        { numRuns: 10 },
      );
    }, 120_000);
  },
  'oacompact',
);
