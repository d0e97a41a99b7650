/**
 * set_relative_P — num_rel_ret / min(num_ret, num_rel); NaN (printed "-nan") when num_rel = 0, as in
 * trec_eval. Cite: trec_eval 9.0.8 m_set_rel_P.c.
 */
import type { MeasureDef } from './measure.ts';

export const setRelativePrecision: MeasureDef = {
  name: 'set_relative_P',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  description: 'relevant retrieved over min(retrieved, relevant)',
  compute(ctx, _p, out, at) {
    if (ctx.numRet) out[at] = ctx.numRelRet / Math.min(ctx.numRet, ctx.numRel);
  },
};
