/**
 * runid — the run tag, printed on the summary line only. trec_eval takes it from the last line of the
 * results file; we use the run's name (first tag or the name given), overridable when formatting.
 * Cite: trec_eval 9.0.8 m_runid.c.
 */
import type { MeasureDef } from './measure.ts';

export const runid: MeasureDef = {
  name: 'runid',
  params: 'none',
  defaultParams: '',
  aggregation: 'runid',
  integer: false,
  perQuery: false,
  origin: 'trec_eval',
  description: 'run tag',
  compute() {},
};
