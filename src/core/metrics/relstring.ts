/**
 * relstring.n — the relevance codes of the first n (default 10) retrieved documents as a string, one
 * character each: the grade if 0–9, '>' above 9, '-' not in the qrels, '.' judged negative (in pool but
 * unjudged), '<' any other value. Printed quoted, per query only; no summary.
 * Cite: trec_eval 9.0.8 m_relstring.c.
 */
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED, type MeasureDef } from './measure.ts';

export const relstring: MeasureDef = {
  name: 'relstring',
  params: 'double-params',
  defaultParams: '10',
  aggregation: 'none',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'relevance codes of the top documents as text',
  compute() {},
  text(ctx, p) {
    const len = Math.max(0, Math.min(Math.trunc(p.values[0] ?? 10), ctx.numRet));
    let s = '';
    for (let i = 0; i < len; i++) {
      const r = ctx.rels[i]!;
      s += r > 9 ? '>' : r >= 0 ? String.fromCharCode(48 + r) : r === RELVALUE_NONPOOL ? '-' : r === RELVALUE_UNJUDGED ? '.' : '<';
    }
    return s;
  },
};
