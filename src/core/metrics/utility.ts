/**
 * utility.a,b,c,d — linear utility of the retrieved set from the contingency table:
 *
 *   utility = a·(rel ret) + b·(nonrel ret) + c·(rel not ret) + d·(nonrel not ret)
 *
 * with nonrel-not-ret = N + rel_ret − ret − R, where N is the collection size (trec_eval -N; we use 0,
 * the trec_eval default). Default coefficients 1,-1,0,0 (name prints as bare `utility`).
 * Cite: trec_eval 9.0.8 m_utility.c.
 */
import type { MeasureDef } from './measure.ts';

/** trec_eval's -N (the collection's size): its default, 0, which fliplab's eval does not let a user change. */
const NUM_DOCS_IN_COLL = 0;

export const utility: MeasureDef = {
  name: 'utility',
  params: 'double-params',
  defaultParams: '1.0,-1.0,0.0,0.0',
  aggregation: 'mean',
  integer: false,
  perQuery: true,
  origin: 'trec_eval',
  description: 'linear utility with coefficients a,b,c,d',
  compute(ctx, p, out, at) {
    const v = p.values;
    if (v.length !== 4) throw new Error(`utility needs 4 coefficients a,b,c,d, got ${v.length}`);
    const { numRet, numRel, numRelRet } = ctx;
    out[at] =
      v[0]! * numRelRet +
      v[1]! * (numRet - numRelRet) +
      v[2]! * (numRel - numRelRet) +
      v[3]! * (NUM_DOCS_IN_COLL + numRelRet - numRet - numRel);
  },
};
