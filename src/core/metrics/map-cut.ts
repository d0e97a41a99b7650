/**
 * map_cut.k — average precision truncated at rank k, still normalised by all relevant documents:
 *
 *   AP@k = (1/R) · Σ_{i ≤ k : rel_i ≥ ℓ} (relevant in top i) / i,   0 when R = 0.
 *
 * Default cutoffs 5,10,15,20,30,100,200,500,1000. Cite: trec_eval 9.0.8 m_map_cut.c.
 */
import type { MeasureDef } from './measure.ts';

export const mapCut: MeasureDef = {
  name: 'map_cut',
  params: 'long-cutoffs',
  defaultParams: '5,10,15,20,30,100,200,500,1000',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'average precision truncated at cutoffs',
  compute(ctx, p, out, at) {
    const numRel = ctx.numRel;
    if (numRel === 0) return;
    const { rels, numRet, relevanceLevel: level } = ctx;
    const cutoffs = p.values;
    const nc = cutoffs.length;
    let c = 0;
    let relSoFar = 0;
    let sum = 0;
    for (let i = 0; i < numRet && c < nc; i++) {
      while (c < nc && i === cutoffs[c]) out[at + c++] = sum / numRel;
      if (rels[i]! >= level) {
        relSoFar++;
        sum += relSoFar / (i + 1);
      }
    }
    while (c < nc) out[at + c++] = sum / numRel;
  },
};
