import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { aiSdk, aiSdkFromResponse } from './ai-sdk.js';
import type { AiSdkWire } from './ai-sdk-wire.js';
import { codeOf } from '../../test/support/errors.js';

const codes = (items: ReadonlyArray<{ code: string }>): string[] => items.map((item) => item.code);

/** `to(from(wire))` as prompt fields only. */
function roundTrip(wire: AiSdkWire): AiSdkWire {
  const { warnings: _warnings, ...fields } = aiSdk.to(aiSdk.from(wire).messages);
  return fields;
}

describe('aiSdk.from', () => {
  it('reads every role; tool inputs become JSON text and results are named by their tool', () => {
    const { messages, warnings } = aiSdk.from({
      system: 'rules',
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'weather',
              output: { type: 'json', value: { sky: 'rain' } },
            },
          ],
        },
        { role: 'assistant', content: 'It rains.' },
      ],
    });
    expect(warnings).toEqual([]);
    expect(messages.map((message) => [message.role, Message.text(message)])).toEqual([
      ['system', 'rules'],
      ['user', 'weather?'],
      ['assistant', ''],
      ['tool', '{"sky":"rain"}'],
      ['assistant', 'It rains.'],
    ]);
    expect(messages[2]?.toolCalls).toEqual([{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }]);
    expect(messages[3]).toMatchObject({ toolCallId: 'c1', name: 'weather' });
  });

  it('reads system given as messages, as generateText accepts', () => {
    const { messages } = aiSdk.from({
      system: [
        { role: 'system', content: 'a' },
        { role: 'system', content: 'b' },
      ],
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['system', 'a'],
      ['system', 'b'],
      ['user', 'q'],
    ]);
  });

  it('reads bytes and URL objects as media', () => {
    const { messages } = aiSdk.from({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', image: new Uint8Array([137, 80, 78, 71]), mediaType: 'image/png' },
            { type: 'image', image: new URL('https://example.test/a.png') },
            { type: 'file', data: 'data:application/pdf;base64,JVBERi0=', mediaType: 'application/pdf' },
          ],
        },
      ],
    });
    expect(messages[0]?.content).toEqual([
      { type: 'image', data: 'iVBORw==', mediaType: 'image/png' },
      { type: 'image', url: 'https://example.test/a.png' },
      { type: 'file', url: 'data:application/pdf;base64,JVBERi0=', mediaType: 'application/pdf' },
    ]);
  });

  it('writes every tool output kind back identically', () => {
    const result = (id: string, output: unknown) => ({
      type: 'tool-result',
      toolCallId: id,
      toolName: 'search',
      output,
    });
    const outputs = [
      { type: 'text', value: 'hello' },
      { type: 'text', value: '{"looks":"like json"}' },
      { type: 'json', value: { a: [1, null] } },
      { type: 'json', value: 'a string' },
      { type: 'error-text', value: 'boom' },
      { type: 'error-json', value: { code: 500 } },
      { type: 'execution-denied', reason: 'user said no' },
      { type: 'execution-denied' },
      {
        type: 'content',
        value: [
          { type: 'text', text: 'see' },
          { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
          { type: 'file-data', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'r.pdf' },
          { type: 'file-id', fileId: 'file-1' },
          { type: 'image-file-id', fileId: { openai: 'file-2' } },
          { type: 'text', text: 'cached', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
        ],
      },
    ];
    const ids = outputs.map((_, index) => `c${index}`);
    const wire = {
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: ids.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 'search', input: {} })),
        },
        { role: 'tool', content: outputs.map((output, index) => result(ids[index] ?? '', output)) },
      ],
    } as AiSdkWire;
    expect(roundTrip(wire)).toEqual(wire);
  });

  it('reads reasoning signatures back into the reasoning part', () => {
    const wire: AiSdkWire = {
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'a', providerOptions: { anthropic: { signature: 'sig-a' } } },
            { type: 'reasoning', text: 'g', providerOptions: { google: { thoughtSignature: 'sig-g', other: 1 } } },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    };
    const assistant = aiSdk.from(wire).messages[1];
    expect(assistant?.content).toEqual([
      { type: 'reasoning', text: 'a', signature: 'sig-a', provider: 'anthropic' },
      {
        type: 'reasoning',
        text: 'g',
        signature: 'sig-g',
        provider: 'gemini',
        providerOptions: { google: { other: 1 } },
      },
      { type: 'text', text: 'answer' },
    ]);
    expect(roundTrip(wire)).toEqual(wire);
  });

  it('keeps provider-executed calls, approvals and unknown parts raw, and writes them back unchanged', () => {
    const wire = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'q' },
            {
              type: 'image',
              image: 'https://example.test/a.png',
              providerOptions: { openai: { imageDetail: 'high', x: 1 } },
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'srv', toolName: 'web_search', input: { q: 'x' }, providerExecuted: true },
            { type: 'tool-result', toolCallId: 'srv', toolName: 'web_search', output: { type: 'json', value: [] } },
            { type: 'tool-call', toolCallId: 'a', toolName: 'delete', input: {} },
            { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'a' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'a', toolName: 'delete', output: { type: 'text', value: 'done' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }] },
      ],
    } as AiSdkWire;
    const { messages } = aiSdk.from(wire);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    const written = roundTrip(wire);
    // Consecutive tool messages are one in the AI SDK (it merges them itself).
    expect(written.messages).toEqual([
      wire.messages[0],
      wire.messages[1],
      {
        role: 'tool',
        content: [...(wire.messages[2]?.content as unknown[]), ...(wire.messages[3]?.content as unknown[])],
      },
    ]);
  });

  it('warns about message-level and result-level providerOptions it cannot keep', () => {
    const { warnings } = aiSdk.from({
      messages: [
        { role: 'user', content: 'q', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: {} }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'a',
              toolName: 'f',
              output: { type: 'text', value: 'x', providerOptions: { a: {} } },
              providerOptions: { b: {} },
            },
          ],
        },
      ],
    });
    expect(codes(warnings)).toEqual(['unsupported_field', 'unsupported_field', 'unsupported_field']);
  });

  it('skips empty messages with a warning', () => {
    const { messages, warnings } = aiSdk.from({
      messages: [
        { role: 'user', content: '' },
        { role: 'assistant', content: [] },
        { role: 'user', content: 'q' },
      ],
    });
    expect(messages).toHaveLength(1);
    expect(codes(warnings)).toEqual(['empty_message', 'empty_message']);
  });

  it('throws INVALID_ARGUMENT on shapes it cannot read', () => {
    const read = (wire: unknown) => () => aiSdk.from(wire as AiSdkWire);
    expect(codeOf(read(undefined))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'robot', content: 'x' }] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'system', content: [] }] }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'tool', content: 'x' }] }))).toBe('INVALID_ARGUMENT');
    expect(
      codeOf(
        read({
          messages: [
            {
              role: 'tool',
              content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'f', output: { type: 'weird' } }],
            },
          ],
        }),
      ),
    ).toBe('INVALID_ARGUMENT');
    expect(codeOf(read({ messages: [{ role: 'user', content: [{ type: 'image', image: 42 }] }] }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(read({ system: [{ role: 'user', content: 'x' }], messages: [] }))).toBe('INVALID_ARGUMENT');
  });
});

describe('aiSdkFromResponse', () => {
  it('reads the messages a generateText call added', () => {
    const result = {
      text: '',
      response: {
        id: 'r1',
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { x: 1 } }] },
          {
            role: 'tool',
            content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'f', output: { type: 'text', value: 'ok' } }],
          },
        ],
      },
    };
    expect(aiSdkFromResponse(result).map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(aiSdkFromResponse(result.response)).toHaveLength(2);
    expect(codeOf(() => aiSdkFromResponse({ response: {} }))).toBe('INVALID_ARGUMENT');
  });
});
