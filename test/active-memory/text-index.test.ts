/** The in-process BM25 index: tokenization, ranking, removal, and its normalized scores. */
import { describe, expect, it } from 'vitest';
import { ENGLISH_STOPWORDS, TextIndex, tokenize } from '../../src/active-memory/text-index.js';

describe('tokenize', () => {
  it('lowercases, splits on anything but letters and digits, and drops stopwords and one-letter terms', () => {
    expect(tokenize("The Dog's NAME is Biscuit-42, isn't it?")).toEqual(['dog', 'name', 'biscuit', '42', 'isn']);
    expect(tokenize('the dog', new Set())).toEqual(['the', 'dog']);
    expect(ENGLISH_STOPWORDS.has('the')).toBe(true);
  });

  it('folds compatibility forms (NFKC) and keeps non-Latin words', () => {
    expect(tokenize('Ｃａｆé crème 東京タワー')).toEqual(['café', 'crème', '東京タワー']);
  });

  it('leaves out terms longer than 64 characters (hashes, base64)', () => {
    expect(tokenize(`key ${'a'.repeat(65)} ${'b'.repeat(64)}`)).toEqual(['key', 'b'.repeat(64)]);
  });
});

describe('TextIndex', () => {
  it('ranks by BM25, best first, scores relative to the best', () => {
    const index = new TextIndex();
    index.add(1, 'zebra zebra zebra');
    index.add(2, 'a zebra among many many other animals in a crowded zoo');
    index.add(3, 'lions and tigers');
    const matches = index.search('zebra', 10);
    expect(matches.map((match) => match.docId)).toEqual([1, 2]);
    expect(matches[0]?.score).toBe(1);
    expect(matches[1]?.score).toBeGreaterThan(0);
    expect(matches[1]?.score).toBeLessThan(1);
  });

  it('weighs rare terms above common ones', () => {
    const index = new TextIndex();
    for (let id = 1; id <= 20; id++) index.add(id, `common words number ${id}`);
    index.add(21, 'rare words');
    const matches = index.search('common rare', 30);
    expect(matches).toHaveLength(21);
    expect(matches[0]?.docId).toBe(21);
    expect(matches[1]?.score).toBeLessThan(0.5);
  });

  it('breaks ties toward the newer document and honours the limit', () => {
    const index = new TextIndex();
    index.add(1, 'same words');
    index.add(2, 'same words');
    index.add(3, 'same words');
    expect(index.search('same', 2).map((match) => match.docId)).toEqual([3, 2]);
  });

  it('forgets removed documents, even after many removals', () => {
    const index = new TextIndex();
    for (let id = 1; id <= 3000; id++) index.add(id, id % 2 === 0 ? `even token ${id}` : `odd token ${id}`);
    for (let id = 1; id <= 3000; id += 2) index.remove(id);
    index.remove(1);
    index.remove(99_999);
    expect(index.size).toBe(1500);
    expect(index.search('odd', 10)).toEqual([]);
    expect(index.search('token', 5000)).toHaveLength(1500);
    for (let id = 2; id <= 3000; id += 2) index.remove(id);
    expect(index.size).toBe(0);
    expect(index.search('token', 10)).toEqual([]);
  });

  it('indexes nothing for a text without terms, and finds nothing for a query without terms', () => {
    const index = new TextIndex();
    expect(index.add(1, 'the of and ... !!!')).toBe(false);
    expect(index.add(2, 'meaningful')).toBe(true);
    expect(index.size).toBe(1);
    expect(index.search('the and', 10)).toEqual([]);
    expect(index.search('meaningful', 0)).toEqual([]);
  });

  it('can keep stopwords', () => {
    const index = new TextIndex({ stopwords: false });
    index.add(1, 'to be or not to be');
    expect(index.search('be', 1).map((match) => match.docId)).toEqual([1]);
  });
});
