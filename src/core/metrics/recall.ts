/**
 * recall.k — fraction of the relevant documents (grade ≥ `-l` level) found in the top k:
 *
 *   R@k = |{ i ≤ k : rel_i ≥ ℓ }| / num_rel,   0 when num_rel = 0.
 *
 * Default cutoffs 5,10,15,20,30,100,200,500,1000. Cite: trec_eval 9.0.8 m_recall.c.
 */
import type { MeasureDef } from './measure.ts';
import { relevantAtCutoffs } from './precision.ts';

export const recall: MeasureDef = {
  name: 'recall',
  params: 'long-cutoffs',
  defaultParams: '5,10,15,20,30,100,200,500,1000',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'recall at cutoffs',
  compute(ctx, p, out, at) {
    if (ctx.numRel === 0) return;
    const cutoffs = p.values;
    relevantAtCutoffs(ctx, cutoffs, out, at);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = out[at + c]! / ctx.numRel;
  },
};
