/**
 * set_relative_P — num_rel_ret / min(num_ret, num_rel); 0 when nothing is retrieved or nothing is
 * relevant (trec_eval computes it only when both are > 0). Cite: trec_eval m_set_rel_P.c.
 */
import type { MeasureDef } from './measure.ts';

export const setRelativePrecision: MeasureDef = {
  name: 'set_relative_P',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'relevant retrieved over min(retrieved, relevant)',
  compute(ctx, _p, out, at) {
    if (ctx.numRet && ctx.numRel) out[at] = ctx.numRelRet / Math.min(ctx.numRet, ctx.numRel);
  },
};
