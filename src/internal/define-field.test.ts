/** `defineField`: a `"__proto__"` key is a field like any other, and no prototype changes. */
import { describe, expect, it } from 'vitest';
import { defineField } from './define-field.js';

describe('defineField', () => {
  it('keeps a "__proto__" key as an own field, where assignment would set the prototype', () => {
    const value = { polluted: true };
    const assigned: Record<string, unknown> = {};
    assigned['__proto__'] = value;
    expect(Object.hasOwn(assigned, '__proto__')).toBe(false);

    const defined: Record<string, unknown> = {};
    defineField(defined, '__proto__', value);
    expect(Object.hasOwn(defined, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(defined)).toBe(Object.prototype);
    expect(defined['polluted']).toBeUndefined();
    expect(JSON.stringify(defined)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('makes an ordinary field: enumerable, writable, in insertion order', () => {
    const target: Record<string, unknown> = {};
    defineField(target, 'b', 1);
    defineField(target, 'constructor', 2);
    target['b'] = 3;
    expect(Object.entries(target)).toEqual([
      ['b', 3],
      ['constructor', 2],
    ]);
  });
});
