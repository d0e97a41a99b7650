/**
 * recip_rank — reciprocal rank of the first relevant (grade ≥ `-l` level) retrieved document, 0 if none:
 *
 *   RR = 1 / min{ i : rel_i ≥ ℓ }
 *
 * Cite: trec_eval 9.0.8 m_recip_rank.c; Voorhees, "The TREC-8 Question Answering Track Report" (1999).
 */
import type { MeasureDef } from './measure.ts';

/** 0-based rank of the first relevant document within `depth`, or -1. */
export function firstRelevant(rels: Int32Array, depth: number, level: number): number {
  for (let i = 0; i < depth; i++) if (rels[i]! >= level) return i;
  return -1;
}

export const recipRank: MeasureDef = {
  name: 'recip_rank',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'reciprocal rank of the first relevant document',
  compute(ctx, _p, out, at) {
    const i = firstRelevant(ctx.rels, ctx.numRet, ctx.relevanceLevel);
    out[at] = i < 0 ? 0 : 1 / (i + 1);
  },
};
