/**
 * num_rel_ret — number of retrieved documents with judged grade ≥ relevance level. Summary: sum.
 * Cite: trec_eval 9.0.8 m_num_rel_ret.c.
 */
import type { MeasureDef } from './measure.ts';

export const numRelRet: MeasureDef = {
  name: 'num_rel_ret',
  params: 'none',
  defaultParams: '',
  aggregation: 'sum',
  integer: true,
  perQuery: true,
  origin: 'trec_eval',
  description: 'number of relevant documents retrieved (summed over queries)',
  compute(ctx, _p, out, at) {
    out[at] = ctx.numRelRet;
  },
};
