/**
 * rbp_resid — the RBP residual: the most RBP could still grow if every unjudged retrieved document
 * (not in the qrels, or judged negative) and everything below the ranking were relevant:
 *
 *   resid = p^n + (1 − p) · Σ_{unjudged i} p^(i−1),   p = 0.9, n = num_ret
 *
 * 0 when no retrieved document is unjudged. Cite: trec_eval m_rbp_resid.c (Anserini 9.0.8 build);
 * Moffat & Zobel (2008).
 */
import type { MeasureDef } from './measure.ts';
import { DEFAULT_RBP_PERSISTENCE } from './rbp.ts';

export const rbpResid: MeasureDef = {
  name: 'rbp_resid',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval-10',
  description: 'rank-biased precision residual (p = 0.9)',
  compute(ctx, _p, out, at) {
    const p = DEFAULT_RBP_PERSISTENCE;
    const { rels, numRet } = ctx;
    let unj = 0;
    let sum = 0;
    let cur = 1;
    for (let i = 0; i < numRet; i++) {
      if (rels[i]! < 0) {
        unj++;
        sum += cur;
      }
      cur *= p;
    }
    if (unj) out[at] = cur + (1 - p) * sum;
  },
};
