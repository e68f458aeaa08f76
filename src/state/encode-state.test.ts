import { describe, expect, it } from 'vitest';
import { codeOf } from '../../test/support/errors.js';
import { Message } from '../message/message.js';
import { decodeState } from './decode-state.js';
import { encodeState } from './encode-state.js';
import { DEFAULT_MAX_STATE_BYTES, STATE_VERSION } from './types.js';

const KEY = 'correct horse battery staple 42';

function history(): Message[] {
  return [
    Message.system('You are terse.', { id: 'sys1' }),
    Message.context('The user is in Harrogate.', { id: 'ctx1' }),
    Message.user(
      [
        { type: 'text', text: 'Weather?' },
        { type: 'image', url: 'https://example.test/sky.png' },
      ],
      { id: 'u1' },
    ),
    Message.system('The user checked in at the theatre.', { id: 'mid1' }),
    Message.assistant('', {
      id: 'a1',
      toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: 'Harrogate' } }],
    }),
    Message.tool('call_1', '{"sky":"clear"}', { id: 't1', name: 'weather', tokens: { estimate: 9 } }),
    Message.assistant('Clear skies.', { id: 'a2', metadata: { model: 'x' } }),
  ];
}

describe('encodeState / decodeState round trip', () => {
  const modes = [
    { name: 'plain', encode: {}, decode: {} },
    { name: 'signed', encode: { key: KEY }, decode: { key: KEY } },
    { name: 'encrypted', encode: { key: KEY, encrypt: true }, decode: { key: KEY } },
    {
      name: 'signed with a byte key',
      encode: { key: new Uint8Array(32).fill(7) },
      decode: { key: new Uint8Array(32).fill(7) },
    },
  ] as const;

  for (const mode of modes) {
    it(`keeps every stored message exactly (${mode.name})`, () => {
      const messages = history();
      const blob = encodeState(messages, { provider: 'anthropic', ...mode.encode });
      expect(blob).toMatch(/^cs1\.[pse]\.[A-Za-z0-9_.-]+$/);
      const decoded = decodeState(blob, { provider: 'anthropic', ...mode.decode });
      expect(decoded.rejected).toBeUndefined();
      // The leading system and context messages are the preamble: not stored. Cached token counts
      // are kept only from an authentic (keyed) blob: anyone can write an unsigned one.
      const expected =
        mode.name === 'plain'
          ? messages.slice(2).map((m) => (m.tokens === undefined ? m : Message.with(m, { tokens: undefined })))
          : messages.slice(2);
      expect(decoded.messages).toEqual(expected);
      expect(decoded.processedLength).toBe(5);
      expect(decoded.messages.every((message) => Message.is(message) && Object.isFrozen(message))).toBe(true);
    });
  }

  it('writes the documented payload for an unsigned blob', () => {
    const blob = encodeState(history(), { provider: 'openaiChat', processedLength: 3 });
    const payload: unknown = JSON.parse(Buffer.from(blob.slice('cs1.p.'.length), 'base64url').toString('utf8'));
    expect(payload).toMatchObject({ v: STATE_VERSION, provider: 'openaiChat', processedLength: 3 });
    expect((payload as { messages: unknown[] }).messages).toHaveLength(5);
  });

  it('keeps a mid-conversation system message in place', () => {
    const decoded = decodeState(encodeState(history(), { provider: 'gemini' }), { provider: 'gemini' });
    expect(decoded.messages.map((message) => message.id)).toEqual(['u1', 'mid1', 'a1', 't1', 'a2']);
    expect(decoded.messages[1]?.role).toBe('system');
  });

  it('stores nothing from a history that is only a preamble', () => {
    const decoded = decodeState(encodeState([Message.system('only a prompt')], { provider: 'gemini' }), {
      provider: 'gemini',
    });
    expect(decoded).toEqual({ messages: [], processedLength: 0 });
  });

  it('hides the content when encrypted, but not when only signed', () => {
    const secret = 'the launch code is 0000';
    const messages = [Message.user(secret)];
    const signed = encodeState(messages, { provider: 'aiSdk', key: KEY });
    const encrypted = encodeState(messages, { provider: 'aiSdk', key: KEY, encrypt: true });
    const readable = (blob: string): string =>
      blob
        .split('.')
        .map((segment) => Buffer.from(segment, 'base64url').toString('latin1'))
        .join('|');
    expect(readable(signed)).toContain(secret);
    expect(readable(encrypted)).not.toContain(secret);
    expect(readable(encrypted)).not.toContain('aiSdk');
  });

  it('uses a fresh IV per blob: the same history encrypts differently each time', () => {
    const messages = history();
    const first = encodeState(messages, { provider: 'anthropic', key: KEY, encrypt: true });
    const second = encodeState(messages, { provider: 'anthropic', key: KEY, encrypt: true });
    expect(first).not.toBe(second);
    expect(first.split('.')[3]).not.toBe(second.split('.')[3]);
  });

  it('does not mutate its input', () => {
    const messages = history();
    const copy = structuredClone(messages);
    encodeState(messages, { provider: 'anthropic', key: KEY, encrypt: true });
    expect(messages).toEqual(copy);
    expect(messages).toHaveLength(7);
  });

  it('accepts message inputs and validates them', () => {
    const blob = encodeState([{ role: 'user', content: 'plain input' }] as unknown as Message[], {
      provider: 'openaiChat',
    });
    expect(decodeState(blob, { provider: 'openaiChat' }).messages[0]?.content).toBe('plain input');
    expect(
      codeOf(() => encodeState([{ role: 'user', content: '' }] as unknown as Message[], { provider: 'openaiChat' })),
    ).toBe('INVALID_MESSAGE');
    expect(codeOf(() => encodeState('nope' as unknown as Message[], { provider: 'openaiChat' }))).toBe(
      'INVALID_MESSAGE',
    );
  });
});

describe('processedLength', () => {
  it('defaults to every stored message', () => {
    const decoded = decodeState(encodeState(history(), { provider: 'openaiResponses' }), {
      provider: 'openaiResponses',
    });
    expect(decoded.processedLength).toBe(decoded.messages.length);
  });

  it('counts stored messages, leading system messages excluded', () => {
    const blob = encodeState(history(), { provider: 'openaiResponses', processedLength: 2 });
    expect(decodeState(blob, { provider: 'openaiResponses' }).processedLength).toBe(2);
    // Five messages are stored, so 5 is the largest valid value even though the input has seven.
    expect(
      decodeState(encodeState(history(), { provider: 'openaiResponses', processedLength: 5 }), {
        provider: 'openaiResponses',
      }).processedLength,
    ).toBe(5);
    expect(codeOf(() => encodeState(history(), { provider: 'openaiResponses', processedLength: 6 }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('rejects negative and fractional values', () => {
    expect(codeOf(() => encodeState(history(), { provider: 'openaiChat', processedLength: -1 }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(() => encodeState(history(), { provider: 'openaiChat', processedLength: 1.5 }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('may be 0 (nothing seen yet)', () => {
    expect(
      decodeState(encodeState(history(), { provider: 'openaiChat', processedLength: 0 }), { provider: 'openaiChat' })
        .processedLength,
    ).toBe(0);
  });
});

describe('encodeState option errors', () => {
  it('rejects an unknown provider', () => {
    expect(codeOf(() => encodeState(history(), { provider: 'openai' as never }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => encodeState(history(), undefined as never))).toBe('INVALID_ARGUMENT');
  });

  it('rejects encryption without a key', () => {
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', encrypt: true }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', key: KEY, encrypt: 'yes' as never }))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('rejects weak keys', () => {
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', key: 'short' }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', key: '' }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', key: new Uint8Array(15) }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', key: 42 as never }))).toBe('INVALID_ARGUMENT');
  });

  it('refuses to write a blob larger than maxBytes (decodeState would drop it)', () => {
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', maxBytes: 100 }))).toBe('TOO_LARGE');
    expect(codeOf(() => encodeState(history(), { provider: 'anthropic', maxBytes: 0 }))).toBe('INVALID_ARGUMENT');
    expect(DEFAULT_MAX_STATE_BYTES).toBe(16 * 1024 * 1024);
  });
});

describe('a compaction summary in state (review regression)', () => {
  it('is stored: it ends the preamble instead of being dropped with it', () => {
    const summary = Message.context('They discussed the weather.', { id: 'sum1', metadata: { summary: true } });
    const messages = [
      Message.system('You are terse.', { id: 'sys1' }),
      summary,
      Message.user('And now?', { id: 'u1' }),
    ];
    const decoded = decodeState(encodeState(messages, { provider: 'anthropic' }), { provider: 'anthropic' });
    expect(decoded.messages.map((m) => m.id)).toEqual(['sum1', 'u1']);
    expect(decoded.processedLength).toBe(2);
  });
});
