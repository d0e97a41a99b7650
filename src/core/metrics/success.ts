/**
 * success.k — 1 if at least one relevant document (grade ≥ `-l` level) is in the top k, else 0.
 *
 *   S@k = [ ∃ i ≤ k : rel_i ≥ ℓ ]
 *
 * Default cutoffs 1,5,10. Cite: trec_eval 9.0.8 m_success.c (measure by Stephen Tomlinson).
 */
import type { MeasureDef } from './measure.ts';
import { relevantAtCutoffs } from './precision.ts';

export const success: MeasureDef = {
  name: 'success',
  params: 'long-cutoffs',
  defaultParams: '1,5,10',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'success (a relevant document retrieved) at cutoffs',
  compute(ctx, p, out, at) {
    const cutoffs = p.values;
    relevantAtCutoffs(ctx, cutoffs, out, at);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = out[at + c]! > 0 ? 1 : 0;
  },
};
