/**
 * Reciprocal-rank fusion: how recall joins its text ranking with vector similarity when the caller
 * gives an `embed` function. Each ranking lists its best candidates; a candidate scores
 * Σ 1 / (RRF_K + rank) over the lists it is in, divided by what rank 1 in every list would score,
 * so scores stay in (0, 1]: 1 for the first of both lists, at most 0.5 for a candidate only one
 * ranking found. Ranks, unlike raw scores, need no calibration between BM25 and cosine, and a
 * candidate both rankings place high beats one that only one of them likes.
 * @module
 */

/** The rank offset of reciprocal-rank fusion (60, as in Cormack et al. 2009): a larger value flattens the head. */
export const RRF_K = 60;

/** Fused scores of the candidates of `rankings` (each best first, keys unique within a list). */
export function fuseRanks<T>(rankings: ReadonlyArray<readonly T[]>): Map<T, number> {
  const fused = new Map<T, number>();
  const top = rankings.length / (RRF_K + 1);
  for (const ranking of rankings)
    ranking.forEach((key, index) => fused.set(key, (fused.get(key) ?? 0) + 1 / (RRF_K + index + 1) / top));
  return fused;
}
