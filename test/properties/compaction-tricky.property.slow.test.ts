/**
 * The compaction invariants and format validity on valid histories with structural tricks the
 * realistic generator never makes: user messages inside a tool exchange, results moved past a later
 * user message, recategorized user and assistant messages, a missing first user message, an earlier
 * summary. (It found truncateToolOutputs rewriting the latest turn when no turn boundary exists.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compaction, type Compactor } from '../../src/compaction/index.js';
import { formats, validate } from '../../src/formats/index.js';
import type { Message } from '../../src/message/message.js';
import { PROVIDERS } from '../../src/message/schema.js';
import { estimate } from '../../src/tokens/index.js';
import { expectInvariants, tokensOf } from '../support/compaction.js';
import { trickyHistoryArb } from '../support/tricky-history.js';

const summarizer = (messages: readonly Message[]): string => `Summary of ${messages.length} messages.`;
const archive = { archive: (): void => undefined };
const cases: Array<[string, (total: number, small: number) => Compactor]> = [
  ['messageLimit', (_t, s) => compaction.messageLimit({ maxMessages: s })],
  ['tokenLimit', (t, s) => compaction.tokenLimit({ maxTokens: Math.max(1, Math.floor((t * s) / 8)) })],
  ['slidingWindow', (_t, s) => compaction.slidingWindow({ turns: s })],
  ['tokenBuffer', (t, s) => compaction.tokenBuffer({ maxTokens: Math.max(1, Math.floor((t * s) / 8)) })],
  ['byCategory', (t, s) => compaction.byCategory({ maxTokens: Math.max(1, Math.floor((t * s) / 8)) })],
  [
    'byCategory ctx-first',
    (t, s) =>
      compaction.byCategory({
        maxTokens: Math.max(1, Math.floor((t * s) / 8)),
        order: ['context', 'dialog', 'tool_output'],
      }),
  ],
  ['truncateToolOutputs', (_t, s) => compaction.truncateToolOutputs({ maxTokens: 3 + s })],
  ['summarize', (_t, s) => compaction.summarize({ summarizer, keepTurns: s })],
  ['offload', (_t, s) => compaction.offload({ archive, turns: s })],
];

describe.each(cases)('%s on tricky histories', (_name, build) => {
  it('keeps the invariants and every format validates', async () => {
    await fc.assert(
      fc.asyncProperty(trickyHistoryArb, fc.integer({ min: 1, max: 4 }), async (messages, small) => {
        const result = await build(tokensOf(messages, estimate), small).compact({ messages, counter: estimate });
        expectInvariants(messages, messages.slice(), result, estimate);
        for (const provider of PROVIDERS) {
          const wire = formats[provider].to(result.messages);
          const { warnings, ...rest } = wire;
          expect(validate(provider, rest)).toEqual([]);
          expect(warnings.filter((w) => w.code === 'orphan_tool_result' || w.code === 'missing_tool_result')).toEqual(
            [],
          );
        }
      }),
      { numRuns: 150 },
    );
  });
});
