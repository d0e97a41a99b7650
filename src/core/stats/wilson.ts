/** Two-sided 95% normal quantile, Φ⁻¹(0.975), to full double precision (the reference uses this, not 1.96). */
export const Z_95 = 1.959963984540054;

/** A point estimate with its interval; `value` is null when the denominator is zero (the rate is undefined). */
export interface Estimate {
  readonly value: number | null;
  readonly lo: number | null;
  readonly hi: number | null;
}

export const UNDEFINED_ESTIMATE: Estimate = Object.freeze({ value: null, lo: null, hi: null });

/**
 * Wilson score interval for a binomial proportion s/t (Wilson 1927):
 *   centre = (p + z²/2t) / (1 + z²/t),  half = z·√(p(1−p)/t + z²/4t²) / (1 + z²/t),
 * clipped to [0, 1]. Undefined (all null) when t = 0: a rate over nobody is not 0.
 */
export function wilson(successes: number, trials: number, z = Z_95): Estimate {
  if (!(trials > 0)) return UNDEFINED_ESTIMATE;
  if (successes < 0 || successes > trials) throw new RangeError(`wilson: ${successes} successes out of ${trials} trials`);
  const p = successes / trials;
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denom;
  return { value: p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}
