/**
 * `canonicalJson`: one text for equal data whatever the key order, different text for different
 * data (a `"__proto__"` key included), `JSON.stringify`'s reading of what JSON leaves out, and a
 * typed error for what JSON cannot hold.
 */
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../test/support/errors.js';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('writes equal data as equal text whatever order the keys came in, at every depth', () => {
    const a = { b: 1, a: [{ y: true, x: null }], c: { e: 'e', d: 'd' } };
    const b = { c: { d: 'd', e: 'e' }, a: [{ x: null, y: true }], b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":[{"x":null,"y":true}],"b":1,"c":{"d":"d","e":"e"}}');
  });

  it('keeps the order of array elements (an array is a sequence)', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('orders integer-like keys first, numerically, then the others sorted (the stored hash text)', () => {
    expect(canonicalJson({ b: 0, 10: 0, a: 0, 9: 0 })).toBe('{"9":0,"10":0,"a":0,"b":0}');
  });

  it('keeps a "__proto__" key as data: two values differing only there differ', () => {
    const first = JSON.parse('{"type":"message","__proto__":{"secret":1}}') as unknown;
    const second = JSON.parse('{"type":"message","__proto__":{"secret":2}}') as unknown;
    const without = JSON.parse('{"type":"message"}') as unknown;
    expect(canonicalJson(first)).toBe('{"__proto__":{"secret":1},"type":"message"}');
    expect(new Set([canonicalJson(first), canonicalJson(second), canonicalJson(without)]).size).toBe(3);
    // Nested, and with a primitive value (which an assignment would silently drop).
    expect(canonicalJson({ items: [JSON.parse('{"__proto__":7}') as unknown] })).toBe('{"items":[{"__proto__":7}]}');
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
  });

  it('reads what JSON leaves out as JSON.stringify does', () => {
    expect(canonicalJson({ b: undefined, a: () => 1, c: 1 })).toBe('{"c":1}');
    expect(canonicalJson([undefined, () => 1])).toBe('[null,null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ when: new Date(0) })).toBe('{"when":"1970-01-01T00:00:00.000Z"}');
  });

  it('refuses a cycle or a bigint with INVALID_ARGUMENT', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const value of [cyclic, { n: 1n }]) expect(codeOf(() => canonicalJson(value))).toBe('INVALID_ARGUMENT');
  });
});
