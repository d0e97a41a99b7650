/**
 * The rank tests the field recommends beside t and randomization (Otero, Parapar & Barreiro, ECIR 2025), on the
 * paired differences d_i = candidate_i − reference_i:
 * - Wilcoxon signed-rank, two-sided, zeros dropped, no continuity correction (scipy's
 *   `wilcoxon(zero_method="wilcox", correction=False)`): with n′ nonzero differences ranked by |d| (ties get
 *   their average rank) and R+ the sum of the positive ones' ranks, p = 2·min(P(T ≥ R+), P(T ≤ R+)) under the
 *   exact null distribution of T when the |d| have no ties and n′ ≤ 50 (scipy's `method="exact"`), otherwise
 *   2·Φ(−|z|) with z = (R+ − n′(n′+1)/4)/σ and σ² = n′(n′+1)(2n′+1)/24 − Σ(t³ − t)/48 over tied groups
 *   (`method="approx"`); capped at 1; null when every d is 0.
 * - The sign test: the exact two-sided binomial test of w wins against l losses (ties dropped), p =
 *   min(1, 2·P(X ≤ min(w, l))) with X ~ Binomial(w + l, ½); null with no wins or losses.
 */
import { normalCdf } from './normal.ts';
import { regularizedBeta } from './t-dist.ts';

/** Nonzero differences at most this many, and untied: the exact null distribution. */
export const WILCOXON_EXACT_MAX = 50;

export interface WilcoxonResult {
  /** Two-sided p; null when every difference is 0. */
  readonly p: number | null;
  /** The nonzero differences the test ranks. */
  readonly n: number;
  /** Sum of the positive differences' ranks. */
  readonly rPlus: number;
  readonly method: 'exact' | 'approx' | null;
}

/**
 * Counts of the subsets of {1, …, n} by their sum: entry s is how many of the 2^n sign patterns give T = s
 * (exact in doubles up to n = 50: the counts stay below 2^50).
 */
function signedRankCounts(n: number): Float64Array {
  const max = (n * (n + 1)) / 2;
  const counts = new Float64Array(max + 1);
  counts[0] = 1;
  for (let k = 1, top = 0; k <= n; k++) {
    top += k;
    for (let s = top; s >= k; s--) counts[s]! += counts[s - k]!;
  }
  return counts;
}

/** The Wilcoxon signed-rank test of the differences (see the file comment). */
export function wilcoxonSignedRank(d: ArrayLike<number>): WilcoxonResult {
  const nonzero: number[] = [];
  for (let i = 0; i < d.length; i++) if (d[i] !== 0) nonzero.push(d[i]!);
  const n = nonzero.length;
  if (n === 0) return { p: null, n: 0, rPlus: 0, method: null };
  const order = nonzero.map((_, i) => i).sort((a, b) => Math.abs(nonzero[a]!) - Math.abs(nonzero[b]!));
  let rPlus = 0;
  let tieTerm = 0;
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && Math.abs(nonzero[order[end]!]!) === Math.abs(nonzero[order[start]!]!)) end++;
    const rank = (start + 1 + end) / 2; // the average of ranks start+1 … end
    for (let i = start; i < end; i++) if (nonzero[order[i]!]! > 0) rPlus += rank;
    const t = end - start;
    tieTerm += t * t * t - t;
    start = end;
  }
  if (tieTerm === 0 && n <= WILCOXON_EXACT_MAX) {
    const counts = signedRankCounts(n);
    const total = 2 ** n;
    let below = 0; // P(T ≤ R+)·2^n
    for (let s = 0; s <= rPlus; s++) below += counts[s]!;
    let above = 0; // P(T ≥ R+)·2^n
    for (let s = rPlus; s < counts.length; s++) above += counts[s]!;
    return { p: Math.min(1, (2 * Math.min(below, above)) / total), n, rPlus, method: 'exact' };
  }
  const mean = (n * (n + 1)) / 4;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm / 48);
  const z = (rPlus - mean) / sd;
  return { p: Math.min(1, 2 * normalCdf(-Math.abs(z))), n, rPlus, method: 'approx' };
}

/** P(X ≤ k) for X ~ Binomial(n, ½): I_{1/2}(n − k, k + 1), 1 for k ≥ n. */
function binomialHalfCdf(k: number, n: number): number {
  if (k >= n) return 1;
  if (k < 0) return 0;
  return regularizedBeta(0.5, n - k, k + 1);
}

/** The exact two-sided sign test of `wins` against `losses` (ties already dropped); null when both are 0. */
export function signTest(wins: number, losses: number): number | null {
  const n = wins + losses;
  if (n === 0) return null;
  return Math.min(1, 2 * binomialHalfCdf(Math.min(wins, losses), n));
}
