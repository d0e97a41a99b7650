/**
 * num_ret — number of documents retrieved for the query (after `-M`). Summary: sum over queries.
 * Cite: trec_eval 9.0.8 m_num_ret.c.
 */
import type { MeasureDef } from './measure.ts';

export const numRet: MeasureDef = {
  name: 'num_ret',
  params: 'none',
  defaultParams: '',
  aggregation: 'sum',
  integer: true,
  perQuery: true,
  origin: 'trec_eval',
  description: 'number of retrieved documents (summed over queries)',
  compute(ctx, _p, out, at) {
    out[at] = ctx.numRet;
  },
};
