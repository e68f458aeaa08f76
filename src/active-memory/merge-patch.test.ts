import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../message/schema.js';
import { mergePatch } from './merge-patch.js';

// RFC 7396, Appendix A: every example, as [original, patch, result].
const APPENDIX_A: ReadonlyArray<readonly [JsonValue, JsonValue, JsonValue]> = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('mergePatch (RFC 7396)', () => {
  it.each(APPENDIX_A.map((example, index) => [index + 1, ...example] as const))(
    'appendix A example %i',
    (_index, original, patch, result) => {
      expect(mergePatch(original, patch)).toEqual(result);
    },
  );

  it('the example of section 3 (a nested document)', () => {
    const original = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    expect(mergePatch(original, patch)).toEqual({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });

  it('changes neither input and returns a frozen value', () => {
    const original = { a: { b: 1 } };
    const patch = { a: { c: 2 } };
    const result = mergePatch(original, patch) as { a: object };
    expect(original).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { c: 2 } });
    expect(Object.isFrozen(result) && Object.isFrozen(result.a)).toBe(true);
  });

  it('keeps a "__proto__" member as data instead of replacing the prototype', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true}}') as JsonValue;
    const result = mergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
