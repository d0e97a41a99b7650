/**
 * ndcg — normalised discounted cumulative gain over the whole ranking (Järvelin & Kekäläinen 2002):
 *
 *   DCG  = Σ_{i ≥ 1} gain(rel_i) / log2(i + 1)
 *   nDCG = DCG / IDCG,   0 when IDCG = 0
 *
 * Gain = the raw grade by default (no 2^g − 1; negative grades and unjudged documents gain 0; `-l` does
 * not apply), overridable per level with `ndcg.1=3,2=9` (the name then prints as `ndcg_1=3,2=9`).
 * IDCG ranks every judged document by gain, positive gains only, judged-but-not-retrieved included.
 * Cite: trec_eval 9.0.8 m_ndcg.c (implementation after Ian Soboroff); Järvelin & Kekäläinen,
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

function ndcgWithParams(ctx: QueryContext, p: MeasureParams): number {
  const t = gainTable(ctx.judged, p);
  const { rels, numRet } = ctx;
  let dcg = 0;
  for (let i = 0; i < numRet; i++) {
    const g = t.gainOf(rels[i]!);
    if (g !== 0) dcg += g / Math.log2(i + 2);
  }
  let idcg = 0;
  for (let i = 0; i < t.ideal.length; i++) idcg += t.ideal[i]! / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

export const ndcg: MeasureDef = {
  name: 'ndcg',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  description: 'nDCG over the whole ranking (gain = grade unless level=gain pairs are given)',
  compute(ctx, p, out, at) {
    if (p.pairs.length > 0) {
      out[at] = ndcgWithParams(ctx, p);
      return;
    }
    const ideal = ctx.judged.idealDcg;
    const idcg = ideal[ideal.length - 1]!;
    out[at] = idcg > 0 ? dcgOfGrades(ctx.rels, ctx.numRet) / idcg : 0;
  },
};
