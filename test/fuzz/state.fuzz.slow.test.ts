/**
 * Fuzzing decodeState: random strings and mutated blobs (bit flips, truncation, insertion,
 * deletion, base64url garbage, byte edits under the encoding, splices of two valid blobs) never
 * make it throw, and with a key it never yields messages other than exactly the signed ones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { decodeState, encodeState, type DecodedState } from '../../src/state/index.js';
import { historyArb } from '../support/arbitraries.js';

const KEY = 'fuzzing key with enough entropy!';
const RING = { current: 'k2', keys: { k1: 'an older key, still in the ring', k2: KEY } };
const PROVIDER = 'anthropic' as const;

type Mutation =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'insert'; readonly at: number; readonly text: string }
  | { readonly kind: 'delete'; readonly at: number; readonly count: number }
  | { readonly kind: 'garbage'; readonly segment: number; readonly text: string }
  | { readonly kind: 'byte'; readonly segment: number; readonly at: number; readonly value: number }
  | { readonly kind: 'splice'; readonly at: number; readonly otherAt: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.constantFrom('.', '..', '=', ' ', '\n', 'cs1.', '.default.', '\u0000'),
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 16 }) }),
  fc.record({
    kind: fc.constant('garbage' as const),
    segment: fc.nat(),
    text: fc
      .base64String({ maxLength: 64 })
      .map((text) => text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, '')),
  }),
  fc.record({
    kind: fc.constant('byte' as const),
    segment: fc.nat(),
    at: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), otherAt: fc.nat() }),
);

function mutate(blob: string, other: string, mutation: Mutation): string {
  const at = (n: number): number => (blob.length === 0 ? 0 : n % (blob.length + 1));
  switch (mutation.kind) {
    case 'flip': {
      if (blob.length === 0) return blob;
      const index = mutation.at % blob.length;
      const code = blob.charCodeAt(index) ^ (1 << mutation.bit);
      return blob.slice(0, index) + String.fromCharCode(code) + blob.slice(index + 1);
    }
    case 'truncate':
      return blob.slice(0, at(mutation.at));
    case 'insert':
      return blob.slice(0, at(mutation.at)) + mutation.text + blob.slice(at(mutation.at));
    case 'delete':
      return blob.slice(0, at(mutation.at)) + blob.slice(at(mutation.at) + mutation.count);
    case 'garbage': {
      const segments = blob.split('.');
      segments[mutation.segment % segments.length] = mutation.text;
      return segments.join('.');
    }
    case 'byte': {
      // Edits the bytes under a segment's encoding, so the envelope stays well-formed and the
      // change reaches the MAC, the cipher or the JSON parser instead of the shape checks.
      const segments = blob.split('.');
      const index = mutation.segment % segments.length;
      const bytes = Buffer.from(segments[index] ?? '', 'base64url');
      if (bytes.length === 0) return blob;
      bytes[mutation.at % bytes.length] = mutation.value;
      segments[index] = bytes.toString('base64url');
      return segments.join('.');
    }
    case 'splice':
      return blob.slice(0, at(mutation.at)) + other.slice(mutation.otherAt % (other.length + 1));
    default: {
      const unreachable: never = mutation;
      return unreachable;
    }
  }
}

interface Expected {
  readonly messages: readonly Message[];
  readonly processedLength: number;
}

function same(decoded: DecodedState, expected: Expected): boolean {
  return (
    decoded.processedLength === expected.processedLength &&
    JSON.stringify(decoded.messages) === JSON.stringify(expected.messages)
  );
}

const FRESH: Expected = { messages: [], processedLength: 0 };

/**
 * The signed-state guarantee: the exact signed content, or nothing and a reason. The one exception
 * is the empty string, which is documented as a fresh conversation (anyone able to change a blob
 * can also delete it, so this grants nothing).
 */
function expectSignedOrNothing(blob: string, decoded: DecodedState, allowed: readonly Expected[]): void {
  if (blob === '') {
    expect(same(decoded, FRESH) && decoded.rejected === undefined).toBe(true);
  } else if (decoded.rejected === undefined) {
    expect(allowed.some((candidate) => same(decoded, candidate))).toBe(true);
  } else {
    expect(['invalid', 'version', 'provider', 'corrupt', 'signature']).toContain(decoded.rejected.reason);
    expect(decoded.messages).toEqual([]);
    expect(decoded.processedLength).toBe(0);
  }
}

function decodeSafely(blob: string, key?: typeof RING | string): DecodedState {
  // A throw fails the property with the input that caused it.
  return decodeState(blob, key === undefined ? { provider: PROVIDER } : { provider: PROVIDER, key });
}

const sourceArb = fc.record({
  history: historyArb({ maxTurns: 4 }),
  otherHistory: historyArb({ maxTurns: 2 }),
  processed: fc.nat(),
  encrypt: fc.boolean(),
  mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
});

function encoded(
  history: readonly Message[],
  processed: number,
  encrypt: boolean,
  key?: typeof RING,
): { blob: string; expected: Expected } {
  let leading = 0;
  while (history[leading]?.role === 'system') leading += 1;
  const stored = history.slice(leading);
  const processedLength = processed % (stored.length + 1);
  const blob = encodeState(
    history,
    key === undefined ? { provider: PROVIDER, processedLength } : { provider: PROVIDER, key, encrypt, processedLength },
  );
  return { blob, expected: { messages: stored, processedLength } };
}

describe('decodeState fuzz', () => {
  it('never throws on arbitrary strings, with or without a key', () => {
    const arbitraryBlob = fc.oneof(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.string({ maxLength: 200 }).map((rest) => `cs1.${rest}`),
      fc.base64String({ maxLength: 200 }).map((rest) => `cs1.p.${rest}`),
      fc
        .tuple(fc.base64String({ maxLength: 120 }), fc.base64String({ maxLength: 60 }))
        .map(([a, b]) => `cs1.s.k2.${a}.${b}`),
      fc
        .array(fc.stringMatching(/^[A-Za-z0-9_-]{0,24}$/), { maxLength: 8 })
        .map((parts) => ['cs1', 'e', 'k2', ...parts].join('.')),
    );
    fc.assert(
      fc.property(arbitraryBlob, (blob) => {
        expectSignedOrNothing(blob, decodeSafely(blob, RING), []);
        const unkeyed = decodeSafely(blob);
        expect(unkeyed.messages.every((message) => Message.is(message))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('never yields unsigned messages: mutated signed and encrypted blobs decode to the original or to nothing', () => {
    fc.assert(
      fc.property(sourceArb, ({ history, otherHistory, processed, encrypt, mutations }) => {
        const original = encoded(history, processed, encrypt, RING);
        const other = encoded(otherHistory, processed, !encrypt, RING);
        let blob = original.blob;
        for (const mutation of mutations) blob = mutate(blob, other.blob, mutation);
        // A splice can reproduce the other valid blob exactly; it is signed too, so it may decode.
        expectSignedOrNothing(blob, decodeSafely(blob, RING), [original.expected, other.expected]);
        // Under the wrong key nothing is ever accepted.
        expectSignedOrNothing(blob, decodeSafely(blob, 'a wrong key that is long enough'), []);
      }),
      { numRuns: 500 },
    );
  });

  it('never accepts a mutated unsigned blob when a key is configured, and never throws without one', () => {
    fc.assert(
      fc.property(sourceArb, ({ history, otherHistory, processed, mutations }) => {
        const original = encoded(history, processed, false);
        const other = encoded(otherHistory, processed, false);
        let blob = original.blob;
        for (const mutation of mutations) blob = mutate(blob, other.blob, mutation);
        expectSignedOrNothing(blob, decodeSafely(blob, RING), []);
        const unkeyed = decodeSafely(blob);
        if (unkeyed.rejected === undefined) {
          expect(unkeyed.messages.every((message) => Message.is(message) && Object.isFrozen(message))).toBe(true);
          expect(unkeyed.processedLength).toBeLessThanOrEqual(unkeyed.messages.length);
        } else {
          expect(unkeyed.messages).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips every generated history unmutated', () => {
    fc.assert(
      fc.property(sourceArb, ({ history, processed, encrypt }) => {
        const keyed = encoded(history, processed, encrypt, RING);
        expect(same(decodeSafely(keyed.blob, RING), keyed.expected)).toBe(true);
        const plain = encoded(history, processed, false);
        expect(same(decodeSafely(plain.blob), plain.expected)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
