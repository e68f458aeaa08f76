/**
 * Invariant 1 across layers: whatever a built-in strategy keeps, every provider format turns into a
 * history the provider accepts — no warnings needed, no problems found.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compaction, type Compactor } from '../../src/compaction/index.js';
import { formats, validate } from '../../src/formats/index.js';
import type { Message } from '../../src/message/message.js';
import { PROVIDERS } from '../../src/message/schema.js';
import { estimate } from '../../src/tokens/index.js';
import { historyArb } from '../support/arbitraries.js';

const summarizer = (messages: readonly Message[]): string => `Summary of ${messages.length} messages.`;
const archive = { archive: (): void => undefined };

const strategies: Array<[string, (total: number, small: number) => Compactor]> = [
  ['messageLimit', (_t, small) => compaction.messageLimit({ maxMessages: small })],
  ['tokenLimit', (total) => compaction.tokenLimit({ maxTokens: Math.max(1, Math.floor(total / 2)) })],
  ['slidingWindow', (_t, small) => compaction.slidingWindow({ turns: small })],
  ['tokenBuffer', (total) => compaction.tokenBuffer({ maxTokens: Math.max(1, Math.floor(total / 3)) })],
  ['byCategory', (total) => compaction.byCategory({ maxTokens: Math.max(1, Math.floor(total / 2)) })],
  ['truncateToolOutputs', (_t, small) => compaction.truncateToolOutputs({ maxTokens: 3 + small })],
  ['summarize', (_t, small) => compaction.summarize({ summarizer, keepTurns: small })],
  ['offload', (_t, small) => compaction.offload({ archive, turns: small })],
  [
    'composite',
    (total, small) =>
      compaction.composite(
        compaction.truncateToolOutputs({ maxTokens: 8 }),
        compaction.tokenLimit({ maxTokens: Math.max(1, Math.floor(total / 2)) }),
        compaction.messageLimit({ maxMessages: 2 + small }),
      ),
  ],
];

describe.each(strategies)('%s output is valid for every provider', (_name, build) => {
  it('passes validate with no repair warnings', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb({ maxTurns: 8 }), fc.integer({ min: 1, max: 4 }), async (messages, small) => {
        const total = messages.reduce((sum, m) => sum + estimate.countMessage(m), 0);
        const result = await build(total, small).compact({ messages, counter: estimate });
        for (const provider of PROVIDERS) {
          const wire = formats[provider].to(result.messages);
          expect(validate(provider, wire)).toEqual([]);
          // Compaction never leaves something a format has to repair.
          expect(
            wire.warnings.filter((w) => w.code === 'orphan_tool_result' || w.code === 'missing_tool_result'),
          ).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });
});
