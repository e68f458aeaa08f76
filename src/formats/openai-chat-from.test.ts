import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { openaiChat, openaiChatFromResponse } from './openai-chat.js';
import type { ChatMessageParam, OpenaiChatWire } from './openai-chat-wire.js';
import { codeOf } from '../../test/support/errors.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

/** `to(from(wire))` as request fields only. */
function roundTrip(wire: OpenaiChatWire): ChatMessageParam[] {
  return openaiChat.to(openaiChat.from(wire).messages).messages;
}

describe('openaiChat.from', () => {
  it('reads every role, developer as system, and names tool results after their call', () => {
    const { messages, warnings } = openaiChat.from({
      messages: [
        { role: 'developer', content: 'rules' },
        { role: 'system', content: [{ type: 'text', text: 'more rules' }] },
        { role: 'user', content: 'hi', name: 'ann' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        { role: 'assistant', content: 'It rains.' },
      ],
    });
    expect(warnings).toEqual([]);
    expect(messages.map((message) => [message.role, message.category, Message.text(message)])).toEqual([
      ['system', 'system', 'rules'],
      ['system', 'system', 'more rules'],
      ['user', 'dialog', 'hi'],
      ['assistant', 'dialog', ''],
      ['tool', 'tool_output', 'rain'],
      ['assistant', 'dialog', 'It rains.'],
    ]);
    expect(messages[2]?.name).toBe('ann');
    expect(messages[3]?.toolCalls).toEqual([{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }]);
    expect(messages[4]).toMatchObject({ toolCallId: 'c1', name: 'weather' });
  });

  it('reads images and files into parts and writes them back identically', () => {
    const wire: OpenaiChatWire = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'https://example.test/a.png' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
            { type: 'file', file: { file_id: 'file-1' } },
          ],
        },
      ],
    };
    const [user] = openaiChat.from(wire).messages;
    expect(user?.content).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png', detail: 'low' },
      { type: 'image', url: 'https://example.test/a.png' },
      { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', fileId: 'file-1', mediaType: 'application/octet-stream' },
    ]);
    expect(roundTrip(wire)).toEqual(wire.messages);
  });

  it('keeps what it cannot model as raw parts and writes it back unchanged', () => {
    const wire: OpenaiChatWire = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
            { type: 'file', file: { file_data: 'JVBERi0=' } },
          ],
        },
        { role: 'assistant', content: null, refusal: 'No.', audio: { id: 'audio_1' } },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'Still no.' }] },
        { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
        { role: 'function', name: 'f', content: '42' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'k1', type: 'custom', custom: { name: 'shell', input: 'ls -la' } }],
        },
        { role: 'tool', tool_call_id: 'k1', content: 'a.txt' },
      ],
    };
    const { messages } = openaiChat.from(wire);
    expect(messages[0]?.content).toEqual([
      {
        type: 'raw',
        provider: 'openaiChat',
        value: { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
      },
      { type: 'raw', provider: 'openaiChat', value: { type: 'file', file: { file_data: 'JVBERi0=' } } },
    ]);
    expect(messages[5]?.toolCalls).toEqual([
      { id: 'k1', name: 'shell', arguments: 'ls -la', providerOptions: { openaiChat: { type: 'custom' } } },
    ]);
    expect(roundTrip(wire)).toEqual(wire.messages);
  });

  it('keeps a text part with fields it does not model (a cache breakpoint) verbatim', () => {
    const part = { type: 'text', text: 'long prefix', prompt_cache_breakpoint: { mode: 'explicit' } };
    const wire = { messages: [{ role: 'user', content: [part] }] } as unknown as OpenaiChatWire;
    expect(roundTrip(wire)).toEqual(wire.messages);
  });

  it('skips empty messages with a warning', () => {
    const { messages, warnings } = openaiChat.from({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '' },
        { role: 'user', content: [] },
      ],
    });
    expect(messages).toHaveLength(1);
    expect(codes(warnings)).toEqual(['empty_message', 'empty_message']);
  });

  it('keeps message fields it does not model as a raw part, merged back by to()', () => {
    const wire = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }], future_field: { x: 1 } }],
    } as unknown as OpenaiChatWire;
    const [user] = openaiChat.from(wire).messages;
    expect(user?.content).toEqual([
      { type: 'text', text: 'q' },
      { type: 'raw', provider: 'openaiChat', value: { future_field: { x: 1 } } },
    ]);
    expect(roundTrip(wire)).toEqual(wire.messages);
  });

  it('writes back part types newer than this code, and validate lets them through', () => {
    const wire = {
      messages: [{ role: 'user', content: [{ type: 'input_video', input_video: { url: 'v' } }] }],
    } as unknown as OpenaiChatWire;
    expect(roundTrip(wire)).toEqual(wire.messages);
    expect(openaiChat.validate(wire)).toEqual([]);
  });

  it('throws INVALID_ARGUMENT on shapes it cannot read', () => {
    const read = (wire: unknown) => () => openaiChat.from(wire as OpenaiChatWire);
    expect(codeOf(read(null))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: 'hi' }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [42] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'robot', content: 'x' }] }))).toBe('INVALID_ARGUMENT');
    expect(
      codeOf(read({ messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function' }] }] })),
    ).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'tool', content: 'x' }] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'user', content: [{ text: 'no type' }] }] }))).toBe('INVALID_ARGUMENT');
  });
});

describe('openaiChatFromResponse', () => {
  it('reads choices[0].message into one assistant message, without output-only fields', () => {
    const message = openaiChatFromResponse({
      id: 'chatcmpl-1',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Checking.',
            refusal: null,
            annotations: [],
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
          },
        },
      ],
    });
    expect(message.role).toBe('assistant');
    expect(message.content).toBe('Checking.');
    expect(message.toolCalls).toEqual([{ id: 'c1', name: 'weather', arguments: '{}' }]);
  });

  it('keeps only the id of response audio (what the API accepts back)', () => {
    const message = openaiChatFromResponse({
      role: 'assistant',
      content: null,
      refusal: null,
      audio: { id: 'a1', data: 'UklGR', expires_at: 1, transcript: 'hi' },
    });
    expect(openaiChat.to([Message.user('q'), message]).messages[1]).toEqual({
      role: 'assistant',
      content: null,
      audio: { id: 'a1' },
    });
  });

  it('throws INVALID_ARGUMENT without a readable assistant message', () => {
    expect(codeOf(() => openaiChatFromResponse({ choices: [] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => openaiChatFromResponse({ choices: [{ message: { role: 'assistant', content: '' } }] }))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});
