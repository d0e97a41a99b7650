/**
 * binG — binary G: each retrieved relevant document is worth 1 / log2(2 + non-relevant above it),
 * averaged over R = num_rel:
 *
 *   binG = (1/R) · Σ_{relevant at rank i (0-based)} 1 / log2(3 + i − rel_so_far_including_this)
 *
 * Cite: trec_eval 9.0.8 m_binG.c.
 */
import type { MeasureDef } from './measure.ts';

export const binG: MeasureDef = {
  name: 'binG',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'binary G (relevant documents discounted by non-relevant above)',
  compute(ctx, _p, out, at) {
    const { rels, numRet, numRel, relevanceLevel: level } = ctx;
    let relSoFar = 0;
    let sum = 0;
    for (let i = 0; i < numRet; i++) {
      if (rels[i]! >= level) {
        relSoFar++;
        sum += 1 / Math.log2(3 + i - relSoFar);
      }
    }
    if (relSoFar) out[at] = sum / numRel;
  },
};
