/**
 * Agreement between two rankings of one query, without judgments, at several depths in one pass.
 *
 *   overlap@k = |top-k(A) ∩ top-k(B)| / k
 *   RBO@k     = (1 − p) · Σ_{d=1..k} p^{d−1} · |A_d ∩ B_d| / d        (A_d = top-d of A)
 *
 * RBO@k is the truncated ("prefix", lower-bound) rank-biased overlap of Webber, Moffat & Zobel (2010),
 * eq. 7 summed to depth k: no extrapolation and no normalisation. Two identical rankings of at least k
 * documents score 1 − p^k (0.6513 at k = 10 with p = 0.9), never 1; disjoint ones score 0. Both measures
 * divide by k and d, not by the list length, so a list shorter than k scores below 1 even against itself.
 * Documents are unique within a list (the run parser guarantees it).
 */

export const RBO_P = 0.9;

/**
 * overlap@k and RBO@k for each k of `depths` (ascending, ≥ 1). The running intersection |A_d ∩ B_d| is
 * updated from the two documents entering at depth d, so the whole profile is O(max depth).
 */
export function agreementProfile(
  a: readonly string[],
  b: readonly string[],
  depths: readonly number[],
  p: number = RBO_P,
): { overlap: Float64Array; rbo: Float64Array } {
  const overlap = new Float64Array(depths.length);
  const rbo = new Float64Array(depths.length);
  const seenA = new Set<string>();
  const seenB = new Set<string>();
  let common = 0;
  let weighted = 0; // Σ_{d ≤ current} p^{d−1} · common_d / d
  let weight = 1; // p^{d−1}
  let next = 0;
  const maxDepth = depths[depths.length - 1] ?? 0;
  for (let d = 1; d <= maxDepth; d++) {
    const x = a[d - 1];
    const y = b[d - 1];
    if (x !== undefined && y !== undefined && x === y) common++;
    else {
      if (x !== undefined && seenB.has(x)) common++;
      if (y !== undefined && seenA.has(y)) common++;
    }
    if (x !== undefined) seenA.add(x);
    if (y !== undefined) seenB.add(y);
    weighted += (weight * common) / d;
    weight *= p;
    while (next < depths.length && depths[next] === d) {
      overlap[next] = common / d;
      rbo[next] = (1 - p) * weighted;
      next++;
    }
  }
  return { overlap, rbo };
}
