/**
 * iprec_at_recall.x — interpolated precision at recall level x (the standard recall-precision graph):
 *
 *   iprec(x) = max{ P@j : j ≥ rank at which lround(x·R) relevant documents have been retrieved }
 *
 * R = num_rel (grade ≥ `-l` level). A recall level the run never reaches takes the interpolated
 * precision at the end of the ranking region scanned (0 when no relevant document was retrieved).
 * The recall→count conversion is the one place the releases differ (`recallCutoff`): trec_eval 10.0
 * rounds (lround), 9.0.8 and earlier add 0.9 and truncate — DL19's iprec_at_recall_0.10 is 0.7023 in
 * 10.0 and 0.6696 in 9.0.8. Default levels 0.0,0.1,…,1.0; names print with `%3.2f` (iprec_at_recall_0.10).
 * Cite: trec_eval m_iprec_at_recall.c (10.0 and 9.0.8).
 */
import type { MeasureDef, QueryContext } from './measure.ts';
import { recallCutoff } from './version.ts';

let scratch = new Float64Array(16);

/**
 * Interpolated precision at each recall fraction (ascending), written to out[at..]. Mirrors the reverse
 * scan of m_iprec_at_recall.c so ties and unreachable levels behave identically.
 */
export function interpolatedPrecision(ctx: QueryContext, fractions: Float64Array, out: Float64Array, at: number): void {
  const { rels, numRet, numRel, numRelRet, relevanceLevel: level } = ctx;
  const n = fractions.length;
  if (scratch.length < n) scratch = new Float64Array(n);
  const cutoffs = scratch;
  for (let i = 0; i < n; i++) cutoffs[i] = recallCutoff(fractions[i]!, numRel, ctx.version);
  let cur = n - 1;
  while (cur >= 0 && cutoffs[cur]! > numRelRet) cur--;
  let intPrecis = numRelRet / numRet;
  let relSoFar = numRelRet;
  for (let i = numRet; i > 0 && relSoFar > 0; i--) {
    const precis = relSoFar / i;
    if (intPrecis < precis) intPrecis = precis;
    if (rels[i - 1]! >= level) {
      while (cur >= 0 && relSoFar === cutoffs[cur]) out[at + cur--] = intPrecis;
      relSoFar--;
    }
  }
  while (cur >= 0) out[at + cur--] = intPrecis;
}

export const iprecAtRecall: MeasureDef = {
  name: 'iprec_at_recall',
  params: 'double-cutoffs',
  defaultParams: '0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'interpolated precision at recall levels',
  compute(ctx, p, out, at) {
    interpolatedPrecision(ctx, p.values, out, at);
  },
};
