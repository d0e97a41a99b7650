/**
 * Rprec_mult.x — precision after ⌊x·R + 0.9⌋ documents, for multiples x of R = num_rel:
 *
 *   Rprec_mult(x) = (relevant in top n) / n,   n = (long)(x·R + 0.9)
 *
 * Beyond the end of the ranking the missing documents count as non-relevant. Default multiples
 * 0.2,0.4,…,2.0; names print with `%3.2f` (Rprec_mult_0.20). Cite: trec_eval 9.0.8 m_Rprec_mult.c.
 */
import type { MeasureDef } from './measure.ts';

let scratch = new Float64Array(16);

export const rprecMult: MeasureDef = {
  name: 'Rprec_mult',
  params: 'double-cutoffs',
  defaultParams: '0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'precision after multiples of R documents',
  compute(ctx, p, out, at) {
    const { rels, numRet, numRel, numRelRet, relevanceLevel: level } = ctx;
    const n = p.values.length;
    if (scratch.length < n) scratch = new Float64Array(n);
    const cutoffs = scratch;
    for (let i = 0; i < n; i++) cutoffs[i] = Math.trunc(p.values[i]! * numRel + 0.9); // m_Rprec_mult.c keeps the old +0.9 rounding
    let cur = n - 1;
    while (cur >= 0 && cutoffs[cur]! > numRet) {
      out[at + cur] = numRelRet / cutoffs[cur]!;
      cur--;
    }
    let relSoFar = numRelRet;
    for (let i = numRet; i > 0 && relSoFar > 0; i--) {
      const precis = relSoFar / i;
      while (cur >= 0 && i === cutoffs[cur]) out[at + cur--] = precis;
      if (rels[i - 1]! >= level) relSoFar--;
    }
  },
};
