/**
 * Query-level transitions between a reference (B) and a replacement (D) at one depth (RAGFlip §3.2):
 *
 *              D supported   D not supported
 *   B supp.    preserved C   broken R (negative flip)
 *   B not      fixed F       unchanged failure
 *
 * n_B = C + R. Fix rate = F / (n − n_B); negative-flip rate = R / n_B; compatibility = C / n_B
 * (each with a 95% Wilson interval, undefined when its denominator is 0); net gain = F − R with a Wald
 * interval on the per-query ±1 differences (see stats/net-gain.ts).
 *
 * The same table in neighbouring fields' words, each with a 95% Wilson interval:
 * - NFR over all queries = R / n (model-update regression, Yan et al. 2021, "Positive-congruent training");
 * - backward trust compatibility = C / n_B (Bansal et al. 2019; Srivastava et al. 2020): the paper's compatibility;
 * - backward error compatibility = U / (U + R), U the unchanged failures (Srivastava et al. 2020, "An empirical
 *   analysis of backward compatibility in machine learning systems"): of the queries the candidate fails, the
 *   share the reference failed too.
 */
import { netGainInterval, wilson, type Estimate } from '../stats/index.ts';

export type TransitionState = 'preserved' | 'broken' | 'fixed' | 'unchanged';

export interface TransitionCounts {
  readonly n: number;
  readonly referenceSupported: number;
  readonly candidateSupported: number;
  readonly preserved: number;
  readonly broken: number;
  readonly fixed: number;
  readonly unchanged: number;
}

export interface TransitionSummary extends TransitionCounts {
  readonly fixRate: Estimate;
  readonly negativeFlipRate: Estimate;
  readonly compatibility: Estimate;
  readonly netGain: Estimate;
  readonly nfrAll: Estimate;
  readonly backwardErrorCompatibility: Estimate;
}

/** Count transitions at depth k from per-query support ranks (reference `b`, candidate `d`). */
export function countTransitions(b: Int32Array, d: Int32Array, k: number): TransitionCounts {
  if (b.length !== d.length) throw new RangeError('countTransitions: rank arrays differ in length');
  let preserved = 0;
  let broken = 0;
  let fixed = 0;
  const n = b.length;
  for (let i = 0; i < n; i++) {
    const B = b[i]! <= k;
    const D = d[i]! <= k;
    if (B) {
      if (D) preserved++;
      else broken++;
    } else if (D) fixed++;
  }
  return {
    n,
    referenceSupported: preserved + broken,
    candidateSupported: preserved + fixed,
    preserved,
    broken,
    fixed,
    unchanged: n - preserved - broken - fixed,
  };
}

export function summarize(c: TransitionCounts): TransitionSummary {
  const failures = c.n - c.referenceSupported;
  return {
    ...c,
    fixRate: wilson(c.fixed, failures),
    negativeFlipRate: wilson(c.broken, c.referenceSupported),
    compatibility: wilson(c.preserved, c.referenceSupported),
    netGain: netGainInterval(c.fixed, c.broken, c.n),
    nfrAll: wilson(c.broken, c.n),
    backwardErrorCompatibility: wilson(c.unchanged, c.unchanged + c.broken),
  };
}

/** The state of every query at depth k, in cohort order. */
export function transitionStates(b: Int32Array, d: Int32Array, k: number): TransitionState[] {
  const out = new Array<TransitionState>(b.length);
  for (let i = 0; i < b.length; i++) {
    const B = b[i]! <= k;
    const D = d[i]! <= k;
    out[i] = B ? (D ? 'preserved' : 'broken') : D ? 'fixed' : 'unchanged';
  }
  return out;
}
