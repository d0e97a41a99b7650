/**
 * set_recall — recall of the whole retrieved set: num_rel_ret / num_rel (0 when num_rel = 0).
 * Cite: trec_eval 9.0.8 m_set_recall.c.
 */
import type { MeasureDef } from './measure.ts';

export const setRecall: MeasureDef = {
  name: 'set_recall',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'recall of the retrieved set',
  compute(ctx, _p, out, at) {
    if (ctx.numRel) out[at] = ctx.numRelRet / ctx.numRel;
  },
};
