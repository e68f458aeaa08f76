/**
 * Scoring of recall quality: hit@k (a question is a hit when any of its evidence is among the first
 * k results), per category and overall.
 * @module
 */

/** One question's ranked result ids and the ids that answer it. */
export interface Ranked {
  readonly category: string;
  readonly ranked: readonly string[];
  readonly evidence: readonly string[];
}

/** The cut-offs reported. */
export const CUTOFFS = [1, 5, 10] as const;

/** hit@k per category (and 'overall'), as fractions, for each k of `CUTOFFS`. */
export function hitRates(results: readonly Ranked[]): Map<string, { count: number; hits: number[] }> {
  const rates = new Map<string, { count: number; hits: number[] }>();
  for (const result of results) {
    for (const group of [result.category, 'overall']) {
      let entry = rates.get(group);
      if (entry === undefined) {
        entry = { count: 0, hits: CUTOFFS.map(() => 0) };
        rates.set(group, entry);
      }
      entry.count += 1;
      CUTOFFS.forEach((k, index) => {
        if (result.ranked.slice(0, k).some((id) => result.evidence.includes(id)))
          entry.hits[index] = (entry.hits[index] as number) + 1;
      });
    }
  }
  return rates;
}
