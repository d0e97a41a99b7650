/**
 * set_F.β — F measure of the retrieved set, default β = 1 (harmonic mean of set_P and set_recall):
 *
 *   F = (β + 1) · P · R / (β · P + R)
 *
 * trec_eval weights with β, not β² (kept). 0 when no relevant document is retrieved (trec_eval only
 * computes F when num_rel_ret > 0, so the 0/0 of P = R = 0 never happens).
 * Cite: trec_eval m_set_F.c; van Rijsbergen, Information Retrieval (1979), ch. 7.
 */
import type { MeasureDef } from './measure.ts';

export const setF: MeasureDef = {
  name: 'set_F',
  params: 'double-params',
  defaultParams: '1.0',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'F measure of the retrieved set',
  compute(ctx, p, out, at) {
    if (!ctx.numRelRet) return;
    const precision = ctx.numRelRet / ctx.numRet;
    const recall = ctx.numRelRet / ctx.numRel;
    const beta = p.values[0] ?? 1;
    out[at] = ((beta + 1) * precision * recall) / (beta * precision + recall);
  },
};
