import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { openaiResponses } from './openai-responses.js';
import type { OpenaiResponsesWire, ResponsesReasoningItem } from './openai-responses-wire.js';
import { MISSING_RESULT_TEXT } from './prepare.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

/** `to(from(wire))` as request fields only. */
function roundTrip(wire: OpenaiResponsesWire): OpenaiResponsesWire {
  const { warnings: _warnings, ...fields } = openaiResponses.to(openaiResponses.from(wire).messages);
  return fields;
}

const reasoning = {
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: 'thinking' }],
  encrypted_content: 'gAAAA',
} satisfies ResponsesReasoningItem;

describe('openaiResponses.to', () => {
  it('joins leading system and context messages into instructions and keeps mid-conversation system messages in place', () => {
    const wire = openaiResponses.to([
      Message.system('Be brief.'),
      Message.context('Docs.'),
      Message.user('hi'),
      Message.system('French now.'),
      Message.assistant('salut'),
    ]);
    expect(wire).toEqual({
      instructions: 'Be brief.\n\nDocs.',
      input: [
        { type: 'message', role: 'user', content: 'hi' },
        { type: 'message', role: 'system', content: 'French now.' },
        { type: 'message', role: 'assistant', content: 'salut' },
      ],
      warnings: [],
    });
  });

  it('leaves instructions out when there is no leading system text', () => {
    expect('instructions' in openaiResponses.to([Message.user('hi')])).toBe(false);
  });

  it('writes user parts as input_text, input_image (detail defaults to auto) and input_file', () => {
    const { input } = openaiResponses.to([
      Message.user([
        { type: 'text', text: 'look' },
        { type: 'image', url: 'https://example.test/a.png' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png', detail: 'low' },
        { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
        { type: 'file', fileId: 'file-1', mediaType: 'application/pdf' },
        { type: 'file', url: 'https://example.test/a.pdf', mediaType: 'application/pdf' },
      ]),
    ]);
    expect(input[0]).toEqual({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'look' },
        { type: 'input_image', detail: 'auto', image_url: 'https://example.test/a.png' },
        { type: 'input_image', detail: 'low', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
        { type: 'input_file', file_id: 'file-1' },
        { type: 'input_file', file_url: 'https://example.test/a.pdf' },
      ],
    });
  });

  it('writes tool calls as function_call items and results as function_call_output items', () => {
    const { input } = openaiResponses.to([
      Message.user('weather?'),
      Message.assistant('Checking.', { toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }] }),
      Message.tool('c1', [
        { type: 'text', text: 'rain' },
        { type: 'image', url: 'https://example.test/radar.png' },
      ]),
    ]);
    expect(input.slice(1)).toEqual([
      { type: 'message', role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
      {
        type: 'function_call_output',
        call_id: 'c1',
        output: [
          { type: 'input_text', text: 'rain' },
          { type: 'input_image', detail: 'auto', image_url: 'https://example.test/radar.png' },
        ],
      },
    ]);
  });

  it('emits raw openaiResponses items at their position and drops foreign raw parts and reasoning parts with warnings', () => {
    const assistant = Message.assistant(
      [
        { type: 'raw', provider: 'openaiResponses', value: reasoning },
        { type: 'reasoning', text: 'claude thoughts', signature: 's', provider: 'anthropic' },
        { type: 'raw', provider: 'anthropic', value: { type: 'redacted_thinking', data: 'x' } },
        { type: 'text', text: 'answer' },
      ],
      { toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
    );
    const { input, warnings } = openaiResponses.to([Message.user('q'), assistant, Message.tool('c1', 'ok')]);
    expect(input.slice(1, 4)).toEqual([
      reasoning,
      { type: 'message', role: 'assistant', content: 'answer' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    ]);
    expect(codes(warnings)).toEqual(['unsupported_part', 'foreign_raw_part']);
  });

  it('drops media from system and assistant messages and instructions, with warnings', () => {
    const image = { type: 'image' as const, url: 'https://example.test/a.png' };
    const { input, instructions, warnings } = openaiResponses.to([
      Message.context([{ type: 'text', text: 'ctx' }, image]),
      Message.user('q'),
      Message.context([{ type: 'text', text: 'more' }, image]),
      Message.assistant([{ type: 'text', text: 'a' }, image]),
    ]);
    expect(instructions).toBe('ctx');
    expect(input.slice(1)).toEqual([
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'more' }] },
      { type: 'message', role: 'assistant', content: 'a' },
    ]);
    expect(codes(warnings)).toEqual(['unsupported_part', 'unsupported_part', 'unsupported_part']);
  });

  it('drops raw parts where they cannot go: an item inside content, a content part as an item', () => {
    const user = Message.user([
      { type: 'text', text: 'q' },
      { type: 'raw', provider: 'openaiResponses', value: reasoning },
    ]);
    const assistant = Message.assistant([
      { type: 'text', text: 'a' },
      { type: 'raw', provider: 'openaiResponses', value: { type: 'input_text', text: 'x' } },
    ]);
    const { input, warnings } = openaiResponses.to([user, assistant]);
    expect(input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] },
      { type: 'message', role: 'assistant', content: 'a' },
    ]);
    expect(warnings.map((warning) => [warning.code, warning.messageId])).toEqual([
      ['unsupported_part', user.id],
      ['unsupported_part', assistant.id],
    ]);
  });

  it('writes back content and item types newer than this code, and validate lets them through', () => {
    const wire = {
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_video', video_url: 'v' }] },
        { type: 'future_tool_call', id: 'ft_1', payload: { a: 1 } },
      ],
    } as unknown as OpenaiResponsesWire;
    expect(roundTrip(wire)).toEqual(wire);
    expect(openaiResponses.validate(wire)).toEqual([]);
  });

  it('drops a message left empty, with a warning', () => {
    const only = Message.assistant([{ type: 'reasoning', text: 'hmm' }]);
    const { input, warnings } = openaiResponses.to([Message.user('q'), only]);
    expect(input).toHaveLength(1);
    expect(codes(warnings)).toEqual(['unsupported_part', 'empty_message']);
  });

  it('carries the repairs of prepareHistory as warnings', () => {
    const { input, warnings } = openaiResponses.to([
      Message.user('q'),
      Message.assistant('', { toolCalls: [{ id: 'c1', name: 'f' }] }),
      Message.tool('zz', 'orphan'),
    ]);
    expect(codes(warnings)).toEqual(['missing_tool_result', 'orphan_tool_result']);
    expect(input[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: MISSING_RESULT_TEXT });
  });
});
