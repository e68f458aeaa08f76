/**
 * Properties of the OpenAI Chat Completions and Responses formats over random realistic histories
 * (leading system and context messages, mid-conversation system messages, multi-part user content
 * with images, parallel tool calls whose results arrive in any order):
 * - `to` produces output its own `validate` accepts, without a warning (nothing is dropped);
 * - `from(to(x))` keeps what the provider carries (see `test/support/format-projection.ts` for what
 *   is left out: ids, timestamps, metadata, the context category; Responses joins the leading
 *   system messages into one `instructions` text and gives every image a detail);
 * - `to(from(to(x)))` deep-equals `to(x)`: reading a request back and writing it again changes nothing;
 * - the same for damaged histories (`test/support/damaged-history.ts`), whose output must still validate;
 * - an empty conversation is refused by `validate`, and `to` of a history with nothing to send
 *   still writes one the API accepts, with `empty_conversation`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openaiChat } from '../../src/formats/openai-chat.js';
import { openaiResponses } from '../../src/formats/openai-responses.js';
import { expectedProjection, projection } from '../support/format-projection.js';
import { historyArb } from '../support/arbitraries.js';
import { damagedHistoryArb } from '../support/damaged-history.js';
import { nothingToSendArb } from './formats-empty-history.js';

describe('openaiChat properties', () => {
  it('writes histories the API accepts, reads them back, and writes them again identically', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const { warnings, ...wire } = openaiChat.to(history);
        expect(warnings).toEqual([]);
        expect(openaiChat.validate(wire)).toEqual([]);
        const read = openaiChat.from(wire);
        expect(read.warnings).toEqual([]);
        expect(projection(read.messages, { joinLeadingSystem: false })).toEqual(
          expectedProjection(history, { joinLeadingSystem: false }),
        );
        const { warnings: _again, ...rewritten } = openaiChat.to(read.messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 200 },
    );
  });

  it('writes damaged histories so that validate accepts them, and idempotently', () => {
    fc.assert(
      fc.property(damagedHistoryArb, (history) => {
        const { warnings: _warnings, ...wire } = openaiChat.to(history);
        expect(openaiChat.validate(wire)).toEqual([]);
        expect(openaiChat.validate(JSON.parse(JSON.stringify(wire)))).toEqual([]);
        const { warnings: _again, ...rewritten } = openaiChat.to(openaiChat.from(wire).messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 300 },
    );
  });
});

describe.each([
  ['openaiChat', openaiChat, { messages: [] }, 'messages', false],
  ['openaiResponses', openaiResponses, { instructions: 'You are terse.', input: [] }, 'input', true],
] as const)('%s with nothing to send', (name, format, empty, path, systemApart) => {
  it('validate() refuses an empty conversation; to() of a history with nothing to send still passes it and says so', () => {
    expect(format.validate(empty)).toEqual([expect.objectContaining({ code: 'empty_conversation', path })]);
    fc.assert(
      fc.property(nothingToSendArb(name, systemApart), (history) => {
        const { warnings, ...wire } = format.to(history);
        expect(format.validate(wire)).toEqual([]);
        expect(warnings.map((warning) => warning.code)).toContain('empty_conversation');
        const { warnings: _again, ...rewritten } = format.to(format.from(wire as never).messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 100 },
    );
  });
});

it('openaiResponses: an empty input continuing a stored response is valid', () => {
  expect(openaiResponses.validate({ input: [], previous_response_id: 'resp_1' })).toEqual([]);
});

describe('openaiResponses properties', () => {
  const options = { joinLeadingSystem: true, defaultImageDetail: 'auto' } as const;

  it('writes histories the API accepts, reads them back, and writes them again identically', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const { warnings, ...wire } = openaiResponses.to(history);
        expect(warnings).toEqual([]);
        expect(openaiResponses.validate(wire)).toEqual([]);
        const read = openaiResponses.from(wire);
        expect(read.warnings).toEqual([]);
        expect(projection(read.messages, options)).toEqual(expectedProjection(history, options));
        const { warnings: _again, ...rewritten } = openaiResponses.to(read.messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 200 },
    );
  });

  it('writes damaged histories so that validate accepts them, and idempotently', () => {
    fc.assert(
      fc.property(damagedHistoryArb, (history) => {
        const { warnings: _warnings, ...wire } = openaiResponses.to(history);
        expect(openaiResponses.validate(wire)).toEqual([]);
        expect(openaiResponses.validate(JSON.parse(JSON.stringify(wire)))).toEqual([]);
        const { warnings: _again, ...rewritten } = openaiResponses.to(openaiResponses.from(wire).messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 300 },
    );
  });
});
