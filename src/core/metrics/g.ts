/**
 * G — gain discounted by how far the ranking has fallen behind the ideal: a document with gain g at a
 * point where the ideal has accumulated cost C and the run gain S contributes g / log2(2 + C − S);
 * normalised by the total ideal gain. Gains as in ndcg (grade, or `level=gain` pairs); the per-rank cost
 * is the ideal gain, at least 1. Cite: trec_eval 9.0.8 m_G.c.
 */
import { gainTable } from './gains.ts';
import type { MeasureDef } from './measure.ts';

const MIN_COST = 1.0;

export const gMeasure: MeasureDef = {
  name: 'G',
  params: 'pairs',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'G (gain discounted by shortfall from the ideal)',
  compute(ctx, p, out, at) {
    const t = gainTable(ctx.judged, p);
    const { ideal } = t;
    const len = ideal.length;
    const { rels, numRet } = ctx;
    let idealGain = t.initial;
    let resultsG = 0;
    let sumResults = 0;
    let sumIdeal = 0;
    let sumCost = 0;
    let i = 0;
    for (; i < numRet && idealGain > 0; i++) {
      const g = t.gainOf(rels[i]!);
      sumResults += g;
      idealGain = i < len ? ideal[i]! : 0;
      if (idealGain > 0) sumIdeal += idealGain;
      sumCost += idealGain >= MIN_COST ? idealGain : MIN_COST;
      if (g !== 0) resultsG += g / Math.log2(2 + sumCost - sumResults);
    }
    for (; i < numRet; i++) {
      const g = t.gainOf(rels[i]!);
      sumResults += g;
      sumCost += MIN_COST;
      if (g !== 0) resultsG += g / Math.log2(2 + sumCost - sumResults);
    }
    for (; idealGain > 0; i++) {
      idealGain = i < len ? ideal[i]! : 0;
      if (idealGain > 0) sumIdeal += idealGain;
    }
    if (sumIdeal > 0) out[at] = resultsG / sumIdeal;
  },
};
