/**
 * unj.k — fraction of the top k that is unjudged (not in the qrels, or judged with a negative grade);
 * missing ranks below num_ret count as judged. A "red flag" for pool coverage.
 *
 *   unj@k = |{ i ≤ k : doc_i unjudged }| / k
 *
 * Default cutoffs 5,10,20. Cite: trec_eval m_unjudged.c (Soboroff 2023; in the Anserini 9.0.8 build).
 */
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED, type MeasureDef } from './measure.ts';

export const unjudged: MeasureDef = {
  name: 'unj',
  params: 'long-cutoffs',
  defaultParams: '5,10,20',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval-10',
  description: 'fraction of unjudged documents at cutoffs',
  compute(ctx, p, out, at) {
    const { rels, numRet } = ctx;
    const cutoffs = p.values;
    const nc = cutoffs.length;
    let c = 0;
    let unj = 0;
    for (let i = 0; i < numRet && c < nc; i++) {
      while (c < nc && i === cutoffs[c]) out[at + c] = unj / cutoffs[c++]!;
      const r = rels[i]!;
      if (r === RELVALUE_NONPOOL || r === RELVALUE_UNJUDGED) unj++;
    }
    while (c < nc) out[at + c] = unj / cutoffs[c++]!;
  },
};
