/**
 * map — (non-interpolated) average precision of one query; the summary is the mean over queries (MAP).
 *
 *   AP = (1 / R) · Σ_{i : rel_i ≥ ℓ} (relevant in top i) / i
 *
 * R = num_rel (judged grade ≥ ℓ, the `-l` level, default 1); i runs over retrieved ranks in trec_eval
 * order. Relevant documents not retrieved contribute 0. A query with R = 0 scores 0.
 * Cite: trec_eval 9.0.8 m_map.c; Buckley & Voorhees, "Retrieval System Evaluation", TREC book ch. 3 (2005).
 */
import type { MeasureDef, QueryContext } from './measure.ts';

/** Sum of precisions at the relevant ranks within the first `depth` ranks, and how many there were. */
export function precisionSum(rels: Int32Array, depth: number, level: number): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < depth; i++) {
    if (rels[i]! >= level) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return sum;
}

export function averagePrecision(rels: Int32Array, numRet: number, numRel: number, level: number): number {
  const sum = precisionSum(rels, numRet, level);
  return sum > 0 ? sum / numRel : 0;
}

const averagePrecisionOnce = (ctx: QueryContext): number => averagePrecision(ctx.rels, ctx.numRet, ctx.numRel, ctx.relevanceLevel);

/** AP of the query, computed once for map and gm_map. */
export function averagePrecisionOf(ctx: QueryContext): number {
  return ctx.memo(averagePrecisionOnce);
}

export const map: MeasureDef = {
  name: 'map',
  params: 'none',
  defaultParams: '',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'mean average precision',
  compute(ctx, _p, out, at) {
    out[at] = averagePrecisionOf(ctx);
  },
};
