/**
 * ndcg_cut.k — normalised discounted cumulative gain at rank k (Järvelin & Kekäläinen 2002):
 *
 *   DCG@k  = Σ_{i ≤ k, g_i > 0} g_i / log2(i + 1)
 *   nDCG@k = DCG@k / IDCG@k
 *
 * Gain g_i = the raw qrels grade (no 2^g − 1); negative grades and unjudged documents gain 0. The `-l`
 * level does not apply. IDCG@k is the DCG@k of all judged positive grades sorted descending (judged
 * documents the run did not retrieve included). 0 when no judged grade is positive.
 * Default cutoffs 5,10,15,20,30,100,200,500,1000.
 * Cite: trec_eval 9.0.8 m_ndcg_cut.c; Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR
 * techniques", ACM TOIS 20(4), 2002.
 */
import type { MeasureDef } from './measure.ts';

export const ndcgCut: MeasureDef = {
  name: 'ndcg_cut',
  params: 'long-cutoffs',
  defaultParams: '5,10,15,20,30,100,200,500,1000',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'nDCG at cutoffs (gain = grade, log2(rank+1) discount)',
  compute(ctx, p, out, at) {
    const { rels, numRet } = ctx;
    const ideal = ctx.judged.idealDcg;
    const idealLen = ideal.length - 1;
    const cutoffs = p.values;
    const nc = cutoffs.length;
    let c = 0;
    let dcg = 0;
    for (let i = 0; i < numRet && c < nc; i++) {
      while (c < nc && i === cutoffs[c]) {
        const norm = ideal[i < idealLen ? i : idealLen]!;
        out[at + c++] = norm > 0 ? dcg / norm : dcg;
      }
      const g = rels[i]!;
      if (g > 0) dcg += g / Math.log2(i + 2);
    }
    for (; c < nc; c++) {
      const k = cutoffs[c]!;
      const norm = ideal[k < idealLen ? k : idealLen]!;
      out[at + c] = norm > 0 ? dcg / norm : dcg;
    }
  },
};
