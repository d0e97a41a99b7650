/**
 * ndcg — normalised discounted cumulative gain over the whole ranking (Järvelin & Kekäläinen 2002):
 *
 *   DCG  = Σ_{i ≥ 1} gain(rel_i) / log2(i + 1)
 *   nDCG = DCG / IDCG,   0 when IDCG = 0
 *
 * Gain = the raw grade by default (no 2^g − 1; negative grades and unjudged documents gain 0; `-l` does
 * not apply), overridable per level with `ndcg.1=3,2=9` (the name then prints as `ndcg_1=3,2=9`).
 * IDCG ranks every judged document by gain, positive gains only, judged-but-not-retrieved included.
 * dcg and ideal_dcg (trec_eval 10.0) print the numerator and the denominator.
 * Cite: trec_eval m_ndcg.c (implementation after Ian Soboroff); Järvelin & Kekäläinen,
 * "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002.
 */
import { gainTable } from './gains.ts';
import type { MeasureDef, MeasureParams, QueryContext } from './measure.ts';

/** DCG of the retrieved ranking with grade-as-gain. */
export function dcgOfGrades(rels: Int32Array, numRet: number): number {
  let dcg = 0;
  for (let i = 0; i < numRet; i++) {
    const g = rels[i]!;
    if (g > 0) dcg += g / Math.log2(i + 2);
  }
  return dcg;
}

/** Results DCG and ideal DCG of one query, summed in rank order as m_ndcg.c does. */
function dcgAndIdeal(ctx: QueryContext, p: MeasureParams): { dcg: number; ideal: number } {
  if (p.pairs.length === 0) {
    const ideal = ctx.judged.idealDcg;
    return { dcg: dcgOfGrades(ctx.rels, ctx.numRet), ideal: ideal[ideal.length - 1]! };
  }
  const t = gainTable(ctx.judged, p);
  const { rels, numRet } = ctx;
  let dcg = 0;
  for (let i = 0; i < numRet; i++) {
    const g = t.gainOf(rels[i]!);
    if (g !== 0) dcg += g / Math.log2(i + 2);
  }
  let ideal = 0;
  for (let i = 0; i < t.ideal.length; i++) ideal += t.ideal[i]! / Math.log2(i + 2);
  return { dcg, ideal };
}

export const ndcg: MeasureDef = {
  name: 'ndcg',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'nDCG over the whole ranking (gain = grade unless level=gain pairs are given)',
  compute(ctx, p, out, at) {
    const { dcg, ideal } = dcgAndIdeal(ctx, p);
    out[at] = ideal > 0 ? dcg / ideal : 0;
  },
};

/** dcg — the unnormalised DCG of the ranking (same gains as ndcg). trec_eval 10.0 m_ndcg.c. */
export const dcg: MeasureDef = {
  name: 'dcg',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval-10',
  description: 'discounted cumulative gain over the whole ranking (gain = grade unless level=gain pairs are given)',
  compute(ctx, p, out, at) {
    out[at] = dcgAndIdeal(ctx, p).dcg;
  },
};

/** ideal_dcg — DCG of the ideal ranking of every judged document (ndcg's denominator). trec_eval 10.0 m_ndcg.c. */
export const idealDcg: MeasureDef = {
  name: 'ideal_dcg',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval-10',
  description: 'DCG of the ideal ranking (gain = grade unless level=gain pairs are given)',
  compute(ctx, p, out, at) {
    out[at] = dcgAndIdeal(ctx, p).ideal;
  },
};
