/**
 * relative_P.k — precision at k relative to the best possible: relevant in the top k divided by
 * min(k, num_rel). 0/0 (no relevant documents) gives NaN, as in trec_eval (printed "-nan").
 *
 *   relP@k = |{ i ≤ k : rel_i ≥ ℓ }| / min(k, R)
 *
 * Default cutoffs 5,10,15,20,30,100,200,500,1000. Cite: trec_eval 9.0.8 m_rel_P.c.
 */
import type { MeasureDef } from './measure.ts';
import { relevantAtCutoffs } from './precision.ts';

export const relativePrecision: MeasureDef = {
  name: 'relative_P',
  params: 'long-cutoffs',
  defaultParams: '5,10,15,20,30,100,200,500,1000',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  description: 'precision at cutoffs relative to min(cutoff, num_rel)',
  compute(ctx, p, out, at) {
    const cutoffs = p.values;
    relevantAtCutoffs(ctx.rels, ctx.numRet, ctx.relevanceLevel, cutoffs, out, at);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = out[at + c]! / Math.min(cutoffs[c]!, ctx.numRel);
  },
};
