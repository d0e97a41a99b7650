/**
 * num_q — number of queries averaged over: queries in both run and qrels, or with `-c` every qrels query.
 * Summary only. Cite: trec_eval 9.0.8 m_num_q.c.
 */
import type { MeasureDef } from './measure.ts';

export const numQ: MeasureDef = {
  name: 'num_q',
  params: 'none',
  defaultParams: '',
  aggregation: 'num-q',
  integer: true,
  perQuery: false,
  origin: 'trec_eval',
  description: 'number of queries averaged over',
  compute() {},
};
