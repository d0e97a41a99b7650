/**
 * relative_P.k — precision at k relative to the best possible: relevant in the top k divided by
 * min(k, num_rel). A query without relevant documents scores 0 at every cutoff (trec_eval returns before
 * computing anything when num_rel = 0).
 *
 *   relP@k = |{ i ≤ k : rel_i ≥ ℓ }| / min(k, R)
 *
 * Default cutoffs 5,10,15,20,30,100,200,500,1000. Cite: trec_eval m_rel_P.c.
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
  origin: 'trec_eval',
  description: 'precision at cutoffs relative to min(cutoff, num_rel)',
  compute(ctx, p, out, at) {
    if (ctx.numRel === 0) return;
    const cutoffs = p.values;
    relevantAtCutoffs(ctx, cutoffs, out, at);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = out[at + c]! / Math.min(cutoffs[c]!, ctx.numRel);
  },
};
