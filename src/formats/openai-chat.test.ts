import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { openaiChat } from './openai-chat.js';
import { MISSING_RESULT_TEXT } from './prepare.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

function callOf(id: string, name = 'search', args = '{"q":"x"}'): { id: string; name: string; arguments: string } {
  return { id, name, arguments: args };
}

describe('openaiChat.to', () => {
  it('keeps leading system and context messages first as system messages, and mid-conversation ones in place', () => {
    const { messages, warnings } = openaiChat.to([
      Message.system('Be brief.'),
      Message.context('Docs: …'),
      Message.user('hi', { name: 'ann' }),
      Message.system('Now answer in French.'),
      Message.assistant('salut'),
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Docs: …' },
      { role: 'user', content: 'hi', name: 'ann' },
      { role: 'system', content: 'Now answer in French.' },
      { role: 'assistant', content: 'salut' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('writes user images as image_url (data as a data URL with its media type) and files as file parts', () => {
    const { messages, warnings } = openaiChat.to([
      Message.user([
        { type: 'text', text: 'look' },
        { type: 'image', url: 'https://example.test/a.png', detail: 'high' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'image', data: '/9j/4AAQ' },
        { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
        { type: 'file', fileId: 'file-123', mediaType: 'application/pdf' },
      ]),
    ]);
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://example.test/a.png', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
        { type: 'file', file: { file_id: 'file-123' } },
      ],
    });
    expect(warnings).toEqual([]);
  });

  it('drops a file given by URL with a warning', () => {
    const message = Message.user([
      { type: 'text', text: 'read' },
      { type: 'file', url: 'https://example.test/a.pdf', mediaType: 'application/pdf' },
    ]);
    const { messages, warnings } = openaiChat.to([message]);
    expect(messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'read' }] }]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'unsupported_part', messageId: message.id })]);
  });

  it('writes tool calls with content null when the assistant only calls tools, and tool results after them', () => {
    const { messages } = openaiChat.to([
      Message.user('weather?'),
      Message.assistant('', { toolCalls: [callOf('c1', 'weather', '{"city":"Paris"}')], name: 'bot' }),
      Message.tool('c1', 'sunny', { name: 'weather' }),
    ]);
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        name: 'bot',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ]);
  });

  it('drops reasoning (not accepted by Chat Completions) with a warning, and a message left empty', () => {
    const thinking = Message.assistant([{ type: 'reasoning', text: 'hmm', signature: 'sig', provider: 'anthropic' }]);
    const mixed = Message.assistant([
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'answer' },
    ]);
    const { messages, warnings } = openaiChat.to([Message.user('q'), thinking, mixed]);
    expect(messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
    ]);
    expect(codes(warnings)).toEqual(['unsupported_part', 'empty_message', 'unsupported_part']);
    expect(warnings[1]?.messageId).toBe(thinking.id);
  });

  it('drops media where the role cannot carry it', () => {
    const image = { type: 'image' as const, url: 'https://example.test/a.png' };
    const { messages, warnings } = openaiChat.to([
      Message.context([{ type: 'text', text: 'ctx' }, image]),
      Message.user('q'),
      Message.assistant([{ type: 'text', text: 'see' }, image], { toolCalls: [callOf('c1')] }),
      Message.tool('c1', [{ type: 'text', text: 'result' }, image]),
    ]);
    expect(codes(warnings)).toEqual(['unsupported_part', 'unsupported_part', 'unsupported_part']);
    expect(messages[0]).toEqual({ role: 'system', content: [{ type: 'text', text: 'ctx' }] });
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'result' }] });
  });

  it('writes a tool result whose parts were all dropped as empty text (its call still needs an answer)', () => {
    const { messages } = openaiChat.to([
      Message.user('q'),
      Message.assistant('', { toolCalls: [callOf('c1')] }),
      Message.tool('c1', [{ type: 'image', url: 'https://example.test/a.png' }]),
    ]);
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: '' });
  });

  it('writes raw openaiChat parts back in place and drops raw parts of other providers with a warning', () => {
    const audio = { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } };
    const { messages, warnings } = openaiChat.to([
      Message.user([
        { type: 'text', text: 'listen' },
        { type: 'raw', provider: 'openaiChat', value: audio },
        { type: 'raw', provider: 'anthropic', value: { type: 'search_result' } },
      ]),
      Message.assistant([{ type: 'raw', provider: 'openaiChat', value: { refusal: 'I cannot help with that.' } }]),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'listen' }, audio] },
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
    ]);
    expect(codes(warnings)).toEqual(['foreign_raw_part']);
  });

  it('drops a raw part of a known type where the role cannot carry it', () => {
    const system = Message.context([
      { type: 'text', text: 'ctx' },
      { type: 'raw', provider: 'openaiChat', value: { type: 'image_url', image_url: { url: 'u' } } },
    ]);
    const { messages, warnings } = openaiChat.to([system]);
    expect(messages).toEqual([{ role: 'system', content: [{ type: 'text', text: 'ctx' }] }]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'unsupported_part', messageId: system.id })]);
  });

  it('carries the repairs of prepareHistory as warnings', () => {
    const { messages, warnings } = openaiChat.to([
      Message.tool('ghost', 'orphan'),
      Message.user('q'),
      Message.assistant('', { toolCalls: [callOf('c1')] }),
      Message.user('next'),
    ]);
    expect(codes(warnings)).toEqual(['orphan_tool_result', 'missing_tool_result']);
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: MISSING_RESULT_TEXT });
    expect(openaiChat.validate({ messages })).toEqual([]);
  });

  it('returns request objects that can be changed without touching the frozen messages', () => {
    const user = Message.user([
      {
        type: 'raw',
        provider: 'openaiChat',
        value: { type: 'input_audio', input_audio: { data: 'x', format: 'mp3' } },
      },
    ]);
    const { messages } = openaiChat.to([user]);
    const content = messages[0]?.content as Array<{ input_audio: { data: string } }>;
    content[0]!.input_audio.data = 'changed';
    expect(user.content).toEqual([
      {
        type: 'raw',
        provider: 'openaiChat',
        value: { type: 'input_audio', input_audio: { data: 'x', format: 'mp3' } },
      },
    ]);
  });
});
