/**
 * num_nonrel_judged_ret — retrieved documents judged non-relevant: num_ret − not-in-qrels − judged
 * negative − relevant retrieved. Summary: sum.
 * Cite: trec_eval 9.0.8 m_num_nonrel_judged_ret.c.
 */
import type { MeasureDef } from './measure.ts';

export const numNonrelJudgedRet: MeasureDef = {
  name: 'num_nonrel_judged_ret',
  params: 'none',
  defaultParams: '',
  aggregation: 'sum',
  integer: true,
  perQuery: true,
  origin: 'trec_eval',
  description: 'number of retrieved documents judged non-relevant (summed over queries)',
  compute(ctx, _p, out, at) {
    out[at] = ctx.numRet - ctx.numNonpool - ctx.numUnjudged - ctx.numRelRet;
  },
};
