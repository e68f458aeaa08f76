import { describe, expect, it } from 'vitest';
import { readJson } from '../../message/json-value.js';
import type { JsonValue } from '../../message/schema.js';
import { jsonEqual, readsAs } from './json-equal.js';

/** `value` as `readJson` reads it (`omitUndefined`), for the expected side. */
function checked(value: unknown): JsonValue {
  const read = readJson(value, { omitUndefined: true });
  if (!read.ok) throw new Error(read.problem.message);
  return read.value;
}

describe('jsonEqual', () => {
  it('compares data, key order aside', () => {
    expect(jsonEqual(checked({ a: 1, b: [1, { c: 'x' }] }), checked({ b: [1, { c: 'x' }], a: 1 }))).toBe(true);
    expect(jsonEqual(checked({ a: 1 }), checked({ a: 1, b: null }))).toBe(false);
    expect(jsonEqual(checked([1, 2]), checked([2, 1]))).toBe(false);
    expect(jsonEqual(checked({ 0: 'a' }), checked(['a']))).toBe(false);
    expect(jsonEqual(checked('1'), checked(1))).toBe(false);
  });

  it('reads a "__proto__" key as data on both sides', () => {
    const a = checked(JSON.parse('{"__proto__": {"x": 1}}'));
    expect(jsonEqual(a, checked(JSON.parse('{"__proto__": {"x": 1}}')))).toBe(true);
    expect(jsonEqual(a, checked(JSON.parse('{"__proto__": {"x": 2}}')))).toBe(false);
    expect(jsonEqual(a, checked({}))).toBe(false);
  });
});

describe('readsAs', () => {
  const stored = checked({ id: 'm1', parts: [{ type: 'text', text: 'hi' }], metadata: { n: 0 } });

  it('is true for plain data equal to the checked value, fields set to undefined left out', () => {
    expect(readsAs({ metadata: { n: -0 }, parts: [{ text: 'hi', type: 'text' }], id: 'm1' }, stored)).toBe(true);
    expect(
      readsAs({ id: 'm1', parts: [{ type: 'text', text: 'hi', state: undefined }], metadata: { n: 0 } }, stored),
    ).toBe(true);
    const bare = Object.assign(Object.create(null) as object, {
      id: 'm1',
      parts: [{ type: 'text', text: 'hi' }],
      metadata: { n: 0 },
    });
    expect(readsAs(bare, stored)).toBe(true);
  });

  it('is false for any difference', () => {
    expect(readsAs({ id: 'm1', parts: [{ type: 'text', text: 'hi!' }], metadata: { n: 0 } }, stored)).toBe(false);
    expect(readsAs({ id: 'm1', parts: [{ type: 'text', text: 'hi' }] }, stored)).toBe(false);
    expect(readsAs({ id: 'm1', parts: [{ type: 'text', text: 'hi' }], metadata: { n: 0 }, extra: 1 }, stored)).toBe(
      false,
    );
    expect(readsAs({ id: 'm1', parts: [], metadata: { n: 0 } }, stored)).toBe(false);
    expect(readsAs(null, stored)).toBe(false);
    expect(readsAs(Number.NaN, checked(0))).toBe(false);
  });

  it('is false, calling nothing, for what readJson refuses or coerces: getters, Proxies, class instances, symbol keys, holes', () => {
    let calls = 0;
    const withGetter = { id: 'm1', parts: [{ type: 'text', text: 'hi' }] } as Record<string, unknown>;
    Object.defineProperty(withGetter, 'metadata', {
      enumerable: true,
      get: () => {
        calls += 1;
        return { n: 0 };
      },
    });
    expect(readsAs(withGetter, stored)).toBe(false);
    let traps = 0;
    const proxied = new Proxy(
      { id: 'm1', parts: [{ type: 'text', text: 'hi' }], metadata: { n: 0 } },
      {
        ownKeys: (target) => {
          traps += 1;
          return Reflect.ownKeys(target);
        },
      },
    );
    expect(readsAs(proxied, stored)).toBe(false);
    expect(
      readsAs({ id: 'm1', parts: [new Proxy({ type: 'text', text: 'hi' }, {})], metadata: { n: 0 } }, stored),
    ).toBe(false);
    expect(calls + traps).toBe(0);
    class Part {
      type = 'text';
      text = 'hi';
    }
    expect(readsAs({ id: 'm1', parts: [new Part()], metadata: { n: 0 } }, stored)).toBe(false);
    expect(
      readsAs({ id: 'm1', parts: [{ type: 'text', text: 'hi', [Symbol('s')]: 1 }], metadata: { n: 0 } }, stored),
    ).toBe(false);
    const date = checked({ at: new Date(0).toISOString() });
    // A date is read as its JSON text by a full read, not taken as equal here.
    expect(readsAs({ at: new Date(0) }, date)).toBe(false);
    // eslint-disable-next-line no-sparse-arrays
    expect(readsAs([1, , 3], checked([1, null, 3]))).toBe(false);
  });

  it('stops at the depth of the checked value: a cyclic value is compared, not walked forever', () => {
    const cyclic: Record<string, unknown> = { id: 'm1', metadata: { n: 0 } };
    cyclic['parts'] = [cyclic];
    expect(readsAs(cyclic, stored)).toBe(false);
  });
});
