/**
 * recip_rank_cut.k — our extension (not in trec_eval): reciprocal rank with a cutoff, the MS MARCO
 * "MRR@10" (ir_measures `RR@k`):
 *
 *   RR@k = 1 / i  for the first relevant (grade ≥ `-l` level) document at rank i ≤ k, else 0.
 *
 * Named after trec_eval's `_cut` family (ndcg_cut, map_cut); prints as `recip_rank_cut_10`.
 * Default cutoff 10. Cite: Nguyen et al., "MS MARCO: A Human Generated MAchine Reading COmprehension
 * Dataset" (2016), official eval script msmarco_eval.py (MRR@10).
 */
import type { MeasureDef } from './measure.ts';
import { firstRelevant } from './recip-rank.ts';

export const recipRankCut: MeasureDef = {
  name: 'recip_rank_cut',
  params: 'long-cutoffs',
  defaultParams: '10',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'fliplab',
  description: 'reciprocal rank of the first relevant document within the top k (MRR@k; extension)',
  compute(ctx, p, out, at) {
    const cutoffs = p.values;
    const i = firstRelevant(ctx.rels, Math.min(ctx.numRet, cutoffs[cutoffs.length - 1]!), ctx.relevanceLevel);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = i >= 0 && i < cutoffs[c]! ? 1 / (i + 1) : 0;
  },
};
