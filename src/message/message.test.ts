import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, Message, storedAt, type MessageInput } from './message.js';
import { codeOf } from '../../test/support/errors.js';

describe('Message constructors', () => {
  it('fill id, timestamp, metadata and the default category', () => {
    const message = Message.user('hello');
    expect(message).toMatchObject({ role: 'user', category: 'dialog', content: 'hello', metadata: {} });
    expect(message.id).toMatch(/^msg_/);
    expect(new Date(message.timestamp).toString()).not.toBe('Invalid Date');
    expect(Message.system('s').category).toBe('system');
    expect(Message.context('docs')).toMatchObject({ role: 'system', category: 'context' });
    expect(Message.tool('call_1', 'out').category).toBe('tool_output');
  });

  it('serialize object tool arguments to JSON text and keep text verbatim', () => {
    const message = Message.assistant('', {
      toolCalls: [
        { id: 'a', name: 'search', arguments: { q: 'x' } },
        { id: 'b', name: 'broken', arguments: '{"unterminated' },
        { id: 'c', name: 'none' },
      ],
    });
    expect(message.toolCalls?.map((call) => call.arguments)).toEqual(['{"q":"x"}', '{"unterminated', '{}']);
  });

  it('deep-freeze everything, including nested parts and metadata', () => {
    const message = Message.user([{ type: 'text', text: 'hi' }], { metadata: { nested: { list: [1, 2] } } });
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.content)).toBe(true);
    expect(Object.isFrozen((message.content as readonly object[])[0])).toBe(true);
    expect(Object.isFrozen((message.metadata.nested as { list: number[] }).list)).toBe(true);
    expect(() => {
      (message as { content: string }).content = 'changed';
    }).toThrow(TypeError);
  });

  it('do not keep references to the caller’s input', () => {
    const input = { role: 'user', content: [{ type: 'text', text: 'a' }], metadata: { k: 1 } } satisfies MessageInput;
    const message = Message.create(input);
    input.content[0]!.text = 'mutated';
    input.metadata.k = 2;
    expect(message.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(message.metadata).toEqual({ k: 1 });
  });
});

describe('Message.is / from / with / text', () => {
  it('recognize only created messages', () => {
    const message = Message.user('x');
    expect(Message.is(message)).toBe(true);
    expect(Message.is({ ...message })).toBe(false);
    expect(Message.is(null)).toBe(false);
    expect(Message.from(message)).toBe(message);
    expect(Message.is(Message.from({ role: 'user', content: 'y' }))).toBe(true);
  });

  it('derive a changed copy with the same id, leaving the original alone', () => {
    const original = Message.tool('c1', 'long output');
    const shorter = Message.with(original, { content: 'short' });
    expect(shorter.id).toBe(original.id);
    expect(shorter.content).toBe('short');
    expect(original.content).toBe('long output');
  });

  it('join text parts', () => {
    expect(
      Message.text(
        Message.user([
          { type: 'text', text: 'a' },
          { type: 'image', url: 'https://x.test/i.png' },
          { type: 'text', text: 'b' },
        ]),
      ),
    ).toBe('a\nb');
  });
});

describe('invalid messages', () => {
  const cases: Array<[string, unknown]> = [
    ['not an object', 'hello'],
    ['null', null],
    ['unknown role', { role: 'robot', content: 'x' }],
    ['missing content', { role: 'user' }],
    ['empty user content', { role: 'user', content: '   ' }],
    ['empty parts', { role: 'user', content: [] }],
    ['unknown part type', { role: 'user', content: [{ type: 'video', url: 'x' }] }],
    ['image with both url and data', { role: 'user', content: [{ type: 'image', url: 'u', data: 'd' }] }],
    ['image with neither', { role: 'user', content: [{ type: 'image' }] }],
    ['file without media type', { role: 'user', content: [{ type: 'file', data: 'AA==' }] }],
    ['tool without toolCallId', { role: 'tool', content: 'x' }],
    ['toolCallId on a user message', { role: 'user', content: 'x', toolCallId: 'c' }],
    ['tool calls on a user message', { role: 'user', content: 'x', toolCalls: [{ id: 'c', name: 'f' }] }],
    [
      'duplicate tool call ids',
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c', name: 'f' },
          { id: 'c', name: 'g' },
        ],
      },
    ],
    ['tool call id with spaces', { role: 'assistant', content: '', toolCalls: [{ id: 'c 1', name: 'f' }] }],
    ['tool message with dialog category', { role: 'tool', toolCallId: 'c', content: 'x', category: 'dialog' }],
    ['unknown field', { role: 'user', content: 'x', extra: true }],
    ['bad timestamp', { role: 'user', content: 'x', timestamp: 'yesterday' }],
    ['hostile id', { role: 'user', content: 'x', id: '../../etc' }],
    ['non-JSON metadata', { role: 'user', content: 'x', metadata: { f: () => 1 } }],
    ['negative token count', { role: 'user', content: 'x', tokens: { estimate: -1 } }],
  ];
  it.each(cases)('%s is INVALID_MESSAGE', (_name, input) => {
    expect(codeOf(() => Message.create(input as MessageInput))).toBe('INVALID_MESSAGE');
  });

  it('an oversized message is TOO_LARGE', () => {
    expect(codeOf(() => Message.user('x'.repeat(MAX_MESSAGE_CHARS + 1)))).toBe('TOO_LARGE');
  });

  it('an assistant message may be empty only when it calls tools', () => {
    expect(codeOf(() => Message.assistant(''))).toBe('INVALID_MESSAGE');
    expect(codeOf(() => Message.assistant('', { toolCalls: [{ id: 'c', name: 'f' }] }))).toBeUndefined();
  });
});

describe('Message.with and cached token counts (review regression)', () => {
  it('drops a cached count when the counted fields change, keeps it otherwise', () => {
    const message = Message.user('short', { tokens: { estimate: 3 } });
    expect(Message.with(message, { content: 'a much longer text '.repeat(100) }).tokens).toBeUndefined();
    expect(Message.with(message, { name: 'alice' }).tokens).toBeUndefined();
    expect(Message.with(message, { metadata: { seen: true } }).tokens).toEqual({ estimate: 3 });
    expect(Message.with(message, { content: 'other', tokens: { estimate: 2 } }).tokens).toEqual({ estimate: 2 });
  });
});

describe('storedAt', () => {
  it('gives what fromStored gives for the message with its seq, frozen and recognized, without changing the original', () => {
    const messages = [
      Message.user('hi', { metadata: { source: 'web' } }),
      Message.assistant('calling', {
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 1 } }],
        tokens: { estimate: 3 },
      }),
      Message.tool('call_1', [{ type: 'text', text: 'found' }], { name: 'lookup' }),
      Message.fromStored({ ...Message.user('again'), seq: 4 }),
    ];
    for (const message of messages) {
      const stored = storedAt(message, 7);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(Message.fromStored({ ...message, seq: 7 })));
      expect(Message.is(stored)).toBe(true);
      expect(Object.isFrozen(stored)).toBe(true);
      expect(message.seq).not.toBe(7);
    }
  });

  it('refuses anything but a Message and a positive integer seq', () => {
    expect(codeOf(() => storedAt({ ...Message.user('x') }, 1))).toBe('INVALID_ARGUMENT');
    for (const seq of [0, -1, 1.5, Number.NaN])
      expect(codeOf(() => storedAt(Message.user('x'), seq))).toBe('INVALID_ARGUMENT');
  });
});
