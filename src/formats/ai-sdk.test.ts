import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { aiSdk } from './ai-sdk.js';
import type { AiSdkModelMessage } from './ai-sdk-wire.js';
import { MISSING_RESULT_TEXT } from './prepare.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

const call = (id: string, args = '{"q":"x"}') => ({ id, name: 'search', arguments: args });

describe('aiSdk.to', () => {
  it('joins leading system and context messages into system and keeps mid-conversation system messages in place', () => {
    expect(
      aiSdk.to([
        Message.system('Be brief.'),
        Message.context('Docs.'),
        Message.user('hi'),
        Message.system('French now.'),
        Message.assistant('salut'),
      ]),
    ).toEqual({
      system: 'Be brief.\n\nDocs.',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'French now.' },
        { role: 'assistant', content: 'salut' },
      ],
      warnings: [],
    });
  });

  it('writes tool calls with parsed input and consecutive results as one tool message', () => {
    const { messages } = aiSdk.to([
      Message.user('q'),
      Message.assistant('Looking.', { toolCalls: [call('a', '{"q":"x","n":2}'), call('b')] }),
      Message.tool('b', 'plain text', { name: 'search' }),
      Message.tool('a', '{"hits":[1,2]}'),
    ]);
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'search', input: { q: 'x', n: 2 } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'search', input: { q: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'search',
            output: { type: 'json', value: { hits: [1, 2] } },
          },
          { type: 'tool-result', toolCallId: 'b', toolName: 'search', output: { type: 'text', value: 'plain text' } },
        ],
      },
    ]);
  });

  it('keeps JSON that is not canonical (or not an object) as text output, so its text is not rewritten', () => {
    const { messages } = aiSdk.to([
      Message.user('q'),
      Message.assistant('', { toolCalls: [call('a'), call('b')] }),
      Message.tool('a', '{ "spaced": true }'),
      Message.tool('b', '42'),
    ]);
    const tool = messages[2] as Extract<AiSdkModelMessage, { role: 'tool' }>;
    expect(tool.content.map((part) => (part.type === 'tool-result' ? part.output : undefined))).toEqual([
      { type: 'text', value: '{ "spaced": true }' },
      { type: 'text', value: '42' },
    ]);
  });

  it('writes "-0" in arguments as 0, so that a round trip through from is stable', () => {
    const history = [
      Message.user('q'),
      Message.assistant('', { toolCalls: [{ id: 'c', name: 'f', arguments: '{"a":-0}' }] }),
      Message.tool('c', 'x'),
      Message.assistant('ok'),
    ];
    const { warnings: _warnings, ...wire } = aiSdk.to(history);
    const { warnings: _again, ...rewritten } = aiSdk.to(aiSdk.from(wire).messages);
    expect(rewritten).toEqual(wire);
  });

  it('passes arguments that are not JSON as a string input, with a warning', () => {
    const assistant = Message.assistant('', { toolCalls: [call('a', '{"q": broken')] });
    const { messages, warnings } = aiSdk.to([Message.user('q'), assistant, Message.tool('a', 'x')]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'search', input: '{"q": broken' }],
    });
    expect(warnings).toEqual([expect.objectContaining({ code: 'invalid_tool_arguments', messageId: assistant.id })]);
    expect(aiSdk.from({ messages }).messages[1]?.toolCalls?.[0]?.arguments).toBe('{"q": broken');
  });

  it('writes user media with image detail in providerOptions.openai and drops file ids with a warning', () => {
    const { messages, warnings } = aiSdk.to([
      Message.user([
        { type: 'text', text: 'look', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
        { type: 'image', url: 'https://example.test/a.png', detail: 'low' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
        { type: 'file', fileId: 'file-1', mediaType: 'application/pdf' },
      ]),
    ]);
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
        { type: 'image', image: 'https://example.test/a.png', providerOptions: { openai: { imageDetail: 'low' } } },
        { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
      ],
    });
    expect(codes(warnings)).toEqual(['unsupported_part']);
  });

  it('puts reasoning signatures where the AI SDK providers read them, and warns when there is no place', () => {
    const { messages, warnings } = aiSdk.to([
      Message.user('q'),
      Message.assistant([
        { type: 'reasoning', text: 'a', signature: 'sig-a', provider: 'anthropic' },
        { type: 'reasoning', text: 'g', signature: 'sig-g', provider: 'gemini' },
        { type: 'reasoning', text: 'o', signature: 'sig-o', provider: 'openaiChat' },
        { type: 'text', text: 'answer' },
      ]),
    ]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'a', providerOptions: { anthropic: { signature: 'sig-a' } } },
        { type: 'reasoning', text: 'g', providerOptions: { google: { thoughtSignature: 'sig-g' } } },
        { type: 'reasoning', text: 'o' },
        { type: 'text', text: 'answer' },
      ],
    });
    expect(codes(warnings)).toEqual(['unsupported_field']);
  });

  it('writes raw aiSdk parts in place, drops foreign raw parts and leaves chatstate bookkeeping options out', () => {
    const approval = { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'a' };
    const { messages, warnings } = aiSdk.to([
      Message.user([
        { type: 'text', text: 'q' },
        { type: 'raw', provider: 'openaiChat', value: { type: 'input_audio' } },
      ]),
      Message.assistant([
        { type: 'text', text: 'ok', providerOptions: { openaiResponses: { item: { id: 'msg_1' } } } },
        { type: 'raw', provider: 'aiSdk', value: approval },
      ]),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }, approval] },
    ]);
    expect(codes(warnings)).toEqual(['foreign_raw_part']);
  });

  it('drops a raw part of a known type where the role cannot carry it, and keeps types newer than this code', () => {
    const user = Message.user([
      { type: 'text', text: 'q' },
      { type: 'raw', provider: 'aiSdk', value: { type: 'tool-approval-request', approvalId: 'a', toolCallId: 'c' } },
      { type: 'raw', provider: 'aiSdk', value: { type: 'video', url: 'v' } },
    ]);
    const { messages, warnings } = aiSdk.to([user]);
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'video', url: 'v' },
        ],
      },
    ]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'unsupported_part', messageId: user.id })]);
    expect(aiSdk.validate({ messages })).toEqual([]);
  });

  it('writes tool results with parts as content output', () => {
    const { messages } = aiSdk.to([
      Message.user('q'),
      Message.assistant('', { toolCalls: [call('a')] }),
      Message.tool('a', [
        { type: 'text', text: 'chart:' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'image', url: 'https://example.test/c.png' },
        { type: 'file', url: 'https://example.test/r.pdf', mediaType: 'application/pdf' },
      ]),
    ]);
    expect(messages[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'a',
          toolName: 'search',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'chart:' },
              { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
              { type: 'image-url', url: 'https://example.test/c.png' },
              { type: 'file-url', url: 'https://example.test/r.pdf', mediaType: 'application/pdf' },
            ],
          },
        },
      ],
    });
  });

  it('carries the repairs of prepareHistory as warnings', () => {
    const { messages, warnings } = aiSdk.to([
      Message.user('q'),
      Message.assistant('', { toolCalls: [call('a')] }),
      Message.user('next'),
    ]);
    expect(codes(warnings)).toEqual(['missing_tool_result']);
    expect(messages[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'a',
          toolName: 'search',
          output: { type: 'text', value: MISSING_RESULT_TEXT },
        },
      ],
    });
  });

  it('drops a message left empty, with a warning', () => {
    const { messages, warnings } = aiSdk.to([Message.user([{ type: 'reasoning', text: 'x' }]), Message.user('q')]);
    expect(messages).toEqual([{ role: 'user', content: 'q' }]);
    expect(codes(warnings)).toEqual(['unsupported_part', 'empty_message']);
  });
});
