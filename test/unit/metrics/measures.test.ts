import { describe, expect, it } from 'vitest';
import { evaluate, parseMeasures } from '../../../src/core/metrics/index.ts';
import { qrels, run, values } from './helpers.ts';

/*
 * Fixture B (binary). Query q1 judges a, c, d relevant and b non-relevant (R = 3). The run returns, by
 * score: a (rel), x (not judged), c (rel), b (non-rel), y (not judged). Relevant at ranks 1 and 3; d is
 * never retrieved.
 */
const B_QRELS = qrels({ q1: { a: 1, b: 0, c: 1, d: 1 } });
const B_RUN = run({
  q1: [
    ['a', 5],
    ['x', 4],
    ['c', 3],
    ['b', 2],
    ['y', 1],
  ],
});
const b = (measures: string[]) => values(B_QRELS, B_RUN, measures, {}, 'q1');

/*
 * Fixture G (graded 0–3). q1 judges a=3, b=2, c=0, d=1, e=2. The run returns c, a, f (not judged), e.
 * Ideal order of positive grades: 3, 2, 2, 1.
 */
const G_QRELS = qrels({ q1: { a: 3, b: 2, c: 0, d: 1, e: 2 } });
const G_RUN = run({
  q1: [
    ['c', 4],
    ['a', 3],
    ['f', 2],
    ['e', 1],
  ],
});
const g = (measures: string[], level = 1) => values(G_QRELS, G_RUN, measures, { relevanceLevel: level }, 'q1');

describe('binary measures on fixture B', () => {
  it('map: precision at each relevant rank, over R', () => {
    expect(b(['map']).map).toBeCloseTo((1 / 1 + 2 / 3) / 3, 15);
  });
  it('recip_rank: first relevant at rank 1', () => {
    expect(b(['recip_rank']).recip_rank).toBe(1);
  });
  it('P.k: relevant in top k over k, missing ranks count non-relevant', () => {
    const v = b(['P.1,2,3,10']);
    expect(v).toEqual({ P_1: 1 / 1, P_2: 1 / 2, P_3: 2 / 3, P_10: 2 / 10 });
  });
  it('recall.k: relevant in top k over R', () => {
    expect(b(['recall.1,3,5'])).toEqual({ recall_1: 1 / 3, recall_3: 2 / 3, recall_5: 2 / 3 });
  });
  it('success.k: any relevant in top k', () => {
    expect(b(['success.1,5'])).toEqual({ success_1: 1, success_5: 1 });
  });
  it('Rprec: relevant in the top R = 3 over R', () => {
    expect(b(['Rprec']).Rprec).toBeCloseTo(2 / 3, 15);
  });
  it('map_cut.k: AP truncated at k, still over R', () => {
    const v = b(['map_cut.1,2,3']);
    expect(v.map_cut_1).toBeCloseTo(1 / 3, 15);
    expect(v.map_cut_2).toBeCloseTo(1 / 3, 15);
    expect(v.map_cut_3).toBeCloseTo((1 + 2 / 3) / 3, 15);
  });
  it('counts: num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret', () => {
    expect(b(['num_ret', 'num_rel', 'num_rel_ret', 'num_nonrel_judged_ret'])).toEqual({
      num_ret: 5,
      num_rel: 3,
      num_rel_ret: 2,
      num_nonrel_judged_ret: 1,
    });
  });
  it('bpref: relevant docs above any judged non-relevant score 1 each, over R', () => {
    // b (the only judged non-relevant, N = 1) sits below both retrieved relevant docs.
    expect(b(['bpref']).bpref).toBeCloseTo((1 + 1) / 3, 15);
  });
  it('set measures over the whole retrieved set', () => {
    const v = b(['set_P', 'set_recall', 'set_map', 'set_F']);
    expect(v.set_P).toBeCloseTo(2 / 5, 15);
    expect(v.set_recall).toBeCloseTo(2 / 3, 15);
    expect(v.set_map).toBeCloseTo((2 * 2) / (5 * 3), 15);
    expect(v.set_F).toBeCloseTo((2 * (2 / 5) * (2 / 3)) / (2 / 5 + 2 / 3), 15);
  });
  it('recip_rank_cut.k (MRR@k): reciprocal rank only within the top k', () => {
    const late = run({
      q1: [
        ['x', 5],
        ['y', 4],
        ['c', 3],
      ],
    });
    expect(values(B_QRELS, late, ['recip_rank_cut.2,3'], {}, 'q1')).toEqual({ recip_rank_cut_2: 0, recip_rank_cut_3: 1 / 3 });
    expect(values(B_QRELS, late, ['RR@10'], {}, 'q1')).toEqual({ recip_rank_cut_10: 1 / 3 });
  });
  it('iprec_at_recall: max precision at or after each recall level', () => {
    const v = b(['iprec_at_recall.0,0.3,0.5,1']);
    // recall 1/3 reached at rank 1 (P = 1), 2/3 at rank 3 (P = 2/3), 3/3 never.
    expect(v['iprec_at_recall_0.00']).toBe(1);
    expect(v['iprec_at_recall_0.30']).toBe(1); // lround(0.3 · 3) = 1 relevant
    expect(v['iprec_at_recall_0.50']).toBeCloseTo(2 / 3, 15); // lround(1.5) = 2 relevant
    expect(v['iprec_at_recall_1.00']).toBe(0);
  });
});

describe('graded measures on fixture G', () => {
  const idcg = (k: number) => [3, 2, 2, 1].slice(0, k).reduce((s, gain, i) => s + gain / Math.log2(i + 2), 0);

  it('ndcg_cut.k: raw grade as gain, log2(rank + 1) discount, ideal from all judged grades', () => {
    const v = g(['ndcg_cut.1,2,4']);
    // c (0) at rank 1, a (3) at rank 2, f (unjudged) at 3, e (2) at 4
    expect(v.ndcg_cut_1).toBe(0);
    expect(v.ndcg_cut_2).toBeCloseTo(3 / Math.log2(3) / idcg(2), 15);
    expect(v.ndcg_cut_4).toBeCloseTo((3 / Math.log2(3) + 2 / Math.log2(5)) / idcg(4), 15);
  });
  it('ndcg over the whole ranking equals ndcg_cut at a deep cutoff', () => {
    const v = g(['ndcg', 'ndcg_cut.1000']);
    expect(v.ndcg).toBeCloseTo((3 / Math.log2(3) + 2 / Math.log2(5)) / idcg(4), 15);
    expect(v.ndcg).toBe(v.ndcg_cut_1000);
  });
  it('ndcg with level=gain pairs overrides gains (trec_eval ndcg.1=4,2=9)', () => {
    // gains: 0→0, 1→4, 2→9, 3→3 (default); ideal: 9 (b), 9 (e), 4 (d), 3 (a)
    const v = g(['ndcg.1=4,2=9']);
    const ideal = [9, 9, 4, 3].reduce((s, gain, i) => s + gain / Math.log2(i + 2), 0);
    expect(v['ndcg_1=4,2=9']).toBeCloseTo((3 / Math.log2(3) + 9 / Math.log2(5)) / ideal, 15);
  });
  it("ndcg gain levels sort with trec_eval's int-truncating comparator: a 0.5 gain ties with 0", () => {
    // levels pushed as 1→0.5, 2→10, 0→0, 3→3 sort (stably, truncated differences) to 0.5, 0, 3, 10, so
    // the ideal walk stops at the 0 level and never reaches d's 0.5: ideal = 10, 10, 3.
    const v = g(['ndcg.1=0.5,2=10']);
    const ideal = [10, 10, 3].reduce((s, gain, i) => s + gain / Math.log2(i + 2), 0);
    expect(v['ndcg_1=0.5,2=10']).toBeCloseTo((3 / Math.log2(3) + 10 / Math.log2(5)) / ideal, 15);
  });
  it('ncg_cut.k: gains in top k over the ideal gains for k, no discount', () => {
    const v = g(['ncg_cut.2,4,10']);
    expect(v.ncg_cut_2).toBeCloseTo(3 / (3 + 2), 15);
    expect(v.ncg_cut_4).toBeCloseTo((3 + 2) / (3 + 2 + 2 + 1), 15);
    expect(v.ncg_cut_10).toBeCloseTo((3 + 2) / (3 + 2 + 2 + 1), 15);
  });
  it('-l sets the binary threshold; ndcg ignores it', () => {
    // level 1: relevant a, b, d, e (R = 4), retrieved a at 2 and e at 4
    expect(g(['map'], 1).map).toBeCloseTo((1 / 2 + 2 / 4) / 4, 15);
    // level 2: relevant a, b, e (R = 3)
    expect(g(['map'], 2).map).toBeCloseTo((1 / 2 + 2 / 4) / 3, 15);
    // level 3: relevant a only
    expect(g(['map', 'P.2', 'num_rel'], 3)).toEqual({ num_rel: 1, map: 1 / 2, P_2: 1 / 2 });
    expect(g(['ndcg'], 3).ndcg).toBe(g(['ndcg'], 1).ndcg);
  });
  it('relstring shows the top grades, "-" for documents not in the qrels', () => {
    const result = evaluate(G_QRELS, G_RUN, parseMeasures(['relstring.3']));
    expect(result.perQueryText.get('q1' as never)).toEqual({ relstring_3: '03-' });
    expect(result.columns.find((c) => c.name === 'relstring_3')).toMatchObject({ perQuery: true, summary: false, format: 'text' });
  });
});

describe('queries without relevant documents and negative grades', () => {
  // q1 has judgments but none relevant at level 1; q2 marks its only retrieved doc -1 (pooled, unjudged).
  const q = qrels({ q1: { a: 0, b: 0 }, q2: { a: -1, b: 1 } });
  const r = run({
    q1: [
      ['a', 2],
      ['b', 1],
    ],
    q2: [
      ['a', 2],
      ['c', 1],
    ],
  });

  it('a judged query with no relevant document is evaluated: 0 everywhere, never 0/0 (trec_eval guards each division)', () => {
    const v = values(
      q,
      r,
      [
        'map',
        'recip_rank',
        'P.1',
        'recall.1',
        'ndcg',
        'ndcg_cut.1',
        'Rprec',
        'bpref',
        'relative_P.1',
        'set_relative_P',
        'set_F',
        'num_rel',
      ],
      {},
      'q1',
    );
    expect(v).toEqual({
      map: 0,
      recip_rank: 0,
      P_1: 0,
      recall_1: 0,
      ndcg: 0,
      ndcg_cut_1: 0,
      Rprec: 0,
      bpref: 0,
      relative_P_1: 0,
      set_relative_P: 0,
      set_F: 0,
      num_rel: 0,
    });
  });
  it('negative grades are neither relevant nor judged non-relevant and gain nothing', () => {
    const v = values(q, r, ['num_rel', 'num_rel_ret', 'num_nonrel_judged_ret', 'ndcg', 'unj.2', 'bpref'], {}, 'q2');
    expect(v).toEqual({ num_rel: 1, num_rel_ret: 0, num_nonrel_judged_ret: 0, ndcg: 0, unj_2: 2 / 2, bpref: 0 });
  });
});
