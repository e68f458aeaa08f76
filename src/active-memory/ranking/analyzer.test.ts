import { describe, expect, it } from 'vitest';
import { RECALL_STOPWORDS, analyze, stem } from './analyzer.js';

describe('analyze', () => {
  it('reduces word forms to one stem', () => {
    expect(analyze('adopted adopting adoption')).toEqual(['adopt', 'adopt', 'adopt']);
    expect(stem('running')).toBe(stem('runs'));
  });

  it('leaves out the words a question is made of, and keeps digits and non-Latin words whole', () => {
    expect(analyze('When did Caroline likely go to the support group?')).toEqual(['carolin', 'go', 'support', 'group']);
    expect(RECALL_STOPWORDS.has('likely')).toBe(true);
    expect(analyze('2023 東京タワー')).toEqual(['2023', '東京タワー']);
  });
});
