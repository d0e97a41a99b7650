/**
 * Rndcg — nDCG averaged over the ranks where the ideal gain changes (the boundaries between grade levels
 * in the ideal ranking) plus the end of the ranking; a graded analogue of R-precision. Gains as in ndcg.
 * 0 when no document is relevant at the `-l` level. The loops mirror m_Rndcg.c.
 * Cite: trec_eval 9.0.8 m_Rndcg.c.
 */
import { gainTable } from './gains.ts';
import type { MeasureDef } from './measure.ts';

export const rndcg: MeasureDef = {
  name: 'Rndcg',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'nDCG averaged at ideal grade-level boundaries',
  compute(ctx, p, out, at) {
    if (ctx.numRel === 0) return;
    const t = gainTable(ctx.judged, p);
    const { ideal } = t;
    const len = ideal.length;
    const { rels, numRet } = ctx;
    let idealGain = t.initial;
    let oldIdealGain = idealGain;
    let dcg = 0;
    let idcg = 0;
    let sum = 0;
    let changes = 0;
    let i = 0;
    for (; i < numRet && idealGain > 0; i++) {
      const g = t.gainOf(rels[i]!);
      idealGain = i < len ? ideal[i]! : 0;
      if (oldIdealGain !== idealGain) {
        if (idcg > 0) {
          sum += dcg / idcg;
          changes++;
        }
        oldIdealGain = idealGain;
      }
      if (g !== 0) dcg += g / Math.log2(i + 2);
      if (idealGain > 0) idcg += idealGain / Math.log2(i + 2);
    }
    if (i < numRet) {
      for (; i < numRet; i++) {
        const g = t.gainOf(rels[i]!);
        if (g !== 0) dcg += g / Math.log2(i + 2);
      }
      if (idcg > 0) {
        sum += dcg / idcg;
        changes++;
      }
    }
    for (; idealGain > 0; i++) {
      idealGain = i < len ? ideal[i]! : 0;
      if (oldIdealGain !== idealGain) {
        if (idcg > 0) {
          sum += dcg / idcg;
          changes++;
        }
        oldIdealGain = idealGain;
      }
      if (idealGain > 0) idcg += idealGain / Math.log2(i + 2);
    }
    out[at] = sum / changes;
  },
};
