/**
 * Could this collection have seen it? The power of the two-sided paired t-test, as R's
 * `power.t.test(type = "paired", strict = FALSE)` computes it: with ν = n − 1 and ncp = √n·Δ/sd, the power at
 * level α is P(T′ > t_{1−α/2, ν}), T′ noncentral t with ν degrees of freedom and noncentrality ncp (only the
 * upper tail counts, as R does without `strict`). From it: the smallest Δ detectable with a given power at n
 * queries (MDE), and the smallest whole n that detects a given Δ (Sakai, "Topic set size design", IRJ 2016).
 * The noncentral t is AS 243 (Lenth 1989), as R's `pnt`; no tables.
 */
import { normalCdf } from './normal.ts';
import { lnGamma, lnGammaHalfRatio, regularizedBeta, studentTQuantile } from './t-dist.ts';

/**
 * P(T′ ≤ t) for T′ noncentral t with `df` degrees of freedom and noncentrality `ncp` (AS 243, as R's pnt:
 * Lenth's series in incomplete beta functions, summed until its error bound is below 1e-12).
 */
export function noncentralTCdf(t: number, df: number, ncp: number): number {
  if (!(df > 0)) throw new RangeError(`noncentral t: degrees of freedom must be positive (df=${df})`);
  let tt = t;
  let del = ncp;
  let negdel = false;
  if (t < 0) {
    negdel = true;
    tt = -t;
    del = -ncp;
  }
  // Beyond the series' reach (as R): a normal approximation.
  if (df > 4e5 || del * del > 2 * Math.LN2 * 1021) {
    const s = 1 / (4 * df);
    const p = normalCdf((tt * (1 - s) - del) / Math.sqrt(1 + tt * tt * 2 * s));
    return negdel ? 1 - p : p;
  }
  let x = (tt * tt) / (tt * tt + df);
  let tnc = 0;
  if (x > 0) {
    const lambda = del * del;
    let p = 0.5 * Math.exp(-0.5 * lambda);
    let q = Math.sqrt(2 / Math.PI) * p * del;
    let s = 0.5 - p;
    if (s < 1e-7) s = -0.5 * Math.expm1(-0.5 * lambda);
    let a = 0.5;
    const b = 0.5 * df;
    const rxb = Math.pow(1 - x, b);
    const albeta = 0.5 * Math.log(Math.PI) - (b >= 20 ? lnGammaHalfRatio(b) : lnGamma(0.5 + b) - lnGamma(b));
    let xodd = regularizedBeta(x, a, b);
    let godd = 2 * rxb * Math.exp(a * Math.log(x) - albeta);
    let xeven = b * x < Number.EPSILON ? b * x : 1 - rxb;
    let geven = b * x * rxb;
    tnc = p * xodd + q * xeven;
    for (let it = 1; it <= 1000; it++) {
      a += 1;
      xodd -= godd;
      xeven -= geven;
      godd *= (x * (a + b - 1)) / a;
      geven *= (x * (a + b - 0.5)) / (a + 0.5);
      p *= lambda / (2 * it);
      q *= lambda / (2 * it + 1);
      tnc += p * xodd + q * xeven;
      s -= p;
      if (s < -1e-10) break; // precision lost (R warns); what is summed stands
      if (s <= 0 && it > 1) break;
      if (Math.abs(2 * s * (xodd - godd)) < 1e-12) break;
    }
  }
  x = tnc + normalCdf(-del);
  const lower = Math.min(x, 1);
  return negdel ? 1 - lower : lower;
}

/** What the power of one row rests on: its number of queries and the sample sd of its differences. */
export interface PowerBasis {
  readonly n: number;
  readonly sd: number;
}

/** Power of the two-sided paired t-test at level `alpha` to detect a mean difference of `delta` (R's power.t.test). */
export function pairedPower(delta: number, basis: PowerBasis, alpha = 0.05): number {
  const df = basis.n - 1;
  const critical = studentTQuantile(1 - alpha / 2, df);
  return 1 - noncentralTCdf(critical, df, (Math.sqrt(basis.n) * Math.abs(delta)) / basis.sd);
}

/**
 * The smallest Δ the test detects with probability `power` at these n queries: the root of pairedPower(Δ) =
 * power, found by bisection to 1e-12 relative (power rises with Δ).
 */
export function minimumDetectableEffect(basis: PowerBasis, power = 0.8, alpha = 0.05): number {
  let lo = 0;
  let hi = basis.sd;
  while (pairedPower(hi, basis, alpha) < power) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (pairedPower(mid, basis, alpha) < power) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The smallest whole number of queries (≥ 2) whose test detects Δ with probability `power`, given this sd. */
export function queriesNeeded(delta: number, sd: number, power = 0.8, alpha = 0.05): number {
  const enough = (n: number): boolean => pairedPower(delta, { n, sd }, alpha) >= power;
  let hi = 2;
  while (!enough(hi)) {
    if (hi > 1e9) return Number.POSITIVE_INFINITY;
    hi *= 2;
  }
  let lo = hi / 2;
  if (hi === 2) return 2;
  // enough(hi), not enough(lo): the first whole n in (lo, hi] that is
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (enough(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
