import { Z_95, type Estimate } from './wilson.ts';

/**
 * Net gain (fixed − broken) with a Wald interval on the sum of per-query differences d_i ∈ {+1 fixed,
 * −1 broken, 0 otherwise}, as the RAGFlip reference implementation computes it:
 *   Var(Σd) = n·(mean(d²) − mean(d)²) = (fixed + broken) − net²/n   (population variance, divisor n),
 *   interval = net ± z·√Var(Σd).
 * Defined whenever n > 0 (a zero-width interval when no query changed state).
 */
export function netGainInterval(fixed: number, broken: number, n: number, z = Z_95): Estimate {
  if (!(n > 0)) return { value: null, lo: null, hi: null };
  const net = fixed - broken;
  const variance = Math.max(0, fixed + broken - (net * net) / n);
  const half = z * Math.sqrt(variance);
  return { value: net, lo: net - half, hi: net + half };
}
