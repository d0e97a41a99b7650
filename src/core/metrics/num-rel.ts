/**
 * num_rel — number of judged documents with grade ≥ relevance level (`-l`, default 1). Summary: sum over
 * evaluated queries; with `-c`, trec_eval instead counts judgments with grade > 0 in every qrels query,
 * ignoring `-l` (te_calc_avg_num_rel) — reproduced as is.
 * Cite: trec_eval 9.0.8 m_num_rel.c.
 */
import type { MeasureDef } from './measure.ts';

export const numRel: MeasureDef = {
  name: 'num_rel',
  params: 'none',
  defaultParams: '',
  aggregation: 'num-rel',
  integer: true,
  perQuery: true,
  origin: 'trec_eval',
  description: 'number of relevant documents (grade ≥ -l level; summed over queries)',
  compute(ctx, _p, out, at) {
    out[at] = ctx.numRel;
  },
};
