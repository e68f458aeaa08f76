import { describe, expect, it } from 'vitest';
import { inPeriods, mentionsTime, timeIntent } from './time-intent.js';

describe('timeIntent', () => {
  it('notices questions asking when', () => {
    expect(timeIntent('When did Ana run a marathon?').asksWhen).toBe(true);
    expect(timeIntent('How long ago was her birthday?').asksWhen).toBe(true);
    expect(timeIntent('What does Ana paint?').asksWhen).toBe(false);
  });

  it('reads "recently" and "lately" as asking when: the answer places the event in time', () => {
    expect(timeIntent('What did Ana paint recently?').asksWhen).toBe(true);
    expect(timeIntent('What has he been reading lately?').asksWhen).toBe(true);
  });

  it('reads named months, years and seasons; "may" the verb is no month', () => {
    expect(timeIntent('What did she bake in June?').periods).toEqual([{ months: [5] }]);
    expect(timeIntent('Where was he in May 2023?').periods).toEqual([{ months: [4], year: 2023 }]);
    expect(timeIntent('What may she do in 2022?').periods).toEqual([{ months: [], year: 2022 }]);
    expect(timeIntent('Any plans for the summer?').periods).toEqual([{ months: [5, 6, 7] }]);
  });

  it('tells whether an instant falls in the named periods', () => {
    const june = Date.UTC(2023, 5, 27);
    expect(inPeriods(june, [{ months: [5] }])).toBe(true);
    expect(inPeriods(june, [{ months: [5], year: 2022 }])).toBe(false);
    expect(inPeriods(june, [{ months: [], year: 2023 }])).toBe(true);
    expect(inPeriods(Number.NaN, [{ months: [5] }])).toBe(false);
  });
});

describe('mentionsTime', () => {
  it('finds words that place an event in time', () => {
    expect(mentionsTime('I went there yesterday')).toBe(true);
    expect(mentionsTime('two weekends ago we went camping')).toBe(true);
    expect(mentionsTime('I love painting sunsets')).toBe(false);
    expect(mentionsTime('We met this morning')).toBe(true);
    expect(mentionsTime('A lovely morning')).toBe(false);
    expect(mentionsTime('Back in 2019, and in 1850')).toBe(true);
    expect(mentionsTime('Order 1850 shipped')).toBe(false);
    expect(mentionsTime('Leaves fall in the park')).toBe(false);
  });
});
