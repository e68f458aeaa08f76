import { describe, expect, it } from 'vitest';
import { codeOf } from '../../test/support/errors.js';
import { Message } from '../message/message.js';
import { decodeState } from './decode-state.js';
import { encodeState } from './encode-state.js';
import { DEFAULT_KEY_ID, deriveKeys, resolveKeyRing } from './key-ring.js';
import type { StateKey } from './types.js';

const OLD = 'old secret, sixteen or more';
const NEW = 'new secret, sixteen or more';
const messages = [Message.user('Hello', { id: 'u1' }), Message.assistant('Hi', { id: 'a1' })];

describe('key rotation', () => {
  const before = { current: 'k1', keys: { k1: OLD } };
  const during = { current: 'k2', keys: { k1: OLD, k2: NEW } };
  const after = { current: 'k2', keys: { k2: NEW } };

  for (const encrypt of [false, true]) {
    it(`decodes an old blob while its key id stays in the ring (${encrypt ? 'encrypted' : 'signed'})`, () => {
      const old = encodeState(messages, { provider: 'openaiChat', key: before, encrypt });
      expect(old.split('.')[2]).toBe('k1');
      expect(decodeState(old, { provider: 'openaiChat', key: during }).messages).toEqual(messages);

      const fresh = encodeState(messages, { provider: 'openaiChat', key: during, encrypt });
      expect(fresh.split('.')[2]).toBe('k2');
      expect(decodeState(fresh, { provider: 'openaiChat', key: after }).messages).toEqual(messages);
    });

    it(`rejects an old blob once its key id is removed (${encrypt ? 'encrypted' : 'signed'})`, () => {
      const old = encodeState(messages, { provider: 'openaiChat', key: before, encrypt });
      const decoded = decodeState(old, { provider: 'openaiChat', key: after });
      expect(decoded.rejected?.reason).toBe('signature');
      expect(decoded.rejected?.message).toContain('k1');
      expect(decoded.messages).toEqual([]);
    });
  }

  it('lets a single key move into a ring under the default key id', () => {
    const old = encodeState(messages, { provider: 'gemini', key: OLD });
    expect(old.split('.')[2]).toBe(DEFAULT_KEY_ID);
    const ring = { current: 'k2', keys: { [DEFAULT_KEY_ID]: OLD, k2: NEW } };
    expect(decodeState(old, { provider: 'gemini', key: ring }).messages).toEqual(messages);
  });

  it('does not accept a blob signed by one key id under another key id with a different secret', () => {
    const blob = encodeState(messages, { provider: 'gemini', key: { current: 'a', keys: { a: OLD, b: NEW } } });
    const swapped = blob.replace('.a.', '.b.');
    expect(
      decodeState(swapped, { provider: 'gemini', key: { current: 'a', keys: { a: OLD, b: NEW } } }).rejected?.reason,
    ).toBe('signature');
  });
});

describe('resolveKeyRing', () => {
  it('accepts strings of 16+ characters and 16+ bytes', () => {
    expect(resolveKeyRing('x'.repeat(16)).current).toBe(DEFAULT_KEY_ID);
    expect(resolveKeyRing(new Uint8Array(16)).keys.size).toBe(1);
  });

  const bad: Array<[string, StateKey]> = [
    ['a 15-character string', 'x'.repeat(15)],
    ['15 bytes', new Uint8Array(15)],
    ['a ring whose current id is missing', { current: 'k9', keys: { k1: OLD } }],
    ['a ring with a weak key', { current: 'k1', keys: { k1: OLD, k2: 'short' } }],
    ['a ring with a dotted key id', { current: 'k.1', keys: { 'k.1': OLD } }],
    ['a ring with an empty key id', { current: '', keys: { '': OLD } }],
    ['a ring without keys', { current: 'k1' } as unknown as StateKey],
    ['a ring whose keys is an array', { current: '0', keys: [OLD] } as unknown as StateKey],
    ['a ring with a non-string secret', { current: 'k1', keys: { k1: 1234567890123456 } } as unknown as StateKey],
    ['an inherited key id', { current: 'toString', keys: { k1: OLD } }],
    ['a number', 1234567890123456 as unknown as StateKey],
  ];
  for (const [name, key] of bad) {
    it(`rejects ${name} with INVALID_ARGUMENT`, () => {
      expect(codeOf(() => resolveKeyRing(key))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => encodeState(messages, { provider: 'gemini', key }))).toBe('INVALID_ARGUMENT');
    });
  }

  it('copies byte keys: changing the caller buffer later changes nothing', () => {
    const bytes = new Uint8Array(32).fill(3);
    const blob = encodeState(messages, { provider: 'gemini', key: bytes });
    const ring = resolveKeyRing(bytes);
    bytes.fill(0);
    expect(ring.keys.get(DEFAULT_KEY_ID)?.mac).toEqual(
      resolveKeyRing(new Uint8Array(32).fill(3)).keys.get(DEFAULT_KEY_ID)?.mac,
    );
    expect(decodeState(blob, { provider: 'gemini', key: new Uint8Array(32).fill(3) }).messages).toEqual(messages);
  });

  it('derives independent 32-byte MAC and encryption subkeys, neither equal to the secret', () => {
    const secret = Buffer.alloc(32, 9);
    const keys = deriveKeys(secret);
    expect(keys.mac).toHaveLength(32);
    expect(keys.encryption).toHaveLength(32);
    expect(keys.mac.equals(keys.encryption)).toBe(false);
    expect(keys.mac.equals(secret)).toBe(false);
    expect(deriveKeys(secret).mac.equals(keys.mac)).toBe(true);
  });
});
