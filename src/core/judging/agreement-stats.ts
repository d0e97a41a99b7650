/**
 * How far model judgments agree with people's, as the papers on LLM assessors report it (Thomas et al. 2024;
 * Upadhyay et al. 2024; Farzi & Dietz 2025): Cohen's κ on binary labels, weighted κ on the grades, and — for the
 * ranking of systems — Kendall's τ-b and Yilmaz, Aslam & Robertson's τ_AP (SIGIR 2008). Written here from the
 * definitions (plain sums, no library), so the tests can check them against a literal computation.
 */

/** Observed × expected agreement on a 2 × 2 table of binary labels: Cohen's κ; null when chance agreement is 1. */
export function cohenKappa(a: readonly boolean[], b: readonly boolean[]): number | null {
  if (a.length !== b.length) throw new RangeError(`κ needs paired labels, got ${a.length} and ${b.length}`);
  const n = a.length;
  if (n === 0) return null;
  let agree = 0;
  let a1 = 0;
  let b1 = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    if (a[i]) a1++;
    if (b[i]) b1++;
  }
  const po = agree / n;
  const pe = (a1 / n) * (b1 / n) + (1 - a1 / n) * (1 - b1 / n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

/**
 * A confusion matrix of grades: `labels` sorted ascending, `counts[i][j]` the pairs the first rater graded
 * labels[i] and the second labels[j].
 */
export interface Confusion {
  readonly labels: number[];
  readonly counts: number[][];
}

export function confusion(a: readonly number[], b: readonly number[]): Confusion {
  if (a.length !== b.length) throw new RangeError(`a confusion matrix needs paired grades, got ${a.length} and ${b.length}`);
  const labels = [...new Set([...a, ...b])].sort((x, y) => x - y);
  const at = new Map(labels.map((g, i) => [g, i]));
  const counts = labels.map(() => labels.map(() => 0));
  for (let i = 0; i < a.length; i++) counts[at.get(a[i]!)!]![at.get(b[i]!)!]!++;
  return { labels, counts };
}

/**
 * Weighted κ = 1 − Σ w·observed / Σ w·expected over a confusion matrix, with the disagreement weight of grades
 * g and h |g − h| ('linear') or (g − h)² ('quadratic') on the grade values themselves (so a 0 → 3 miss weighs
 * three times a 2 → 3 one linearly). Expected: the product of the two margins. Null when Σ w·expected is 0 (both
 * raters give one and the same grade).
 */
export function weightedKappa(table: Confusion, weights: 'linear' | 'quadratic'): number | null {
  const { labels, counts } = table;
  const k = labels.length;
  const rows = counts.map((r) => r.reduce((s, x) => s + x, 0));
  const cols = labels.map((_, j) => counts.reduce((s, r) => s + r[j]!, 0));
  const n = rows.reduce((s, x) => s + x, 0);
  if (n === 0) return null;
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const d = Math.abs(labels[i]! - labels[j]!);
      const w = weights === 'linear' ? d : d * d;
      observed += (w * counts[i]![j]!) / n;
      expected += (w * rows[i]! * cols[j]!) / (n * n);
    }
  }
  return expected === 0 ? null : 1 - observed / expected;
}

/**
 * Kendall's τ-b between two scorings of the same items: (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)), with
 * n₀ = n(n − 1)/2 and n₁, n₂ the pairs tied in the first and the second scoring. Null below two items or when
 * either scoring ties everything.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`τ needs paired scores, got ${x.length} and ${y.length}`);
  const n = x.length;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiedX) * (n0 - tiedY));
  return denominator === 0 ? null : (concordant - discordant) / denominator;
}

/** Items ordered by descending score; equal scores by name (code-unit order), so every ordering is a permutation. */
export function orderByScore(names: readonly string[], scores: readonly number[]): number[] {
  return names.map((_, i) => i).sort((i, j) => scores[j]! - scores[i]! || (names[i]! < names[j]! ? -1 : names[i]! > names[j]! ? 1 : 0));
}

/**
 * τ_AP (Yilmaz, Aslam & Robertson 2008) of an estimated ordering against the true one:
 * (2 / (n − 1)) Σ_{i=2..n} C(i)/(i − 1) − 1, where C(i) counts the items the estimate ranks above its i-th that
 * the truth also ranks above it. Swaps near the top cost more than τ's. Both orderings are by descending score,
 * equal scores by name (`orderByScore`). Null below two items.
 */
export function tauAp(names: readonly string[], truth: readonly number[], estimate: readonly number[]): number | null {
  const n = names.length;
  if (truth.length !== n || estimate.length !== n) throw new RangeError('τ_AP needs one true and one estimated score per item');
  if (n < 2) return null;
  const truePosition = new Int32Array(n);
  orderByScore(names, truth).forEach((item, position) => (truePosition[item] = position));
  const estimated = orderByScore(names, estimate);
  let sum = 0;
  for (let i = 1; i < n; i++) {
    const item = estimated[i]!;
    let correct = 0;
    for (let j = 0; j < i; j++) if (truePosition[estimated[j]!]! < truePosition[item]!) correct++;
    sum += correct / i;
  }
  return (2 / (n - 1)) * sum - 1;
}

/** Landis & Koch's (1977) words for a κ: what a teacher reads out beside the number. */
export function kappaWords(kappa: number | null): string {
  if (kappa === null) return 'undefined';
  if (kappa < 0) return 'poor';
  if (kappa <= 0.2) return 'slight';
  if (kappa <= 0.4) return 'fair';
  if (kappa <= 0.6) return 'moderate';
  if (kappa <= 0.8) return 'substantial';
  return 'almost perfect';
}
