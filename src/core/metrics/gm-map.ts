/**
 * gm_map — geometric mean of per-query average precision:
 *
 *   gm_map = exp( (1/N) · Σ_q ln(max(AP_q, 0.00001)) )
 *
 * With `-c`, queries in the qrels but not in the run count as ln(0.00001). Summary only (trec_eval prints
 * no per-query value). Cite: trec_eval 9.0.8 m_gm_map.c, meas_avg.c (te_calc_avg_meas_s_gm);
 * Robertson, "On GMAP", CIKM 2006.
 */
import { averagePrecisionOf } from './map.ts';
import { MIN_GEO_MEAN, type MeasureDef } from './measure.ts';

export const gmMap: MeasureDef = {
  name: 'gm_map',
  params: 'none',
  defaultParams: '',
  aggregation: 'geometric',
  integer: false,
  perQuery: false,
  origin: 'trec_eval',
  description: 'geometric mean of average precision (floor 0.00001)',
  compute(ctx, _p, out, at) {
    out[at] = Math.log(Math.max(averagePrecisionOf(ctx), MIN_GEO_MEAN));
  },
};
