import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openaiResponses } from './openai-responses.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

const reasoning = {
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: 'thinking' }],
  encrypted_content: 'gAAAA',
};

describe('openaiResponses.validate', () => {
  const user = { type: 'message', role: 'user', content: 'q' };
  const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'f', arguments: '{}' });
  const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'ok' });
  const problems = (input: unknown[]) =>
    openaiResponses.validate({ input }).map((problem) => [problem.code, problem.path]);

  it('accepts a well-formed history, including outputs that come after other items', () => {
    expect(
      problems([
        user,
        call('a'),
        call('b'),
        output('b'),
        { role: 'assistant', content: 'partial' },
        output('a'),
        reasoning,
      ]),
    ).toEqual([]);
    expect(openaiResponses.validate({ input: 'just text', instructions: 'x' })).toEqual([]);
  });

  it('rejects values that are not a request', () => {
    expect(codes(openaiResponses.validate('x'))).toEqual(['invalid_wire']);
    expect(codes(openaiResponses.validate({ input: 3 }))).toEqual(['invalid_wire']);
    expect(openaiResponses.validate({ input: [{ role: 'user', content: 'hi' }], instructions: 3 })).toEqual([
      expect.objectContaining({ code: 'invalid_wire', path: 'instructions' }),
    ]);
    expect(problems([null, { content: 'x' }, { type: 9 }])).toEqual([
      ['invalid_message', 'input[0]'],
      ['invalid_message', 'input[1]'],
      ['invalid_message', 'input[2].type'],
    ]);
  });

  it('finds unknown roles, empty user content and parts a message does not accept', () => {
    expect(problems([{ role: 'robot', content: 'x' }])).toEqual([['invalid_role', 'input[0].role']]);
    expect(problems([{ role: 'user', content: [] }])).toEqual([['empty_content', 'input[0].content']]);
    expect(problems([{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }])).toEqual([
      ['misplaced_part', 'input[0].content[0]'],
    ]);
    expect(
      problems([{ role: 'user', content: [{ type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' }] }]),
    ).toEqual([['misplaced_part', 'input[0].content[0]']]);
    expect(problems([{ type: 'input_text', text: 'x' }])).toEqual([['misplaced_part', 'input[0].type']]);
  });

  it('finds orphan outputs, calls without output, duplicate call ids and duplicate outputs', () => {
    expect(problems([user, output('x')])).toEqual([['orphan_tool_result', 'input[1]']]);
    expect(problems([user, output('a'), call('a')])).toEqual([
      ['orphan_tool_result', 'input[1]'],
      ['missing_tool_result', 'input[2]'],
    ]);
    expect(problems([user, call('a'), call('a'), output('a')])).toEqual([['duplicate_tool_call', 'input[2]']]);
    expect(problems([user, call('a'), output('a'), output('a')])).toEqual([['duplicate_tool_result', 'input[3]']]);
    expect(problems([user, { type: 'function_call', call_id: 'a' }])).toEqual([['invalid_message', 'input[1]']]);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.array(fc.anything()), (value, input) => {
        expect(Array.isArray(openaiResponses.validate(value))).toBe(true);
        expect(Array.isArray(openaiResponses.validate({ input }))).toBe(true);
      }),
    );
  });
});
