/**
 * Rprec — precision after R documents, R = num_rel (grade ≥ `-l` level):
 *
 *   Rprec = (relevant in top min(R, num_ret)) / R,   0 when R = 0 or nothing retrieved.
 *
 * Cite: trec_eval 9.0.8 m_Rprec.c; Buckley & Voorhees (2005).
 */
import type { MeasureDef } from './measure.ts';

export function rPrecision(rels: Int32Array, numRet: number, numRel: number, level: number): number {
  const depth = Math.min(numRet, numRel);
  if (depth === 0) return 0;
  let relSoFar = 0;
  for (let i = 0; i < depth; i++) if (rels[i]! >= level) relSoFar++;
  return relSoFar / numRel;
}

export const rprec: MeasureDef = {
  name: 'Rprec',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'precision after R (= num_rel) documents',
  compute(ctx, _p, out, at) {
    out[at] = rPrecision(ctx.rels, ctx.numRet, ctx.numRel, ctx.relevanceLevel);
  },
};
