/**
 * Properties of the AI SDK format over random realistic histories:
 * - `to` produces a prompt its own `validate` accepts, without a warning (nothing is dropped);
 * - `from(to(x))` keeps what the AI SDK carries (see `test/support/format-projection.ts` for what
 *   is left out: ids, timestamps, metadata, the context category; the leading system messages come
 *   back as one `system` text);
 * - `to(from(to(x)))` deep-equals `to(x)`, for damaged histories too, whose output must still validate;
 * - an empty conversation is refused by `validate`, and `to` of a history with nothing to send
 *   still writes one the AI SDK accepts, with `empty_conversation`.
 * And over arbitrary tool call arguments (JSON or not) and tool outputs: the arguments text and
 * the result text survive the round trip exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aiSdk } from '../../src/formats/ai-sdk.js';
import { Message } from '../../src/message/message.js';
import { expectedProjection, projection } from '../support/format-projection.js';
import { historyArb } from '../support/arbitraries.js';
import { damagedHistoryArb } from '../support/damaged-history.js';
import { nothingToSendArb } from './formats-empty-history.js';

describe('aiSdk properties', () => {
  const options = { joinLeadingSystem: true } as const;

  it('writes prompts the AI SDK accepts, reads them back, and writes them again identically', () => {
    fc.assert(
      fc.property(historyArb(), (history) => {
        const { warnings, ...wire } = aiSdk.to(history);
        expect(warnings).toEqual([]);
        expect(aiSdk.validate(wire)).toEqual([]);
        const read = aiSdk.from(wire);
        expect(read.warnings).toEqual([]);
        expect(projection(read.messages, options)).toEqual(expectedProjection(history, options));
        const { warnings: _again, ...rewritten } = aiSdk.to(read.messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the exact text of any arguments and any tool output', () => {
    // Not a top-level JSON string: its input would be a string, which reads back as arguments text
    // (models' arguments are objects; the AI SDK has no way to tell the two apart).
    const argumentsArb = fc
      .oneof(
        fc.json(),
        fc.string(),
        fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
      )
      .filter((text) => !text.trimStart().startsWith('"'));
    fc.assert(
      fc.property(argumentsArb, fc.oneof(fc.string(), fc.json()), (args, output) => {
        const history = [
          Message.user('go'),
          Message.assistant('', { toolCalls: [{ id: 'c1', name: 'f', arguments: args }] }),
          Message.tool('c1', output),
        ];
        const { warnings: _warnings, ...wire } = aiSdk.to(history);
        const [, assistant, tool] = aiSdk.from(wire).messages;
        // A JSON text is re-serialized from its value; anything else is passed through as text.
        let expected = args;
        try {
          expected = JSON.stringify(JSON.parse(args));
        } catch {
          // not JSON: kept verbatim
        }
        expect(assistant?.toolCalls?.[0]?.arguments).toBe(expected);
        expect(tool === undefined ? undefined : Message.text(tool)).toBe(output);
      }),
      { numRuns: 300 },
    );
  });

  it('validate() refuses empty messages; to() of a history with nothing to send still passes it and says so', () => {
    expect(aiSdk.validate({ system: 'You are terse.', messages: [] })).toEqual([
      expect.objectContaining({ code: 'empty_conversation', path: 'messages' }),
    ]);
    fc.assert(
      fc.property(nothingToSendArb('aiSdk', true), (history) => {
        const { warnings, ...wire } = aiSdk.to(history);
        expect(aiSdk.validate(wire)).toEqual([]);
        expect(warnings.map((warning) => warning.code)).toContain('empty_conversation');
        const { warnings: _again, ...rewritten } = aiSdk.to(aiSdk.from(wire).messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 100 },
    );
  });

  it('writes damaged histories so that validate accepts them, and idempotently', () => {
    fc.assert(
      fc.property(damagedHistoryArb, (history) => {
        const { warnings: _warnings, ...wire } = aiSdk.to(history);
        expect(aiSdk.validate(wire)).toEqual([]);
        expect(aiSdk.validate(JSON.parse(JSON.stringify(wire)))).toEqual([]);
        const { warnings: _again, ...rewritten } = aiSdk.to(aiSdk.from(wire).messages);
        expect(rewritten).toEqual(wire);
      }),
      { numRuns: 300 },
    );
  });
});
