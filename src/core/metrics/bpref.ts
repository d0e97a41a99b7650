/**
 * bpref — binary preference: for each retrieved relevant document, the fraction of the first R judged
 * non-relevant documents ranked above it, subtracted from 1, averaged over R:
 *
 *   bpref = (1/R) · Σ_{retrieved relevant r} (1 − min(n_r, R) / min(N, R))    (term = 1 when n_r = 0)
 *
 * n_r = judged non-relevant (0 ≤ grade < ℓ) retrieved above r; N = judged non-relevant in the qrels;
 * R = num_rel. Documents not in the qrels and documents judged negative are skipped.
 * Cite: trec_eval 9.0.8 m_bpref.c; Buckley & Voorhees, "Retrieval Evaluation with Incomplete
 * Information", SIGIR 2004.
 */
import { countBelow } from './judged.ts';
import { RELVALUE_NONPOOL, RELVALUE_UNJUDGED, type MeasureDef, type QueryContext } from './measure.ts';

export function bprefOf(rels: Int32Array, numRet: number, numRel: number, numNonrel: number, level: number): number {
  let nonrelSoFar = 0;
  let bpref = 0;
  for (let j = 0; j < numRet; j++) {
    const r = rels[j]!;
    if (r === RELVALUE_NONPOOL || r === RELVALUE_UNJUDGED) continue;
    if (r >= 0 && r < level) nonrelSoFar++;
    else if (nonrelSoFar > 0) bpref += 1 - Math.min(nonrelSoFar, numRel) / Math.min(numNonrel, numRel);
    else bpref += 1;
  }
  return numRel ? bpref / numRel : bpref;
}

const bprefOnce = (ctx: QueryContext): number =>
  bprefOf(ctx.rels, ctx.numRet, ctx.numRel, countBelow(ctx.judged, ctx.relevanceLevel), ctx.relevanceLevel);

/** bpref of the query, computed once for bpref and gm_bpref. */
export function bprefOfContext(ctx: QueryContext): number {
  return ctx.memo(bprefOnce);
}

export const bpref: MeasureDef = {
  name: 'bpref',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'binary preference (judged documents only)',
  compute(ctx, _p, out, at) {
    out[at] = bprefOfContext(ctx);
  },
};
