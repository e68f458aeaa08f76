import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, positionOf } from './json-position.js';

describe('jsonErrorOffset', () => {
  it('finds where JSON stops being JSON', () => {
    expect(jsonErrorOffset('{"a":}')).toBe(5);
    expect(jsonErrorOffset('[1,2')).toBe(4);
    expect(jsonErrorOffset('{"a" 1}')).toBe(5);
    expect(jsonErrorOffset('[1,]')).toBe(3);
    expect(jsonErrorOffset('')).toBe(0);
    expect(jsonErrorOffset('{} x')).toBe(3);
    expect(jsonErrorOffset('"\\x"')).toBe(2);
    expect(jsonErrorOffset('"\\u12g4"')).toBe(5);
    expect(jsonErrorOffset('01')).toBe(1);
    expect(jsonErrorOffset('tru')).toBe(3);
    expect(jsonErrorOffset('"a\nb"')).toBe(2);
  });

  it('agrees with JSON.parse on what is JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1);
        expect(jsonErrorOffset(text)).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', ':', '"', 'x', '-', '.', '\\'),
        (value, at, inserted) => {
          const base = JSON.stringify(value);
          const index = at % (base.length + 1);
          const text = base.slice(0, index) + inserted + base.slice(index);
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          const offset = jsonErrorOffset(text);
          expect(offset === undefined).toBe(valid);
          if (offset !== undefined) expect(offset).toBeLessThanOrEqual(text.length);
        },
      ),
    );
  });
});

describe('positionOf', () => {
  it('gives 1-based lines and columns', () => {
    expect(positionOf('abc', 0)).toEqual({ line: 1, column: 1 });
    expect(positionOf('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(positionOf('ab\n', 3)).toEqual({ line: 2, column: 1 });
  });
});
