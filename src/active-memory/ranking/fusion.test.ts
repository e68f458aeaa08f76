import { describe, expect, it } from 'vitest';
import { VECTOR_WEIGHT, chanceLevel, fuseRankings, type FusionInput, type SimilarityStats } from './fusion.js';

/** 1,000 messages whose similarities to the query average 0.1 with a standard deviation of 0.1. */
const STATS: SimilarityStats = { count: 1000, mean: 0.1, spread: 0.1 };
/** Where chance ends for `STATS`: 0.1 + √(2 ln 1000) × 0.1 ≈ 0.472. */
const LEVEL = chanceLevel(STATS);

/** A fusion input from text scores and similarities by id; the nearest are those with a similarity, best first. */
function input(
  text: ReadonlyArray<readonly [number, number]>,
  similarities: Readonly<Record<number, number>>,
  stats: SimilarityStats = STATS,
): FusionInput {
  return {
    text: text.map(([id, score]) => ({ id, score })),
    nearest: Object.entries(similarities)
      .map(([id, similarity]) => ({ id: Number(id), similarity }))
      .filter((row) => row.similarity > 0)
      .sort((a, b) => b.similarity - a.similarity),
    similarity: (id) => similarities[id],
    stats,
  };
}

const order = (fused: ReadonlyArray<{ id: number; score: number }>): number[] =>
  [...fused].sort((a, b) => b.score - a.score).map((entry) => entry.id);

describe('fuseRankings', () => {
  it('places chance at √(2 ln N) standard deviations above the mean, and nowhere without a spread', () => {
    expect(LEVEL).toBeCloseTo(0.1 + Math.sqrt(2 * Math.log(1000)) * 0.1, 12);
    expect(chanceLevel({ count: 1, mean: 0.5, spread: 0.1 })).toBe(Infinity);
    expect(chanceLevel({ count: 50, mean: 0.5, spread: 0 })).toBe(Infinity);
  });

  it('keeps the text ranking and its scores when no similarity stands out from chance', () => {
    // Message 3 is the most similar by far among these, but still within what noise gives over 1,000.
    const fused = fuseRankings(
      input(
        [
          [1, 1],
          [2, 0.98],
          [3, 0.5],
        ],
        { 1: 0.05, 2: 0.2, 3: LEVEL - 0.01, 4: 0.4 },
      ),
    );
    expect(order(fused)).toEqual([1, 2, 3, 4]);
    expect(fused.filter((entry) => entry.id !== 4)).toEqual([
      { id: 1, score: 1 },
      { id: 2, score: 0.98 },
      { id: 3, score: 0.5 },
    ]);
    // A message only the vectors found, with no similarity beyond chance, comes after every text match.
    const only = fused.find((entry) => entry.id === 4)?.score ?? 0;
    expect(only).toBeGreaterThan(0);
    expect(only).toBeLessThan(0.001);
  });

  it('lets a similarity beyond chance reorder close text matches, not overturn a clear one', () => {
    // One standard deviation beyond chance is worth VECTOR_WEIGHT of the best text match.
    const beyond = LEVEL + STATS.spread;
    expect(
      order(
        fuseRankings(
          input(
            [
              [1, 1],
              [2, 0.9],
            ],
            { 1: 0.1, 2: beyond },
          ),
        ),
      ),
    ).toEqual([2, 1]);
    expect(
      order(
        fuseRankings(
          input(
            [
              [1, 1],
              [2, 0.5],
            ],
            { 1: 0.1, 2: beyond },
          ),
        ),
      ),
    ).toEqual([1, 2]);
    const fused = fuseRankings(
      input(
        [
          [1, 1],
          [2, 0.9],
        ],
        { 1: 0.1, 2: beyond },
      ),
    );
    // Scores stay in (0, 1]: divided by the best when vector evidence lifts it above 1.
    expect(fused.find((entry) => entry.id === 2)?.score).toBe(1);
    expect(fused.find((entry) => entry.id === 1)?.score).toBeCloseTo(1 / (0.9 + VECTOR_WEIGHT), 12);
  });

  it('lifts a message that shares no word with the query above weak text matches', () => {
    const fused = fuseRankings(
      input(
        [
          [1, 1],
          [2, 0.3],
        ],
        { 1: 0.2, 2: 0.1, 3: LEVEL + 2 * STATS.spread },
      ),
    );
    expect(order(fused)).toEqual([1, 3, 2]);
  });

  it('orders by similarity alone when text finds nothing, as vectors alone would', () => {
    const similarities = { 5: 0.3, 6: 0.9, 7: 0.6, 8: -0.2 };
    const fused = fuseRankings(input([], similarities));
    expect(order(fused)).toEqual([6, 7, 5]);
    for (const entry of fused) expect(entry.score).toBeGreaterThan(0);
    // So too among few messages, where no similarity can stand out from chance.
    const few = fuseRankings(input([], { 1: 0.1, 2: 0.4 }, { count: 3, mean: 0.2, spread: 0.15 }));
    expect(order(few)).toEqual([2, 1]);
  });

  it('gives a message without a vector its text score alone', () => {
    expect(
      fuseRankings(
        input(
          [
            [1, 1],
            [2, 0.7],
          ],
          { 1: 0.1 },
        ),
      ),
    ).toEqual([
      { id: 1, score: 1 },
      { id: 2, score: 0.7 },
    ]);
  });
});
