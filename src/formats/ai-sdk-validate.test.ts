import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aiSdk } from './ai-sdk.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

describe('aiSdk.validate', () => {
  const user = { role: 'user', content: 'q' };
  const assistant = (...ids: string[]) => ({
    role: 'assistant',
    content: ids.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 'f', input: {} })),
  });
  const tool = (...ids: string[]) => ({
    role: 'tool',
    content: ids.map((id) => ({
      type: 'tool-result',
      toolCallId: id,
      toolName: 'f',
      output: { type: 'text', value: 'ok' },
    })),
  });
  const problems = (messages: unknown[], system?: unknown) =>
    aiSdk.validate({ system, messages }).map((problem) => [problem.code, problem.path]);

  it('accepts a well-formed history, results split over consecutive tool messages included', () => {
    expect(
      problems([user, assistant('a', 'b'), tool('b'), tool('a'), { role: 'assistant', content: 'done' }], 'sys'),
    ).toEqual([]);
  });

  it('rejects values that are not a prompt', () => {
    expect(codes(aiSdk.validate(1))).toEqual(['invalid_wire']);
    expect(codes(aiSdk.validate({ messages: 'x' }))).toEqual(['invalid_wire']);
    expect(problems([user], 5)).toEqual([['invalid_wire', 'system']]);
    expect(problems([user], [{ role: 'user', content: 'x' }])).toEqual([['invalid_wire', 'system[0]']]);
    expect(problems([null, { role: 'system', content: [] }, { role: 'tool', content: 'x' }])).toEqual([
      ['invalid_message', 'messages[0]'],
      ['invalid_message', 'messages[1].content'],
      ['invalid_message', 'messages[2].content'],
    ]);
  });

  it('finds unknown roles, empty content and parts a role does not accept', () => {
    expect(problems([{ role: 'robot', content: 'x' }])).toEqual([['invalid_role', 'messages[0].role']]);
    expect(problems([{ role: 'user', content: '' }])).toEqual([['empty_content', 'messages[0].content']]);
    expect(problems([user, { role: 'assistant', content: [] }])).toEqual([['empty_content', 'messages[1].content']]);
    expect(problems([{ role: 'user', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f' }] }])).toEqual([
      ['misplaced_part', 'messages[0].content[0]'],
    ]);
  });

  it('finds orphan results, missing results, results after another message and duplicates', () => {
    expect(problems([user, tool('x')])).toEqual([['orphan_tool_result', 'messages[1].content[0]']]);
    expect(problems([user, assistant('a', 'b'), tool('a')])).toEqual([
      ['missing_tool_result', 'messages[1].content[1]'],
    ]);
    expect(problems([user, assistant('a'), user, tool('a')])).toEqual([
      ['missing_tool_result', 'messages[1].content[0]'],
      ['orphan_tool_result', 'messages[3].content[0]'],
    ]);
    expect(problems([user, assistant('a', 'a'), tool('a')])).toEqual([
      ['duplicate_tool_call', 'messages[1].content[1]'],
    ]);
    expect(problems([user, assistant('a'), tool('a', 'a')])).toEqual([
      ['duplicate_tool_result', 'messages[2].content[1]'],
    ]);
    expect(problems([user, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a' }] }])).toEqual([
      ['invalid_part', 'messages[1].content[0]'],
    ]);
  });

  it('does not pair provider-executed calls', () => {
    expect(
      problems([
        user,
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 's', toolName: 'web', input: {}, providerExecuted: true }],
        },
      ]),
    ).toEqual([]);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.array(fc.anything()), fc.anything(), (value, messages, system) => {
        expect(Array.isArray(aiSdk.validate(value))).toBe(true);
        expect(Array.isArray(aiSdk.validate({ system, messages }))).toBe(true);
      }),
    );
  });
});
