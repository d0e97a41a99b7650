/**
 * P.k — precision at cutoff k: relevant (grade ≥ `-l` level) documents in the top k, divided by k. When
 * fewer than k documents were retrieved the rest count as non-relevant (the divisor stays k).
 *
 *   P@k = |{ i ≤ k : rel_i ≥ ℓ }| / k
 *
 * Default cutoffs 5,10,15,20,30,100,200,500,1000. Cite: trec_eval m_P.c.
 */
import type { MeasureDef, QueryContext } from './measure.ts';

/** out[at + c] = relevant documents within the top cutoffs[c] (from the query's shared prefix counts). */
export function relevantAtCutoffs(ctx: QueryContext, cutoffs: Float64Array, out: Float64Array, at: number): void {
  const prefix = ctx.relevantPrefix();
  const n = ctx.numRet;
  for (let c = 0; c < cutoffs.length; c++) {
    const k = cutoffs[c]!;
    out[at + c] = prefix[k < n ? k : n]!;
  }
}

export const precision: MeasureDef = {
  name: 'P',
  params: 'long-cutoffs',
  defaultParams: '5,10,15,20,30,100,200,500,1000',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'precision at cutoffs',
  compute(ctx, p, out, at) {
    const cutoffs = p.values;
    relevantAtCutoffs(ctx, cutoffs, out, at);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = out[at + c]! / cutoffs[c]!;
  },
};
