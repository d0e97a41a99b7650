/**
 * infAP — inferred average precision (Yilmaz & Aslam 2006) for qrels where a grade of -1 marks a pooled
 * but unjudged (sampled-out) document. For each judged relevant document at rank k (1-based):
 *
 *   E[prec@k] = 1/k + ((k−1)/k) · (|d100 above| / (k−1)) · ((rel_above + ε) / (rel_above + nonrel_above + 2ε))
 *
 * (the first rank contributes 1), where "above" counts pooled documents (judged or -1) above k, and
 * ε = 0.00001; infAP is the sum divided by num_rel. Documents outside the pool are skipped.
 * Cite: trec_eval 9.0.8 m_infap.c; Yilmaz & Aslam, "Estimating Average Precision with Incomplete and
 * Imperfect Judgments", CIKM 2006.
 */
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED, type MeasureDef } from './measure.ts';

const INFAP_EPSILON = 0.00001;

export const infAP: MeasureDef = {
  name: 'infAP',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'inferred average precision (grade -1 = pooled but unjudged)',
  compute(ctx, _p, out, at) {
    const { rels, numRet, numRel, relevanceLevel: level } = ctx;
    let nonrelSoFar = 0;
    let relSoFar = 0;
    let poolUnjudgedSoFar = 0;
    let infAp = 0;
    for (let j = 0; j < numRet; j++) {
      const r = rels[j]!;
      if (r === RELVALUE_NONPOOL) continue;
      if (r === RELVALUE_UNJUDGED) {
        poolUnjudgedSoFar++;
        continue;
      }
      if (r >= 0 && r < level) {
        nonrelSoFar++;
      } else {
        relSoFar++;
        if (j === 0) infAp += 1;
        else {
          const fj = j;
          infAp +=
            1 / (fj + 1) +
            (fj / (fj + 1)) *
              ((relSoFar - 1 + nonrelSoFar + poolUnjudgedSoFar) / fj) *
              ((relSoFar - 1 + INFAP_EPSILON) / (relSoFar - 1 + nonrelSoFar + 2 * INFAP_EPSILON));
        }
      }
    }
    out[at] = numRel ? infAp / numRel : infAp;
  },
};
