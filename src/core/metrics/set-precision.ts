/**
 * set_P — precision of the whole retrieved set: num_rel_ret / num_ret (0 when nothing retrieved).
 * Cite: trec_eval 9.0.8 m_set_P.c.
 */
import type { MeasureDef } from './measure.ts';

export const setPrecision: MeasureDef = {
  name: 'set_P',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'precision of the retrieved set',
  compute(ctx, _p, out, at) {
    if (ctx.numRet) out[at] = ctx.numRelRet / ctx.numRet;
  },
};
