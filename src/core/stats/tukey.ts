/**
 * The randomized Tukey HSD test (Carterette, TOIS 2012) over m systems on one measure's per-query values:
 * under the null hypothesis the systems are exchangeable within each query, so each trial shuffles every
 * query's m values among the systems and records the largest difference between two systems' means; the p
 * of a pair is (hits + 1)/(N + 1), hits the trials of N whose largest difference reaches the pair's observed
 * one (never 0: the observed assignment is one of the possible ones). One family:
 * every pair is covered at once, no further correction. The groups are the maximal runs of systems, in
 * order of mean, that the test cannot tell apart pairwise at `alpha` (homogeneous subsets).
 */
import { below, randomStream } from '../random.ts';

export interface TukeyPair {
  readonly a: string;
  readonly b: string;
  /** mean(a) − mean(b). */
  readonly diff: number;
  readonly p: number;
}

export interface TukeyResult {
  readonly systems: readonly { readonly name: string; readonly mean: number }[];
  readonly pairs: readonly TukeyPair[];
  /** Systems by decreasing mean in each group; a system may be in several. */
  readonly groups: readonly (readonly string[])[];
  readonly alpha: number;
}

/**
 * `values[s][q]`: system s's value on query q (every system over the same queries, in the same order).
 * Trials draw from the stream "tukey|`stream`" of `seed`.
 */
export function randomizedTukey(
  names: readonly string[],
  values: readonly ArrayLike<number>[],
  options: { readonly permutations: number; readonly seed: number; readonly stream: string; readonly alpha?: number },
): TukeyResult {
  const m = names.length;
  if (m < 2) throw new RangeError('Tukey HSD needs at least two systems');
  const n = values[0]!.length;
  if (values.some((v) => v.length !== n)) throw new RangeError('Tukey HSD: every system needs a value for every query');
  const alpha = options.alpha ?? 0.05;
  // Query-major, so a trial's shuffle reads one query's values together.
  const byQuery = new Float64Array(n * m);
  const means = new Float64Array(m);
  for (let s = 0; s < m; s++) {
    let sum = 0;
    for (let q = 0; q < n; q++) {
      byQuery[q * m + s] = values[s]![q]!;
      sum += values[s]![q]!;
    }
    means[s] = sum / n;
  }
  const next = randomStream(options.seed, `tukey|${options.stream}`);
  const ranges = new Float64Array(options.permutations);
  const sums = new Float64Array(m);
  const row = new Float64Array(m);
  for (let trial = 0; trial < options.permutations; trial++) {
    sums.fill(0);
    for (let q = 0; q < n; q++) {
      row.set(byQuery.subarray(q * m, q * m + m));
      // Fisher–Yates: system s gets the value at position s of the shuffled row.
      for (let i = m - 1; i > 0; i--) {
        const j = below(next(), i + 1);
        const x = row[i]!;
        row[i] = row[j]!;
        row[j] = x;
      }
      for (let s = 0; s < m; s++) sums[s]! += row[s]!;
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (let s = 0; s < m; s++) {
      lo = Math.min(lo, sums[s]!);
      hi = Math.max(hi, sums[s]!);
    }
    ranges[trial] = (hi - lo) / n;
  }
  ranges.sort();
  const pairs: TukeyPair[] = [];
  for (let a = 0; a < m; a++) {
    for (let b = a + 1; b < m; b++) {
      const diff = means[a]! - means[b]!;
      // Trials whose range reaches |diff| (ties within the rounding of n-term sums).
      const reach = Math.abs(diff) * (1 - 1e-11);
      let first = 0;
      let last = ranges.length;
      while (first < last) {
        const mid = (first + last) >>> 1;
        if (ranges[mid]! < reach) first = mid + 1;
        else last = mid;
      }
      // (hits + 1)/(N + 1), as the randomization test: the observed assignment is one of the trials, so p > 0.
      pairs.push({ a: names[a]!, b: names[b]!, diff, p: (ranges.length - first + 1) / (ranges.length + 1) });
    }
  }
  const order = names.map((_, i) => i).sort((x, y) => means[y]! - means[x]! || x - y);
  const pOf = (x: number, y: number): number => {
    const [a, b] = x < y ? [x, y] : [y, x];
    return pairs[a * m - (a * (a + 1)) / 2 + (b - a - 1)]!.p;
  };
  const groups: string[][] = [];
  let previousEnd = -1;
  for (let start = 0; start < m; start++) {
    let end = start;
    while (end + 1 < m && order.slice(start, end + 1).every((x) => pOf(x, order[end + 1]!) >= alpha)) end++;
    // Only maximal runs: one that ends where an earlier one ended is inside it.
    if (end > previousEnd) groups.push(order.slice(start, end + 1).map((i) => names[i]!));
    previousEnd = Math.max(previousEnd, end);
  }
  return { systems: names.map((name, i) => ({ name, mean: means[i]! })), pairs, groups, alpha };
}
