/**
 * gm_bpref — geometric mean of bpref over queries, exp(mean ln(max(bpref, 0.00001))); summary only.
 * Cite: trec_eval 9.0.8 m_gm_bpref.c.
 */
import { bprefOfContext } from './bpref.ts';
import { MIN_GEO_MEAN, type MeasureDef } from './measure.ts';

export const gmBpref: MeasureDef = {
  name: 'gm_bpref',
  params: 'none',
  defaultParams: '',
  aggregation: 'geometric',
  integer: false,
  perQuery: false,
  origin: 'trec_eval',
  description: 'geometric mean of bpref (floor 0.00001)',
  compute(ctx, _p, out, at) {
    out[at] = Math.log(Math.max(bprefOfContext(ctx), MIN_GEO_MEAN));
  },
};
