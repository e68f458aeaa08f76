import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openaiChat } from './openai-chat.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

describe('openaiChat.validate', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
  const assistant = (...ids: string[]) => ({ role: 'assistant', content: null, tool_calls: ids.map(call) });
  const tool = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'ok' });
  const user = { role: 'user', content: 'q' };
  const problems = (messages: unknown[]) =>
    openaiChat.validate({ messages }).map((problem) => [problem.code, problem.path]);

  it('accepts a well-formed history', () => {
    expect(
      problems([
        { role: 'system', content: 's' },
        user,
        assistant('a', 'b'),
        tool('b'),
        tool('a'),
        { role: 'assistant', content: 'done' },
      ]),
    ).toEqual([]);
  });

  it('rejects values that are not a messages object', () => {
    expect(codes(openaiChat.validate(null))).toEqual(['invalid_wire']);
    expect(codes(openaiChat.validate([]))).toEqual(['invalid_wire']);
    expect(openaiChat.validate({ messages: {} })).toEqual([
      expect.objectContaining({ code: 'invalid_wire', path: 'messages' }),
    ]);
    expect(problems([7])).toEqual([['invalid_message', 'messages[0]']]);
  });

  it('finds unknown roles and empty content', () => {
    expect(problems([{ role: 'robot', content: 'x' }])).toEqual([['invalid_role', 'messages[0].role']]);
    expect(problems([{ role: 'user', content: '  ' }])).toEqual([['empty_content', 'messages[0].content']]);
    expect(problems([{ role: 'user', content: [] }])).toEqual([['empty_content', 'messages[0].content']]);
    expect(problems([user, { role: 'assistant', content: null }])).toEqual([['empty_content', 'messages[1].content']]);
    expect(problems([{ role: 'system' }])).toEqual([['invalid_message', 'messages[0].content']]);
  });

  it('finds parts a role does not accept', () => {
    expect(problems([{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'x' } }] }])).toEqual([
      ['misplaced_part', 'messages[0].content[0]'],
    ]);
  });

  it('finds orphan results, missing results, results that do not follow their call, and duplicates', () => {
    expect(problems([user, tool('x')])).toEqual([['orphan_tool_result', 'messages[1]']]);
    expect(problems([user, assistant('a', 'b'), tool('a')])).toEqual([
      ['missing_tool_result', 'messages[1].tool_calls[1]'],
    ]);
    expect(problems([user, assistant('a'), user, tool('a')])).toEqual([
      ['missing_tool_result', 'messages[1].tool_calls[0]'],
      ['orphan_tool_result', 'messages[3]'],
    ]);
    expect(problems([user, assistant('a'), tool('a'), assistant('a'), tool('a')])).toEqual([
      ['duplicate_tool_call', 'messages[3].tool_calls[0]'],
      ['duplicate_tool_result', 'messages[4]'],
    ]);
    expect(problems([user, assistant('a'), tool('a'), tool('a')])).toEqual([['duplicate_tool_result', 'messages[3]']]);
  });

  it('finds malformed tool calls and tool messages', () => {
    expect(problems([user, { role: 'assistant', content: 'x', tool_calls: [{ type: 'function' }] }])).toEqual([
      ['invalid_message', 'messages[1].tool_calls[0]'],
    ]);
    expect(problems([user, { role: 'tool', content: 'x' }])).toEqual([['invalid_message', 'messages[1].tool_call_id']]);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.array(fc.anything()), (value, messages) => {
        expect(Array.isArray(openaiChat.validate(value))).toBe(true);
        expect(Array.isArray(openaiChat.validate({ messages }))).toBe(true);
      }),
    );
  });
});
