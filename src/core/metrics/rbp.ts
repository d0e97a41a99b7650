/**
 * rbp — rank-biased precision (Moffat & Zobel 2008) with persistence p (default 0.9, `rbp.p=0.95`):
 *
 *   RBP = (1 − p) · Σ_{i ≥ 1} gain_i · p^(i−1)
 *
 * Gains as in ndcg (grade, or `level=gain` pairs), rescaled to [0, 1] as (g − min)/(max − min) over all
 * gain levels when any lies outside [0, 1]. (The C code leaves min/max uninitialised; we use the
 * intended minimum and maximum, which reproduces the published outputs.)
 * Cite: trec_eval m_rbp.c (Anserini 9.0.8 build); Moffat & Zobel, "Rank-Biased Precision for
 * Measurement of Retrieval Effectiveness", ACM TOIS 27(1), 2008.
 */
import { gainTable } from './gains.ts';
import type { MeasureDef } from './measure.ts';

export const DEFAULT_RBP_PERSISTENCE = 0.9;

export const rbp: MeasureDef = {
  name: 'rbp',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval-10',
  description: 'rank-biased precision (p = 0.9 unless p=… is given)',
  compute(ctx, p, out, at) {
    let persistence = DEFAULT_RBP_PERSISTENCE;
    for (const pair of p.pairs) if (pair.level === 'p') persistence = pair.gain;
    const gainOf = gainTable(ctx.judged, p).scaledGainOf;
    const { rels, numRet } = ctx;
    let sum = 0;
    let cur = 1;
    for (let i = 0; i < numRet; i++) {
      const g = gainOf(rels[i]!);
      if (g !== 0) sum += g * cur;
      cur *= persistence;
    }
    out[at] = (1 - persistence) * sum;
  },
};
