/**
 * P.k — precision at cutoff k: relevant (grade ≥ `-l` level) documents in the top k, divided by k. When
 * fewer than k documents were retrieved the rest count as non-relevant (the divisor stays k).
 *
 *   P@k = |{ i ≤ k : rel_i ≥ ℓ }| / k
 *
 * Default cutoffs 5,10,15,20,30,100,200,500,1000. Cite: trec_eval 9.0.8 m_P.c.
 */
import type { MeasureDef } from './measure.ts';

/** out[at + c] = relevant documents within the top cutoffs[c] (cutoffs ascending). */
export function relevantAtCutoffs(
  rels: Int32Array,
  numRet: number,
  level: number,
  cutoffs: Float64Array,
  out: Float64Array,
  at: number,
): void {
  let c = 0;
  let relSoFar = 0;
  const nc = cutoffs.length;
  for (let i = 0; i < numRet && c < nc; i++) {
    while (c < nc && i === cutoffs[c]) out[at + c++] = relSoFar;
    if (rels[i]! >= level) relSoFar++;
  }
  while (c < nc) out[at + c++] = relSoFar;
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
    relevantAtCutoffs(ctx.rels, ctx.numRet, ctx.relevanceLevel, cutoffs, out, at);
    for (let c = 0; c < cutoffs.length; c++) out[at + c] = out[at + c]! / cutoffs[c]!;
  },
};
