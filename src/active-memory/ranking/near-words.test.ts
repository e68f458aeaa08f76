import { describe, expect, it } from 'vitest';
import { editDistance, nearWords } from './near-words.js';

const vocabulary = ['festival', 'fest', 'education', 'edu', 'road', 'trip', 'camping', 'campaign'];
const known = (word: string): boolean => vocabulary.includes(word);

describe('nearWords', () => {
  it('counts insertions, deletions, substitutions and swaps, and stops past the allowance', () => {
    expect(editDistance('festival', 'festival', 2)).toBe(0);
    expect(editDistance('fesetival', 'festival', 2)).toBe(1);
    expect(editDistance('cmaping', 'camping', 2)).toBe(1);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });

  it('finds the closest known words of a typo and the known heads of a word', () => {
    expect(nearWords('fesetival', vocabulary, known)).toEqual(['festival']);
    expect(nearWords('festivals', vocabulary, known)).toEqual(['festival', 'fest']);
    expect(nearWords('educaton', vocabulary, known)).toEqual(['education', 'edu']);
    expect(nearWords('cmaping', vocabulary, known)).toEqual(['camping']);
  });

  it('splits two known words written as one', () => {
    expect(nearWords('roadtrip', vocabulary, known)).toEqual(['road', 'trip']);
  });

  it('leaves short, unrelated and non-letter words alone', () => {
    expect(nearWords('fst', vocabulary, known)).toEqual([]);
    expect(nearWords('zebra', vocabulary, known)).toEqual([]);
    expect(nearWords('road42', vocabulary, known)).toEqual([]);
  });
});
