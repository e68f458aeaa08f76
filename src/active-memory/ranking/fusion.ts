/**
 * Fusion: how recall joins its text ranking with the embedding's similarities when the caller
 * gives an `embed` function. The text ranking leads; a similarity counts only by how far it stands
 * above what chance gives. A candidate scores
 *
 *   text + VECTOR_WEIGHT × max(0, z − √(2 ln N))
 *
 * where `text` is its text score relative to the query's best text match (1 for the best, 0 for no
 * match), `z` its similarity in standard deviations above the mean similarity of the query to all
 * N messages of the owner, and √(2 ln N) the universal threshold: a level that, with high
 * probability, none of N similarities that are pure noise reaches. A message only the vectors found,
 * with no similarity beyond chance, keeps a sliver of its cosine, so that such messages come after
 * every other candidate in the embedding's order (without any text match, the order is the
 * embedding's alone). Scores are divided by the best when it exceeds 1, so they stay in (0, 1].
 *
 * Why it is not worse than either alone, in general terms: where an embedding carries no signal for
 * a query, its similarities look like noise, none passes the threshold, and the order is the text
 * ranking's, scores included; where text has nothing, the order is the vectors'. A similarity well
 * beyond chance is evidence the text ranking lacks (another word for the same thing) and moves a
 * message up by a quarter of the best text match per standard deviation: enough to reorder text
 * matches that score alike, or to lift a message that shares no word with the question over weak
 * matches; not enough for one outlier to overturn a clear text match. What it cannot guarantee: a
 * floor per question (a lexical embedding has outliers that are wrong, a decoy sharing more of the
 * question's words; the threshold assumes roughly normal noise, and real similarities have heavier
 * tails), nor that fused beats an embedding much better than the text ranking: text still leads, so
 * such an embedding's lone answer outranks a text match only when that match is weak.
 *
 * Measured with `bench/fusion-lab.ts`, hit@1/5/10 in questions (text alone / vectors alone / fused).
 * With the tests' hashed bag-of-words embedding: the recall-quality test's synthetic set (36),
 * 8/34/35, 0/1/3, 8/34/35; the bench's (48), 10/43/46, 0/1/2, 10/43/46; 40 seeds no rule was chosen
 * on (1,920), 445/1746/1823, 0/19/110, 445/1746/1823; LoCoMo dev (233), 117/187/201, 6/21/37,
 * 117/187/201. With informative similarities it gains: a character-trigram embedding, on the 40
 * seeds 445/1746/1823, 267/676/711, 452/1749/1823 (on LoCoMo, 117/187/201, 34/66/83, 115/187/201:
 * two questions lost at hit@1); similarities simulated as good as the text ranking on LoCoMo,
 * 117/187/201, 145/187/194, 129/192/202, below vectors alone at hit@1 (the limit above). Weights 0.15
 * to 0.25 leave the hashed embedding's figures exactly text's; 0.3 loses one on LoCoMo, 0.5 fifteen
 * on the 40 seeds: 0.25 is the largest that costs nothing. Measured and dropped, with the hashed
 * embedding on LoCoMo: the former 0.7 text + 0.3 cosine, 111/185/197 (and 8/31/35 on the test's
 * set: a weak cosine reorders the text matches everywhere); reciprocal-rank fusion, k 60
 * 37/90/111 and k 200 34/84/108, and CombMNZ, 57/109/136, which give a weak embedding's ranks the
 * say of the text's; the vectors' weight set by how flat the text scores are, 105/183/197, or by
 * how much the two top tens agree, 113/186/199 (neither tells a weak embedding from a good one).
 * @module
 */

/** Candidates each ranking gives the fusion. */
export const FUSED_CANDIDATES = 100;

/** Text-score units a similarity is worth per standard deviation beyond the universal threshold. */
export const VECTOR_WEIGHT = 0.25;

/** Share of its cosine a vector-only candidate keeps beside its evidence: it orders those without any. */
const FILL_SHARE = 0.001;

/** The query's similarity to every message with a vector: how many, their mean and standard deviation. */
export interface SimilarityStats {
  readonly count: number;
  readonly mean: number;
  readonly spread: number;
}

/** What `fuseRankings` joins; candidates are named by numeric ids. */
export interface FusionInput {
  /** Text matches with their score relative to the best (1), best first. */
  readonly text: ReadonlyArray<{ readonly id: number; readonly score: number }>;
  /** The messages most similar to the query, with positive similarity. */
  readonly nearest: ReadonlyArray<{ readonly id: number; readonly similarity: number }>;
  /** The similarity of any candidate (`undefined`: it has no vector). */
  readonly similarity: (id: number) => number | undefined;
  readonly stats: SimilarityStats;
}

/** The similarity above which a similarity is evidence: the universal threshold over `stats.count` messages. */
export function chanceLevel(stats: SimilarityStats): number {
  if (stats.count < 2 || !(stats.spread > 0)) return Infinity;
  return stats.mean + Math.sqrt(2 * Math.log(stats.count)) * stats.spread;
}

/** Every candidate of either ranking with its fused score in (0, 1] (see the module comment), in no particular order. */
export function fuseRankings(input: FusionInput): Array<{ id: number; score: number }> {
  const level = chanceLevel(input.stats);
  const evidence = (similarity: number | undefined): number =>
    similarity === undefined || !(similarity > level) ? 0 : (similarity - level) / input.stats.spread;
  const fused = new Map<number, number>();
  for (const { id, score } of input.text) fused.set(id, score + VECTOR_WEIGHT * evidence(input.similarity(id)));
  for (const { id, similarity } of input.nearest) {
    if (!fused.has(id) && similarity > 0)
      fused.set(id, VECTOR_WEIGHT * (evidence(similarity) + FILL_SHARE * similarity));
  }
  let best = 1;
  for (const score of fused.values()) best = Math.max(best, score);
  return [...fused].map(([id, score]) => ({ id, score: score / best }));
}
