/**
 * 11pt_avg — mean of the interpolated precisions at the given recall levels (default the 11 levels
 * 0.0,0.1,…,1.0), each computed exactly as iprec_at_recall:
 *
 *   11pt_avg = (1/|X|) · Σ_{x ∈ X} iprec(x)
 *
 * With parameters the name carries them as given (`11pt_avg_.25,.5,.75`). trec_eval does not sort these
 * parameters; the same reverse scan runs over them in the given order, and so does ours.
 * The recall→count conversion follows the release (see iprec_at_recall). Cite: trec_eval m_11pt_avg.c.
 */
import { interpolatedPrecision } from './iprec-at-recall.ts';
import type { MeasureDef } from './measure.ts';

let points = new Float64Array(16);

export const elevenPtAvg: MeasureDef = {
  name: '11pt_avg',
  params: 'double-params',
  defaultParams: '0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'mean interpolated precision over recall levels',
  compute(ctx, p, out, at) {
    const n = p.values.length;
    if (points.length < n) points = new Float64Array(n);
    points.fill(0, 0, n); // levels beyond the relevant retrieved are never written: they count 0
    interpolatedPrecision(ctx, p.values, points, 0);
    let sum = 0;
    for (let c = n - 1; c >= 0; c--) sum += points[c]!; // the C code adds from the last level down
    out[at] = sum / n;
  },
};
