import { describe, expect, it } from 'vitest';
import { Message } from '../message/message.js';
import { decodeState } from './decode-state.js';
import { encodeState } from './encode-state.js';
import { sealEnvelope } from './envelope.js';
import { resolveKeyRing } from './key-ring.js';
import type { DecodedState, StateRejectionReason } from './types.js';

const KEY = 'correct horse battery staple 42';
const OTHER_KEY = 'another perfectly long secret!!';

const messages = [
  Message.system('prompt'),
  Message.user('Hello', { id: 'u1' }),
  Message.assistant('Hi there', { id: 'a1' }),
];
const plain = encodeState(messages, { provider: 'anthropic' });
const signed = encodeState(messages, { provider: 'anthropic', key: KEY });
const encrypted = encodeState(messages, { provider: 'anthropic', key: KEY, encrypt: true });

function expectRejected(decoded: DecodedState, reason: StateRejectionReason): void {
  expect(decoded.rejected?.reason).toBe(reason);
  expect(decoded.rejected?.message.length).toBeGreaterThan(0);
  expect(decoded.messages).toEqual([]);
  expect(decoded.processedLength).toBe(0);
}

/** Flips one bit of the bytes a base64url segment encodes and re-encodes it canonically. */
function flipSegment(blob: string, index: number, byte = 0): string {
  const segments = blob.split('.');
  const bytes = Buffer.from(segments[index] as string, 'base64url');
  bytes[byte] = (bytes[byte] as number) ^ 1;
  segments[index] = bytes.toString('base64url');
  return segments.join('.');
}

/** A blob signed with KEY around arbitrary JSON text: authentic, so only its content can be wrong. */
function signedJson(json: string, encrypt = false): string {
  return sealEnvelope(json, resolveKeyRing(KEY), encrypt);
}

function plainJson(json: string): string {
  return sealEnvelope(json, undefined, false);
}

describe('decodeState: fresh conversations', () => {
  it('treats undefined, null and the empty string as a fresh conversation, not a rejection', () => {
    for (const blob of [undefined, null, '']) {
      expect(decodeState(blob, { provider: 'anthropic', key: KEY })).toEqual({ messages: [], processedLength: 0 });
    }
  });

  it('ignores surrounding whitespace (a trailing newline from a file)', () => {
    expect(decodeState(`  ${signed}\n`, { provider: 'anthropic', key: KEY }).messages.map((m) => m.id)).toEqual([
      'u1',
      'a1',
    ]);
  });
});

describe('decodeState: every rejection reason', () => {
  it('invalid: not a blob, wrong shape, too large, bad options', () => {
    for (const blob of [
      'hello',
      '   ',
      'cs1',
      'cs1.',
      'cs1.x.abc',
      'cs1.p',
      'cs1.p.',
      'cs1.p.a.b',
      'cs1.p.!!!!',
      'cs1.s.bad id.x.y',
      '{"v":1}',
    ]) {
      expectRejected(decodeState(blob, { provider: 'anthropic' }), 'invalid');
    }
    expectRejected(decodeState(42 as unknown as string, { provider: 'anthropic' }), 'invalid');
    expectRejected(decodeState(plain, { provider: 'anthropic', maxBytes: plain.length - 1 }), 'invalid');
    expect(decodeState(plain, { provider: 'anthropic', maxBytes: plain.length }).rejected).toBeUndefined();
    expectRejected(decodeState(plain, { provider: 'nope' as never }), 'invalid');
    expectRejected(decodeState(plain, undefined as never), 'invalid');
    expectRejected(decodeState(signed, { provider: 'anthropic', key: 'weak' }), 'invalid');
    expectRejected(decodeState(plain, { provider: 'anthropic', maxBytes: -1 }), 'invalid');
  });

  it('invalid: a blob over the default 16 MiB limit, rejected without being read', () => {
    expectRejected(decodeState(`cs1.p.${'A'.repeat(16 * 1024 * 1024)}`, { provider: 'anthropic' }), 'invalid');
  });

  it('version: another format version in the prefix or the payload', () => {
    expectRejected(decodeState(plain.replace(/^cs1\./, 'cs2.'), { provider: 'anthropic' }), 'version');
    expectRejected(decodeState(signed.replace(/^cs1\./, 'cs9.'), { provider: 'anthropic', key: KEY }), 'version');
    const v2 = '{"v":2,"provider":"anthropic","processedLength":0,"messages":[]}';
    expectRejected(decodeState(plainJson(v2), { provider: 'anthropic' }), 'version');
    expectRejected(decodeState(signedJson(v2), { provider: 'anthropic', key: KEY }), 'version');
  });

  it('provider: state is locked to the provider it was written for', () => {
    expectRejected(decodeState(plain, { provider: 'openaiChat' }), 'provider');
    expectRejected(decodeState(signed, { provider: 'gemini', key: KEY }), 'provider');
    expectRejected(decodeState(encrypted, { provider: 'aiSdk', key: KEY }), 'provider');
  });

  it('corrupt: authentic blobs whose content does not parse or validate', () => {
    const cases = [
      'not json',
      '[]',
      'null',
      '{"provider":"anthropic","processedLength":0,"messages":[]}',
      '{"v":1,"processedLength":0,"messages":[]}',
      '{"v":1,"provider":"anthropic","processedLength":-1,"messages":[]}',
      '{"v":1,"provider":"anthropic","processedLength":2,"messages":[]}',
      '{"v":1,"provider":"anthropic","processedLength":0,"messages":{}}',
      '{"v":1,"provider":"anthropic","processedLength":0,"messages":[],"extra":true}',
      '{"v":1,"provider":"anthropic","processedLength":0,"messages":[7]}',
      '{"v":1,"provider":"anthropic","processedLength":0,"messages":[{"role":"wizard","content":"x"}]}',
      '{"v":1,"provider":"anthropic","processedLength":0,"messages":[{"role":"tool","content":"x"}]}',
    ];
    for (const json of cases) {
      expectRejected(decodeState(plainJson(json), { provider: 'anthropic' }), 'corrupt');
      expectRejected(decodeState(signedJson(json), { provider: 'anthropic', key: KEY }), 'corrupt');
      expectRejected(decodeState(signedJson(json, true), { provider: 'anthropic', key: KEY }), 'corrupt');
    }
    // Valid base64url whose bytes are not UTF-8.
    expectRejected(
      decodeState(`cs1.p.${Buffer.from([0xff, 0xfe, 0x80]).toString('base64url')}`, { provider: 'anthropic' }),
      'corrupt',
    );
  });

  it('corrupt: absurdly nested JSON is rejected, not thrown', () => {
    const deep = `{"v":1,"provider":"anthropic","processedLength":0,"messages":[{"role":"user","content":"x","metadata":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]}`;
    expect(decodeState(plainJson(deep), { provider: 'anthropic' }).rejected?.reason).toBe('corrupt');
  });

  it('signature: an unsigned blob is never trusted when a key is configured', () => {
    expectRejected(decodeState(plain, { provider: 'anthropic', key: KEY }), 'signature');
  });

  it('signature: a signed blob cannot be read without its key', () => {
    expectRejected(decodeState(signed, { provider: 'anthropic' }), 'signature');
    expectRejected(decodeState(encrypted, { provider: 'anthropic' }), 'signature');
  });

  it('signature: the wrong key', () => {
    expectRejected(decodeState(signed, { provider: 'anthropic', key: OTHER_KEY }), 'signature');
    expectRejected(decodeState(encrypted, { provider: 'anthropic', key: OTHER_KEY }), 'signature');
  });
});

describe('decodeState: tampering', () => {
  it('rejects a changed payload of a signed blob', () => {
    expectRejected(decodeState(flipSegment(signed, 3, 10), { provider: 'anthropic', key: KEY }), 'signature');
    // A forged payload, re-encoded as valid JSON with other messages, is just as rejected.
    const forged = signed.split('.');
    forged[3] = Buffer.from(JSON.stringify({ v: 1, provider: 'anthropic', processedLength: 0, messages: [] })).toString(
      'base64url',
    );
    expectRejected(decodeState(forged.join('.'), { provider: 'anthropic', key: KEY }), 'signature');
  });

  it('rejects a changed signature, in every one of its bytes', () => {
    for (let byte = 0; byte < 32; byte++) {
      expectRejected(decodeState(flipSegment(signed, 4, byte), { provider: 'anthropic', key: KEY }), 'signature');
    }
    // Non-canonical spelling of the same MAC bytes (the last character's unused low bits).
    const segments = signed.split('.');
    const mac = segments[4] as string;
    const last = mac.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    segments[4] = mac.slice(0, -1) + (alphabet[alphabet.indexOf(last) ^ 1] as string);
    expect(Buffer.from(segments[4], 'base64url')).toEqual(Buffer.from(mac, 'base64url'));
    expectRejected(decodeState(segments.join('.'), { provider: 'anthropic', key: KEY }), 'signature');
    // A missing signature.
    expectRejected(
      decodeState(signed.slice(0, signed.lastIndexOf('.') + 1), { provider: 'anthropic', key: KEY }),
      'invalid',
    );
  });

  it('rejects a changed iv, ciphertext, tag or signature of an encrypted blob', () => {
    for (const index of [3, 4, 5, 6]) {
      expectRejected(decodeState(flipSegment(encrypted, index), { provider: 'anthropic', key: KEY }), 'signature');
    }
  });

  it('rejects a changed key id or mode (no downgrade from encrypted to signed)', () => {
    expectRejected(
      decodeState(signed.replace('.default.', '.other.'), { provider: 'anthropic', key: KEY }),
      'signature',
    );
    const ring = { current: 'default', keys: { default: KEY, other: KEY } };
    // Same secret under another id: the MAC covers the id, so the swap is still detected.
    expectRejected(
      decodeState(signed.replace('.default.', '.other.'), { provider: 'anthropic', key: ring }),
      'signature',
    );
    expectRejected(decodeState(signed.replace('cs1.s.', 'cs1.e.'), { provider: 'anthropic', key: KEY }), 'invalid');
    const asSigned = encrypted.split('.');
    expectRejected(
      decodeState(['cs1', 's', 'default', asSigned[4], asSigned[6]].join('.'), { provider: 'anthropic', key: KEY }),
      'signature',
    );
  });

  it('rejects a blob re-signed with another key', () => {
    const other = encodeState(messages, { provider: 'anthropic', key: OTHER_KEY });
    expectRejected(decodeState(other, { provider: 'anthropic', key: KEY }), 'signature');
  });
});

describe('cached token counts in a blob (review regression)', () => {
  it('are dropped from an unsigned blob and kept from a signed one', () => {
    const forged = [
      Message.user('word '.repeat(5000), { tokens: { estimate: 1 } }),
      Message.assistant('ok', { tokens: { estimate: 1 } }),
    ];
    const plain = decodeState(encodeState(forged, { provider: 'openaiChat' }), { provider: 'openaiChat' });
    expect(plain.messages.map((m) => m.tokens)).toEqual([undefined, undefined]);
    const key = 'a key that is long enough';
    const signed = decodeState(encodeState(forged, { provider: 'openaiChat', key }), { provider: 'openaiChat', key });
    expect(signed.messages.map((m) => m.tokens)).toEqual([{ estimate: 1 }, { estimate: 1 }]);
  });
});
