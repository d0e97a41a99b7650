import { describe, expect, it } from 'vitest';
import { evaluate, formatTrecEval, parseMeasures } from '../../../src/core/metrics/index.ts';
import { qrels, run } from './helpers.ts';

/*
 * Three judged queries; the run answers q1 and q2 plus qX, which has no judgments.
 *   q1: a relevant, retrieved at rank 1        → AP 1
 *   q2: b relevant (grade 2), retrieved at 2    → AP 1/2
 *   q3: c, d relevant, not in the run          → only counted with -c
 */
const Q = qrels({ q1: { a: 1 }, q2: { b: 2, z: 0 }, q3: { c: 1, d: 3, e: 0 } });
const R = run({
  q1: [
    ['a', 2],
    ['x', 1],
  ],
  q2: [
    ['y', 2],
    ['b', 1],
  ],
  qX: [['a', 1]],
});
const MEASURES = parseMeasures(['num_q', 'num_ret', 'num_rel', 'map', 'gm_map']);

describe('which queries are averaged', () => {
  it('without -c: queries in both run and qrels; run-only queries are ignored', () => {
    const r = evaluate(Q, R, MEASURES);
    expect(r.queries).toEqual(['q1', 'q2']);
    expect(r.aggregate).toMatchObject({ num_q: 2, num_ret: 4, num_rel: 2 });
    expect(r.aggregate.map).toBeCloseTo((1 + 1 / 2) / 2, 15);
    expect(r.aggregate.gm_map).toBeCloseTo(Math.exp((Math.log(1) + Math.log(1 / 2)) / 2), 15);
  });

  it('with -c (9.0.8): every qrels query; missing ones score 0, print no per-query lines, count ln(0.00001) in gm_map', () => {
    const r = evaluate(Q, R, parseMeasures(['official', 'num_rel'], '9.0.8'), { complete: true, version: '9.0.8' });
    expect(r.queries).toEqual(['q1', 'q2']);
    expect(r.missing.size).toBe(0);
    expect(r.perQuery.has('q3' as never)).toBe(false);
    expect(r.aggregate.num_q).toBe(3);
    expect(r.aggregate.map).toBeCloseTo((1 + 1 / 2 + 0) / 3, 15);
    expect(r.aggregate.gm_map).toBeCloseTo(Math.exp((Math.log(1) + Math.log(1 / 2) + Math.log(0.00001)) / 3), 15);
    // trec_eval's -c summary of num_rel counts grade > 0 in every qrels query: a, b, c, d
    expect(r.aggregate.num_rel).toBe(4);
    expect(formatTrecEval(r, { perQuery: true })).not.toMatch(/\tq3\t/);
  });

  it('with -c (10.0): missing queries are printed, evaluated on a one-document placeholder, and average the same', () => {
    const r = evaluate(Q, R, parseMeasures(['official', 'num_rel', 'relstring', 'unj.5', 'utility']), { complete: true });
    expect(r.queries).toEqual(['q1', 'q2', 'q3']);
    expect([...r.missing]).toEqual(['q3']);
    const q3 = r.perQuery.get('q3' as never)!;
    // the placeholder's one document is cleared from num_ret, unj and utility; num_rel is the real count
    expect(q3).toMatchObject({ num_ret: 0, num_rel_ret: 0, map: 0, P_5: 0, unj_5: 0, utility: 0 });
    expect(q3.num_rel).toBe(2); // c and d
    expect(r.perQueryText.get('q3' as never)).toEqual({ relstring: '' });
    expect(formatTrecEval(r, { perQuery: true })).toMatch(/^relstring {13}\tq3\t''$/m);
    const old = evaluate(Q, R, parseMeasures(['official', 'num_rel']), { complete: true, version: '9.0.8' });
    expect(r.aggregate.map).toBe(old.aggregate.map);
    expect(r.aggregate.gm_map).toBeCloseTo(old.aggregate.gm_map!, 15);
    expect(r.aggregate.num_q).toBe(3);
  });

  it('-c counts grade > 0 for num_rel whatever -l says (trec_eval te_calc_avg_num_rel)', () => {
    expect(evaluate(Q, R, MEASURES, { complete: true, relevanceLevel: 2 }).aggregate.num_rel).toBe(4);
    expect(evaluate(Q, R, MEASURES, { relevanceLevel: 2 }).aggregate.num_rel).toBe(0 + 1);
  });

  it('orders queries by strcmp of their ids, as trec_eval sorts its input', () => {
    const q = qrels({ '10': { a: 1 }, '9': { a: 1 }, '100': { a: 1 } });
    const r = run({ '9': [['a', 1]], '100': [['a', 1]], '10': [['a', 1]] });
    expect(evaluate(q, r, parseMeasures(['map'])).queries).toEqual(['10', '100', '9']);
  });

  it('throws when no run query has judgments, as trec_eval does', () => {
    expect(() => evaluate(Q, run({ qY: [['a', 1]] }), MEASURES)).toThrow(/no queries with both results and relevance info/);
  });

  it('keeps per-query values as a matrix and as qid → name → value, and serialises to plain JSON', () => {
    const r = evaluate(Q, R, parseMeasures(['map', 'P.1']));
    expect(r.valueNames).toEqual(['map', 'P_1']);
    expect(Array.from(r.values)).toEqual([1, 1, 1 / 2, 0]);
    expect(r.perQuery.get('q2' as never)).toEqual({ map: 1 / 2, P_1: 0 });
    const json = JSON.parse(JSON.stringify(r));
    expect(json.queries).toEqual([
      { qid: 'q1', values: { map: 1, P_1: 1 } },
      { qid: 'q2', values: { map: 0.5, P_1: 0 } },
    ]);
    expect(json.all).toEqual({ map: 0.75, P_1: 0.5 });
    const cloned = structuredClone(r);
    expect(cloned.perQuery.get('q1' as never)).toEqual({ map: 1, P_1: 1 });
  });
});
