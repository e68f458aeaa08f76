import { describe, expect, it } from 'vitest';
import { RECALL_STOPWORDS, analyze, stem } from './analyzer.js';

describe('analyze', () => {
  it('reduces word forms to one stem', () => {
    expect(analyze('adopted adopting adoption')).toEqual(['adopt', 'adopt', 'adopt']);
    expect(stem('running')).toBe(stem('runs'));
  });

  it('takes irregular verb forms to their base, and leaves the ambiguous ones alone', () => {
    expect(analyze('drew drawn drawing')).toEqual(['draw', 'draw', 'draw']);
    expect(analyze('bought buying')).toEqual(['bui', 'bui']);
    expect(analyze('went')).toEqual(['go']);
    // "left" is more often a side, "won" the head of "won't".
    expect(analyze('left won')).toEqual(['left', 'won']);
  });

  it('leaves out the words a question is made of, and keeps digits and non-Latin words whole', () => {
    expect(analyze('When did Caroline likely go to the support group?')).toEqual(['carolin', 'go', 'support', 'group']);
    expect(RECALL_STOPWORDS.has('likely')).toBe(true);
    expect(analyze('2023 東京タワー')).toEqual(['2023', '東京タワー']);
  });
});
