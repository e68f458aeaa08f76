import { describe, expect, it } from 'vitest';
import { stem } from './analyzer.js';
import { DEFAULT_RANKING, Ranker } from './ranker.js';
import { variantsOf } from './variants.js';

describe('variantsOf', () => {
  it('gives the other words of a group, stemmed, and nothing for a word without one', () => {
    expect(variantsOf(stem('kids'))).toContain(stem('children'));
    expect(variantsOf(stem('mother'))).toContain(stem('mom'));
    expect(variantsOf(stem('mother'))).not.toContain(stem('mother'));
    expect(variantsOf(stem('marathon'))).toEqual([]);
    expect(variantsOf(stem('business'))).toContain(stem('biz'));
    expect(variantsOf(stem('festivals'))).toContain(stem('fest'));
  });
});

describe('Ranker with variants', () => {
  it("finds a question's word in its chat clipping", () => {
    const ranker = new Ranker();
    ranker.add(1, 'Jon: the biz is finally growing');
    ranker.add(2, 'Jon: the weather is growing cold');
    expect(ranker.search('How is the business going?', 5).map((match) => match.docId)).toEqual([1]);
  });

  it('finds a message that says the same thing in other words, below one that uses the query word', () => {
    const ranker = new Ranker();
    ranker.add(1, 'The children loved the museum');
    ranker.add(2, 'The weather was cold');
    ranker.add(3, 'The kids loved the zoo');
    expect(ranker.search('What did the kids love?', 5).map((match) => match.docId)).toEqual([3, 1]);
    const without = new Ranker({ ...DEFAULT_RANKING, variant: 0 });
    without.add(1, 'The children loved the museum');
    without.add(2, 'The weather was cold');
    expect(without.search('kids', 5)).toEqual([]);
  });
});
