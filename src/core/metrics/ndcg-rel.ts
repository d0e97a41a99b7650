/**
 * ndcg_rel — nDCG averaged over the relevant documents: at each retrieved document with gain > 0 take
 * DCG/IDCG at that rank; relevant documents not retrieved contribute the final DCG/IDCG; average over
 * the number of positive-gain judged documents. Gains as in ndcg (grade, or `level=gain` pairs).
 * The loops mirror m_ndcg_rel.c so the floating-point sums happen in the same order.
 * Cite: trec_eval 9.0.8 m_ndcg_rel.c.
 */
import { gainTable } from './gains.ts';
import type { MeasureDef } from './measure.ts';

export const ndcgRel: MeasureDef = {
  name: 'ndcg_rel',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'nDCG averaged over relevant documents',
  compute(ctx, p, out, at) {
    const t = gainTable(ctx.judged, p);
    const { ideal } = t;
    const len = ideal.length;
    const { rels, numRet } = ctx;
    let idealGain = t.initial;
    let dcg = 0;
    let idcg = 0;
    let sum = 0;
    let numRelRet = 0;
    let numRel = 0;
    let i = 0;
    for (; i < numRet && idealGain > 0; i++) {
      const g = t.gainOf(rels[i]!);
      if (g !== 0) dcg += g / Math.log2(i + 2);
      idealGain = i < len ? ideal[i]! : 0;
      if (idealGain > 0) {
        numRel++;
        idcg += idealGain / Math.log2(i + 2);
      }
      if (g > 0) {
        sum += dcg / idcg;
        numRelRet++;
      }
    }
    for (; i < numRet; i++) {
      const g = t.gainOf(rels[i]!);
      if (g !== 0) dcg += g / Math.log2(i + 2);
      if (g > 0) {
        sum += dcg / idcg;
        numRelRet++;
      }
    }
    for (; idealGain > 0; i++) {
      idealGain = i < len ? ideal[i]! : 0;
      if (idealGain > 0) {
        numRel++;
        idcg += idealGain / Math.log2(i + 2);
      }
    }
    sum += ((numRel - numRelRet) * dcg) / idcg;
    if (sum > 0) out[at] = sum / numRel;
  },
};
