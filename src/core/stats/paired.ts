/**
 * Paired inference on one measure's per-query values, reference against candidate, over the queries both
 * are evaluated on (d_i = candidate_i − reference_i): the paired t-test, the sign-flip randomization test,
 * the Wilcoxon signed-rank and sign tests, a percentile bootstrap interval of the mean difference, the effect
 * size d_z, wins/losses/ties, risk-sensitive URisk/TRisk (Wang et al. 2012; Dinçer, Macdonald & Ounis 2014),
 * and the t-test's power at these n queries. Definitions: DESIGN.md "Is the difference real?".
 */
import { randomStream } from '../random.ts';
import { minimumDetectableEffect, pairedPower, queriesNeeded } from './power.ts';
import { signTest, wilcoxonSignedRank } from './rank-tests.ts';
import { tTwoSided } from './t-dist.ts';
import { wilson } from './wilson.ts';

/** Power asked of the minimum detectable effect and the queries needed, by default. */
export const DEFAULT_POWER = 0.8;
/** Differences whose queries needed are given, by default (as written: the keys of `n_needed`). */
export const DEFAULT_DELTAS: readonly string[] = ['0.02', '0.05'];
/** The level of the power computations: the two-sided paired t-test at α = 0.05. */
export const POWER_ALPHA = 0.05;

export interface PairedOptions {
  /** Random sign assignments of the randomization test. */
  readonly permutations: number;
  /** Bootstrap resamples of the interval. */
  readonly bootstrap: number;
  readonly seed: number;
  /** What the row's random streams are named after (its candidate and measure): see random.ts. */
  readonly stream: string;
  /** α values of URisk/TRisk: a loss weighs 1 + α. */
  readonly riskAlphas: readonly number[];
  /**
   * What the bootstrap's resamples are named after (its random stream: "bootstrap|" + this): rows with the same
   * key resample the same queries. The caller keys them by the query set (significance.ts); default: n.
   */
  readonly bootstrapKey?: string;
  /** The bootstrap's resamples of this row, when the caller keeps them for the rows of its key (else drawn as used). */
  readonly resamples?: Uint16Array | Uint32Array;
  /** Power asked of `mde` and `n_needed` (default 0.8). */
  readonly power?: number;
  /** The Δ of `n_needed`, as written (default 0.02, 0.05). */
  readonly deltas?: readonly string[];
}

export interface RiskValue {
  readonly urisk: number;
  /** null when the weighted differences do not vary (sd 0) or n < 2. */
  readonly trisk: number | null;
}

export interface PairedResult {
  readonly n: number;
  readonly mean_reference: number;
  readonly mean_candidate: number;
  readonly mean_diff: number;
  /** null when the differences do not vary (sd ≤ 1e-12·max|d|) or n < 2 (see p_t and `note`). */
  readonly t: number | null;
  /** Two-sided; when d does not vary: 1 when no query changed, 0 when every query moved by the same amount; null when n < 2. */
  readonly p_t: number | null;
  /** (hits + 1)/(N + 1) over N random sign assignments: never 0, 1/(N + 1) at the least. */
  readonly p_randomization: number;
  /** Monte Carlo 95% interval of the share of hits (Wilson score interval over the N assignments). */
  readonly p_randomization_ci95: readonly [number, number];
  /** Wilcoxon signed-rank, two-sided (rank-tests.ts); null when every difference is 0. */
  readonly p_wilcoxon: number | null;
  /** Exact two-sided sign test of wins against losses; null with neither. */
  readonly p_sign: number | null;
  /** Power of the paired t-test (α = 0.05) at Δ = |mean_diff| with this sd; null when mean_diff or the sd is 0, or n < 2. */
  readonly power_observed: number | null;
  /** The smallest Δ detectable with the asked power at these n queries; null when the sd is 0 or n < 2. */
  readonly mde: number | null;
  /** By Δ as written: the smallest whole number of queries detecting it with the asked power at this sd (null as mde). */
  readonly n_needed: Readonly<Record<string, number | null>>;
  /** Why t, d_z, TRisk or the power are undefined, in words; null when they are all defined. */
  readonly note: string | null;
  /** 95% percentile bootstrap interval of mean_diff. */
  readonly ci95: readonly [number, number];
  /** mean(d) / sd(d); null when the differences do not vary or n < 2. */
  readonly d_z: number | null;
  readonly wins: number;
  readonly losses: number;
  readonly ties: number;
  /** By α as written ("1", "5"). */
  readonly risk: Readonly<Record<string, RiskValue>>;
}

/** Mean and sample standard deviation (n − 1; NaN when n < 2), by Welford's update. */
export function meanSd(values: ArrayLike<number>): { mean: number; sd: number } {
  let mean = 0;
  let m2 = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    const delta = x - mean;
    mean += delta / (i + 1);
    m2 += delta * (x - mean);
  }
  return { mean, sd: values.length < 2 ? Number.NaN : Math.sqrt(m2 / (values.length - 1)) };
}

/**
 * Whether values with this sample sd vary at all: an sd at most 1e-12 of the largest |value| is rounding (a uniform
 * shift of 0.1 leaves an sd of ~1e-17, which would make t ≈ 1e16), and counts as none.
 */
export function varies(values: ArrayLike<number>, sd: number): boolean {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i]!));
  return sd > 1e-12 * max;
}

/** The paired t-test on d: t and its two-sided p with n − 1 degrees of freedom. */
export function pairedT(d: ArrayLike<number>): { t: number | null; p: number | null } {
  const n = d.length;
  if (n < 2) return { t: null, p: null };
  const { mean, sd } = meanSd(d);
  if (!varies(d, sd)) return { t: null, p: mean === 0 ? 1 : 0 };
  const t = mean / (sd / Math.sqrt(n));
  return { t, p: tTwoSided(t, n - 1) };
}

/**
 * The sign-flip randomization test: with `hits` the random sign assignments s, of `permutations`, whose
 * |Σ s_i d_i| reaches |Σ d_i| (ties within 1e-11·Σ|d_i|, the rounding of a sum of n terms in another order),
 * p = (hits + 1)/(N + 1) (Phipson & Smyth 2010; scipy's permutation_test: the observed assignment counts, so p
 * is never 0), with the Monte Carlo 95% interval of hits/N.
 */
export function signFlipTest(
  d: ArrayLike<number>,
  permutations: number,
  next: () => number,
): { p: number; ci95: readonly [number, number] } {
  const n = d.length;
  let observed = 0;
  let scale = 0;
  for (let i = 0; i < n; i++) {
    observed += d[i]!;
    scale += Math.abs(d[i]!);
  }
  const threshold = Math.abs(observed) - 1e-11 * scale;
  // Signed sums of each group of 8 values for all 256 sign patterns (bit j set: value j counts +): a random
  // assignment is then one table read per 8 queries, four per 32-bit draw.
  const groups = Math.ceil(n / 8);
  const table = new Float64Array(groups * 256);
  for (let g = 0; g < groups; g++) {
    const base = g * 256;
    let all = 0;
    for (let j = 0; j < 8 && g * 8 + j < n; j++) all -= d[g * 8 + j]!;
    table[base] = all;
    for (let mask = 1; mask < 256; mask++) {
      const low = 31 - Math.clz32(mask & -mask);
      const value = g * 8 + low < n ? d[g * 8 + low]! : 0;
      table[base + mask] = table[base + (mask & (mask - 1))]! + 2 * value;
    }
  }
  let hits = 0;
  for (let p = 0; p < permutations; p++) {
    let sum = 0;
    for (let g = 0; g < groups; g += 4) {
      const bits = next();
      sum += table[g * 256 + (bits & 255)]!;
      if (g + 1 < groups) sum += table[(g + 1) * 256 + ((bits >>> 8) & 255)]!;
      if (g + 2 < groups) sum += table[(g + 2) * 256 + ((bits >>> 16) & 255)]!;
      if (g + 3 < groups) sum += table[(g + 3) * 256 + (bits >>> 24)]!;
    }
    if (Math.abs(sum) >= threshold) hits++;
  }
  const interval = wilson(hits, permutations);
  return { p: (hits + 1) / (permutations + 1), ci95: [interval.lo ?? 0, interval.hi ?? 1] };
}

/** The q-quantile of sorted values, by linear interpolation between order statistics (Hyndman & Fan type 7). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * The resamples of a percentile bootstrap over n queries: `resamples` × n indices drawn with replacement, each
 * floor(u·n/2^32) from a 32-bit u (bias below n/2^32), from the stream "bootstrap|`key`" of `seed` (key: n unless
 * given). They depend on the seed and the key only, so every row of a call with the same key — the same query
 * set, as significance.ts keys them — resamples the same queries (a paired bootstrap across measures and
 * candidates) and one draw serves them all.
 */
export function bootstrapIndices(n: number, resamples: number, seed: number, key = String(n)): Uint16Array | Uint32Array {
  const out = n <= 65536 ? new Uint16Array(resamples * n) : new Uint32Array(resamples * n);
  randomStream(seed, `bootstrap|${key}`).fillBelow(out, n);
  return out;
}

/**
 * 95% percentile bootstrap interval of mean(d) over `resamples` resamples of d's n queries: those of
 * `bootstrapIndices(n, resamples, seed, key)`, read from `kept` when the caller drew them already, else drawn
 * here as they are used (the same indices, with no array of resamples × n in memory).
 */
export function bootstrapInterval(
  d: ArrayLike<number>,
  resamples: number,
  seed: number,
  kept?: Uint16Array | Uint32Array,
  key = String(d.length),
): readonly [number, number] {
  const n = d.length;
  const values = Float64Array.from(d);
  const means = new Float64Array(resamples);
  if (kept !== undefined) {
    if (kept.length !== resamples * n) throw new RangeError(`bootstrap: ${kept.length} indices for ${resamples} × ${n}`);
    for (let r = 0, at = 0; r < resamples; r++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += values[kept[at++]!]!;
      means[r] = sum / n;
    }
  } else {
    const stream = randomStream(seed, `bootstrap|${key}`);
    const resample = new Uint32Array(n);
    for (let r = 0; r < resamples; r++) {
      stream.fillBelow(resample, n);
      let sum = 0;
      for (let i = 0; i < n; i++) sum += values[resample[i]!]!;
      means[r] = sum / n;
    }
  }
  means.sort();
  return [quantileSorted(means, 0.025), quantileSorted(means, 0.975)];
}

/** URisk and TRisk of d for one α: losses weigh 1 + α (TRisk null when the weighted differences do not vary). */
export function risk(d: ArrayLike<number>, alpha: number): RiskValue {
  const weighted = Float64Array.from(d, (x) => (x >= 0 ? x : (1 + alpha) * x));
  const { mean, sd } = meanSd(weighted);
  return { urisk: mean, trisk: weighted.length < 2 || !varies(weighted, sd) ? null : mean / (sd / Math.sqrt(weighted.length)) };
}

/**
 * URisk and TRisk of n differences of which `gains` are +1, `losses` −1 and the rest 0 (a flip analysis: fixed
 * and broken queries), in closed form: the same numbers as `risk` on the expanded list, in constant time.
 */
export function riskOfCounts(gains: number, losses: number, n: number, alpha: number): RiskValue {
  if (n === 0) return { urisk: Number.NaN, trisk: null };
  const low = -(1 + alpha);
  const mean = (gains + low * losses) / n;
  if (n < 2) return { urisk: mean, trisk: null };
  const ss = gains * (1 - mean) ** 2 + losses * (low - mean) ** 2 + (n - gains - losses) * mean ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  return { urisk: mean, trisk: sd === 0 ? null : mean / (sd / Math.sqrt(n)) };
}

/** The t-test's power at these n queries with this sd (power.ts): at the observed |Δ|, the MDE, the n needed. */
function powerOf(
  n: number,
  sd: number,
  meanDiff: number,
  usable: boolean,
  power: number,
  deltas: readonly string[],
): Pick<PairedResult, 'power_observed' | 'mde' | 'n_needed'> {
  if (!usable) return { power_observed: null, mde: null, n_needed: Object.fromEntries(deltas.map((d) => [d, null])) };
  const basis = { n, sd };
  return {
    power_observed: meanDiff === 0 ? null : pairedPower(meanDiff, basis, POWER_ALPHA),
    mde: minimumDetectableEffect(basis, power, POWER_ALPHA),
    n_needed: Object.fromEntries(deltas.map((d) => [d, queriesNeeded(Number(d), sd, power, POWER_ALPHA)])),
  };
}

/** Why t, d_z, TRisk or the power are undefined for these differences, or null. */
function nullNote(n: number, spread: boolean, meanDiff: number): string | null {
  if (n < 2) return 'one query: t, d_z, TRisk and the power need two or more';
  if (spread) return null;
  if (meanDiff === 0) return 'no query changed: t, d_z, TRisk, Wilcoxon, the sign test and the power are undefined';
  const shift = `${meanDiff > 0 ? '+' : ''}${meanDiff.toPrecision(4)}`;
  return `every query moved by the same ${shift}: the differences do not vary, so t, d_z, TRisk and the power are undefined`;
}

/** Every paired statistic of one candidate against the reference on one measure; rows are the paired queries. */
export function pairedTest(reference: ArrayLike<number>, candidate: ArrayLike<number>, options: PairedOptions): PairedResult {
  const n = reference.length;
  if (candidate.length !== n) throw new RangeError(`paired test: ${n} reference values against ${candidate.length} candidate values`);
  if (n === 0) throw new RangeError('paired test: no query has both values');
  const d = new Float64Array(n);
  let wins = 0;
  let losses = 0;
  for (let i = 0; i < n; i++) {
    d[i] = candidate[i]! - reference[i]!;
    if (d[i]! > 0) wins++;
    else if (d[i]! < 0) losses++;
  }
  const { mean: meanDiff, sd } = meanSd(d);
  const spread = n >= 2 && varies(d, sd);
  const { t, p } = pairedT(d);
  const randomization = signFlipTest(d, options.permutations, randomStream(options.seed, `randomization|${options.stream}`));
  const key = options.bootstrapKey ?? String(n);
  return {
    n,
    mean_reference: meanSd(reference).mean,
    mean_candidate: meanSd(candidate).mean,
    mean_diff: meanDiff,
    t,
    p_t: p,
    p_randomization: randomization.p,
    p_randomization_ci95: randomization.ci95,
    p_wilcoxon: wilcoxonSignedRank(d).p,
    p_sign: signTest(wins, losses),
    ...powerOf(n, sd, meanDiff, spread, options.power ?? DEFAULT_POWER, options.deltas ?? DEFAULT_DELTAS),
    note: nullNote(n, spread, meanDiff),
    ci95: bootstrapInterval(d, options.bootstrap, options.seed, options.resamples, key),
    d_z: spread ? meanDiff / sd : null,
    wins,
    losses,
    ties: n - wins - losses,
    risk: Object.fromEntries(options.riskAlphas.map((a) => [String(a), risk(d, a)])),
  };
}
