import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { openaiResponses, openaiResponsesFromResponse } from './openai-responses.js';
import type { OpenaiResponsesWire, ResponsesReasoningItem } from './openai-responses-wire.js';
import { codeOf } from '../../test/support/errors.js';

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

describe('openaiResponses.from', () => {
  it('reads instructions, messages, calls and outputs; developer as system; names outputs after their call', () => {
    const { messages, warnings } = openaiResponses.from({
      instructions: 'rules',
      input: [
        { role: 'developer', content: 'more rules' },
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'rain' },
        { role: 'assistant', content: 'It rains.' },
      ],
    });
    expect(warnings).toEqual([]);
    expect(messages.map((message) => [message.role, Message.text(message)])).toEqual([
      ['system', 'rules'],
      ['system', 'more rules'],
      ['user', 'hi'],
      ['assistant', ''],
      ['tool', 'rain'],
      ['assistant', 'It rains.'],
    ]);
    expect(messages[3]?.toolCalls).toEqual([{ id: 'c1', name: 'weather', arguments: '{}' }]);
    expect(messages[4]).toMatchObject({ toolCallId: 'c1', name: 'weather' });
  });

  it('reads a string input as one user message', () => {
    expect(openaiResponses.from({ input: 'hello' }).messages.map((message) => [message.role, message.content])).toEqual(
      [['user', 'hello']],
    );
  });

  it('groups reasoning, output messages and function calls of one turn into one assistant message, written back identically', () => {
    const wire: OpenaiResponsesWire = {
      instructions: 'rules',
      input: [
        { type: 'message', role: 'user', content: 'q' },
        reasoning,
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [
            { type: 'output_text', text: 'Let me look.', annotations: [] },
            { type: 'refusal', refusal: 'Not that part.' },
          ],
          phase: 'commentary',
        },
        {
          type: 'function_call',
          call_id: 'c1',
          name: 'search',
          arguments: '{"q":"x"}',
          id: 'fc_1',
          status: 'completed',
        },
        {
          type: 'function_call',
          call_id: 'c2',
          name: 'search',
          arguments: '{"q":"y"}',
          id: 'fc_2',
          status: 'completed',
        },
        { type: 'function_call_output', call_id: 'c1', output: 'one' },
        { type: 'function_call_output', call_id: 'c2', output: 'two' },
        { type: 'message', role: 'assistant', content: 'Done.', phase: 'final_answer' },
      ],
    };
    const { messages } = openaiResponses.from(wire);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(messages[2]?.toolCalls?.map((call) => call.id)).toEqual(['c1', 'c2']);
    expect(Message.text(messages[2]!)).toBe('Let me look.\nNot that part.');
    expect(roundTrip(wire)).toEqual(wire);
  });

  it('starts a new assistant message when content follows a call, so order survives', () => {
    const wire: OpenaiResponsesWire = {
      input: [
        { type: 'message', role: 'user', content: 'q' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'one' },
        reasoning,
        { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c2', output: 'two' },
      ],
    };
    expect(openaiResponses.from(wire).messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(roundTrip(wire)).toEqual(wire);
  });

  it('reads media parts and keeps what it cannot model (file-id images, original detail, unknown items) raw', () => {
    const wire = {
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_image', detail: 'high', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
            { type: 'input_image', detail: 'auto', file_id: 'file-img' },
            { type: 'input_image', detail: 'original', image_url: 'https://example.test/a.png' },
            { type: 'input_file', file_url: 'https://example.test/a.pdf', filename: 'a.pdf' },
            { type: 'input_file', file_id: 'file-doc' },
          ],
        },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'item_reference', id: 'msg_9' },
      ],
    } as unknown as OpenaiResponsesWire;
    const { messages } = openaiResponses.from(wire);
    expect(messages[0]?.content).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png', detail: 'high' },
      { type: 'raw', provider: 'openaiResponses', value: { type: 'input_image', detail: 'auto', file_id: 'file-img' } },
      {
        type: 'raw',
        provider: 'openaiResponses',
        value: { type: 'input_image', detail: 'original', image_url: 'https://example.test/a.png' },
      },
      { type: 'file', url: 'https://example.test/a.pdf', mediaType: 'application/octet-stream', filename: 'a.pdf' },
      { type: 'file', fileId: 'file-doc', mediaType: 'application/octet-stream' },
    ]);
    expect(messages[1]?.content).toEqual([
      {
        type: 'raw',
        provider: 'openaiResponses',
        value: { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      },
      { type: 'raw', provider: 'openaiResponses', value: { type: 'item_reference', id: 'msg_9' } },
    ]);
    expect(roundTrip(wire)).toEqual(wire);
  });

  it('skips empty messages with a warning', () => {
    const { messages, warnings } = openaiResponses.from({
      input: [
        { role: 'user', content: ' ' },
        { role: 'user', content: 'q' },
      ],
    });
    expect(messages).toHaveLength(1);
    expect(codes(warnings)).toEqual(['empty_message']);
  });

  it('throws INVALID_ARGUMENT on shapes it cannot read', () => {
    const read = (wire: unknown) => () => openaiResponses.from(wire as OpenaiResponsesWire);
    expect(codeOf(read(null))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ input: 5 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ instructions: 5, input: [] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ input: ['x'] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ input: [{ content: 'no role or type' }] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ input: [{ type: 'function_call', name: 'f' }] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ input: [{ type: 'function_call_output', output: 'x' }] }))).toBe('INVALID_ARGUMENT');
  });
});

describe('openaiResponsesFromResponse', () => {
  it('reads the output items of a response into one assistant message', () => {
    const message = openaiResponsesFromResponse({
      id: 'resp_1',
      output: [
        reasoning,
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [
            {
              type: 'output_text',
              text: 'Hi.',
              annotations: [{ type: 'url_citation', url: 'u', title: 't', start_index: 0, end_index: 1 }],
            },
          ],
        },
        { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', status: 'completed' },
      ],
    });
    expect(Message.text(message)).toBe('Hi.');
    expect(message.toolCalls?.map((call) => call.id)).toEqual(['c1']);
    const { input } = openaiResponses.to([Message.user('q'), message, Message.tool('c1', 'ok')]);
    expect(input.slice(1, 4)).toEqual([
      reasoning,
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hi.', annotations: [] }],
      },
      { id: 'fc_1', type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', status: 'completed' },
    ]);
  });

  it('throws INVALID_ARGUMENT without output items', () => {
    expect(codeOf(() => openaiResponsesFromResponse({ output: 'x' }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => openaiResponsesFromResponse({ output: [] }))).toBe('INVALID_ARGUMENT');
  });
});
