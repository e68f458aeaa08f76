import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_INDEXED_CHARS,
  MAX_QUERY_TERMS,
  foldText,
  relativeScores,
  searchTerms,
  sessionNamespaces,
} from './sql-search.js';

describe('foldText', () => {
  it('folds case, Unicode forms, lone surrogates and NUL; keeps the first MAX_INDEXED_CHARS', () => {
    expect(foldText('ＡＢＣ Привет É')).toBe('abc привет é');
    expect(foldText('e\u0301')).toBe('é');
    expect(foldText('a\uD800b\0c')).toBe('a\uFFFDb c');
    expect(foldText('x'.repeat(MAX_INDEXED_CHARS + 10))).toHaveLength(MAX_INDEXED_CHARS);
    // A pair cut in two by the limit does not leave half of it behind.
    expect(foldText(`${'x'.repeat(MAX_INDEXED_CHARS - 1)}😀`).endsWith('\uFFFD')).toBe(true);
  });
});

describe('searchTerms', () => {
  it('keeps words only: no quote, operator or punctuation survives', () => {
    expect(searchTerms('"a" OR b* NEAR( col:x {y z}: ^start -not')).toEqual([
      'a',
      'or',
      'b',
      'near',
      'col',
      'x',
      'y',
      'z',
      'start',
      'not',
    ]);
    expect(searchTerms('Über über ÜBER')).toEqual(['über']);
    expect(searchTerms('🎉 ... ()')).toEqual([]);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        for (const term of searchTerms(text)) expect(term).toMatch(/^[\p{L}\p{N}\p{M}]+$/u);
      }),
    );
  });

  it('keeps at most MAX_QUERY_TERMS distinct words, in order of first appearance', () => {
    const words = Array.from({ length: MAX_QUERY_TERMS + 5 }, (_, index) => `w${index}`);
    expect(searchTerms(words.join(' '))).toEqual(words.slice(0, MAX_QUERY_TERMS));
  });
});

describe('relativeScores', () => {
  it('divides by the best score, so the best is 1 and all are in (0, 1]', () => {
    expect(relativeScores([4, 2, 1])).toEqual([1, 0.5, 0.25]);
    expect(relativeScores([])).toEqual([]);
    for (const score of relativeScores([0, 0])) expect(score).toBeGreaterThan(0);
  });
});

describe('sessionNamespaces', () => {
  const inRange = (id: string, ns: string): boolean => {
    const { exact, children, end } = sessionNamespaces(id);
    return ns >= exact && ns < end && (ns === exact || ns >= children);
  };

  it('holds session:<id> and session:<id>/… of that id and of no other', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,12}$/);
    fc.assert(
      fc.property(id, id, fc.string(), (a, b, rest) => {
        expect(inRange(a, `session:${b}`)).toBe(a === b);
        expect(inRange(a, `session:${b}/${rest}`)).toBe(a === b);
      }),
    );
    expect(inRange('a', 'session:a-b')).toBe(false);
    expect(inRange('a', 'session:a.b/x')).toBe(false);
    expect(inRange('a', 'user:a')).toBe(false);
  });
});
