/**
 * ncg_cut.k — our extension (not in trec_eval): normalised cumulative gain at k (Rosset et al. 2018),
 * the sum of gains in the top k over the ideal sum for k, with no rank discount:
 *
 *   NCG@k = Σ_{i ≤ k, g_i > 0} g_i / Σ_{i ≤ k} ideal_i
 *
 * Gains are raw grades as in ndcg_cut (negative and unjudged gain 0, `-l` does not apply); the ideal is
 * all judged positive grades sorted descending. On binary qrels it equals capped recall,
 * |relevant in top k| / min(k, R). 0 when no judged grade is positive. Prints as `ncg_cut_100`.
 * Cite: Rosset, Mitra, Xiong, Craswell, Song, Tiwary, "An Axiomatic Approach to Regularizing Neural
 * Ranking Models", SIGIR 2019 (arXiv 2018).
 */
import type { MeasureDef } from './measure.ts';

export const ncgCut: MeasureDef = {
  name: 'ncg_cut',
  params: 'long-cutoffs',
  defaultParams: '5,10,15,20,30,100,200,500,1000',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'fliplab',
  description: 'normalised cumulative gain at cutoffs (no discount; extension)',
  compute(ctx, p, out, at) {
    const { rels, numRet } = ctx;
    const ideal = ctx.judged.idealCg;
    const idealLen = ideal.length - 1;
    const cutoffs = p.values;
    const nc = cutoffs.length;
    let c = 0;
    let cg = 0;
    for (let i = 0; i < numRet && c < nc; i++) {
      while (c < nc && i === cutoffs[c]) {
        const norm = ideal[i < idealLen ? i : idealLen]!;
        out[at + c++] = norm > 0 ? cg / norm : 0;
      }
      const g = rels[i]!;
      if (g > 0) cg += g;
    }
    for (; c < nc; c++) {
      const k = cutoffs[c]!;
      const norm = ideal[k < idealLen ? k : idealLen]!;
      out[at + c] = norm > 0 ? cg / norm : 0;
    }
  },
};
