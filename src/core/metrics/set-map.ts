/**
 * set_map — set precision × set recall: num_rel_ret² / (num_ret · num_rel), 0 when either is 0.
 * Cite: trec_eval 9.0.8 m_set_map.c.
 */
import type { MeasureDef } from './measure.ts';

export const setMap: MeasureDef = {
  name: 'set_map',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'set precision times set recall',
  compute(ctx, _p, out, at) {
    if (ctx.numRet && ctx.numRel) out[at] = (ctx.numRelRet * ctx.numRelRet) / (ctx.numRet * ctx.numRel);
  },
};
