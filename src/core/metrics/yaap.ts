/**
 * yaap — "yet another average precision" (Robertson 2012), a smoothed AP that averages better across
 * queries than MAP (monotonic with AP on one query):
 *
 *   yaap = ln( (1 + S) / (1 + R − S) ),   S = Σ_{i : rel_i ≥ ℓ} (relevant in top i) / i
 *
 * R = num_rel. Not in all_trec (ask for it with `-m yaap`). A query with R = 0 and nothing relevant
 * retrieved gives ln(1) = 0.
 * Cite: trec_eval m_yaap.c (9.0.3+); S. Robertson, "On Smoothing Average Precision", ECIR 2012, LNCS 7224.
 */
import { precisionSum } from './map.ts';
import type { MeasureDef } from './measure.ts';

export const yaap: MeasureDef = {
  name: 'yaap',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'yet another average precision: ln((1 + S) / (1 + R − S)), S the sum of precisions at relevant ranks',
  compute(ctx, _p, out, at) {
    const sum = precisionSum(ctx.rels, ctx.numRet, ctx.relevanceLevel);
    out[at] = Math.log((1 + sum) / (1 + ctx.numRel - sum));
  },
};
