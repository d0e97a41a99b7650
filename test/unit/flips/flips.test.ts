import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  alternate,
  analyzeFlips,
  prepareFlips,
  rankBins,
  reciprocalRankFusion,
  reportFromPrepared,
  type FlipReport,
} from '../../../src/core/flips/index.ts';
import type { DocId, Qrels, QueryId, RankedList, Run } from '../../../src/core/types.ts';
import { listOf, naiveAlternation, naiveRrf, positivesOf, supported, type Label } from './oracle.ts';

const D = (s: string) => s as DocId;
const Q = (s: string) => s as QueryId;

function makeRun(name: string, lists: Record<string, string[]>): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [q, docs] of Object.entries(lists)) {
    byQuery.set(Q(q), { docs: docs.map(D), scores: Float64Array.from(docs, (_, i) => docs.length - i) });
  }
  return { name, byQuery };
}

function makeQrels(judged: Record<string, Record<string, number>>): Qrels {
  const byQuery = new Map<QueryId, Map<DocId, number>>();
  for (const [q, docs] of Object.entries(judged)) byQuery.set(Q(q), new Map(Object.entries(docs).map(([d, g]) => [D(d), g])));
  return { byQuery };
}

describe('the published FiQA anchor (n = 648, k = 10)', () => {
  // 648 queries, one positive "rel" each. BM25 ranks it at 3 for 306 queries, else not at all.
  // BGE keeps it for 278 of those (28 broken: pushed to rank 11) and finds it at rank 1 for 184 of the 342 failures.
  const refLists: Record<string, string[]> = {};
  const bgeLists: Record<string, string[]> = {};
  const judged: Record<string, Record<string, number>> = {};
  const filler = (q: number, n: number) => Array.from({ length: n }, (_, i) => `q${q}-x${i}`);
  for (let q = 0; q < 648; q++) {
    judged[`q${q}`] = { rel: 1, [`q${q}-x0`]: 0 };
    const refSupports = q < 306;
    refLists[`q${q}`] = refSupports ? [...filler(q, 2), 'rel', ...filler(q, 47).slice(2)] : filler(q, 50);
    const broken = q < 28;
    const fixed = q >= 306 && q < 306 + 184;
    bgeLists[`q${q}`] = (refSupports && !broken) || fixed ? ['rel', ...filler(q, 49)] : broken ? [...filler(q, 10), 'rel'] : filler(q, 50);
  }
  const report = analyzeFlips(makeQrels(judged), makeRun('bm25', refLists), [makeRun('bge', bgeLists)]);
  const k10 = report.depths.find((d) => d.k === 10)!;
  const bge = k10.candidates[0]!;

  it('counts 306 supported, 28 broken, 184 fixed', () => {
    expect(report.queries).toBe(648);
    expect(k10.reference.supported).toBe(306);
    expect([bge.preserved, bge.broken, bge.fixed, bge.unchanged]).toEqual([278, 28, 184, 648 - 278 - 28 - 184]);
  });

  it('gives negative-flip rate 28/306 = 9.15% and net gain +156', () => {
    expect(bge.negative_flip_rate.value).toBeCloseTo(28 / 306, 12);
    expect((100 * bge.negative_flip_rate.value!).toFixed(2)).toBe('9.15');
    expect(bge.net_gain.value).toBe(156);
    expect(bge.fix_rate.value).toBeCloseTo(184 / 342, 12);
    expect(bge.compatibility.value).toBeCloseTo(278 / 306, 12);
  });

  it('puts every broken query in the 2–5 stratum (BM25 found them at rank 3)', () => {
    const rows = report.strata.filter((s) => s.k === 10);
    expect(rows.map((r) => [r.ranks, r.reference_supported, r.broken])).toEqual([
      ['1', 0, 0],
      ['2-5', 306, 28],
      ['6-10', 0, 0],
    ]);
    expect(rows[0]!.negative_flip_rate.value).toBeNull();
  });

  it('at k = 1 nobody is supported by BM25, so the negative-flip rate is undefined, not 0', () => {
    const k1 = report.depths.find((d) => d.k === 1)!;
    expect(k1.reference.supported).toBe(0);
    expect(k1.candidates[0]!.negative_flip_rate).toEqual({ value: null, lo: null, hi: null });
    expect(k1.candidates[0]!.fix_rate.value).toBeCloseTo((278 + 184) / 648, 12);
  });
});

describe('hybrids', () => {
  it('alternation starts with the candidate, skips duplicates and continues when one list runs out', () => {
    expect(alternate([D('a'), D('b'), D('c'), D('d')], [D('b'), D('x')], 10)).toEqual(['a', 'b', 'x', 'c', 'd']);
    expect(alternate([D('a')], [D('b')], 1)).toEqual(['a']);
  });

  it('RRF sums 1/(60 + rank) and breaks exact ties towards the candidate', () => {
    // b: 1/62 + 1/61 beats a (1/61) and x (1/62); a (cand rank 1) ties nothing; c (cand rank 3) ties y (ref rank 3).
    expect(reciprocalRankFusion([D('a'), D('b'), D('c')], [D('x'), D('b'), D('y')], 10)).toEqual(['b', 'a', 'x', 'c', 'y']);
  });

  it('rank bins follow the depths: the paper bins for the default depths', () => {
    expect(rankBins([1, 5, 10, 20, 50]).map((b) => b.label)).toEqual(['1', '2-5', '6-10', '11-20', '21-50']);
    expect(rankBins([10, 3, 3]).map((b) => b.label)).toEqual(['1-3', '4-10']);
  });
});

// ---- property tests against the naive oracle ----------------------------------------------------

const docPool = Array.from({ length: 8 }, (_, i) => `d${i}`);
const arbList = fc.shuffledSubarray(docPool, { minLength: 0, maxLength: 8 });
const arbCase = fc.record({
  queries: fc.array(
    fc.record({
      judged: fc.dictionary(fc.constantFrom(...docPool), fc.integer({ min: -1, max: 2 }), { minKeys: 1, maxKeys: 5 }),
      ref: fc.option(arbList, { nil: undefined }),
      a: fc.option(arbList, { nil: undefined }),
      b: fc.option(arbList, { nil: undefined }),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  depths: fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }),
  label: fc.constantFrom<Label>('any', 'strict'),
  level: fc.constantFrom(1, 2),
});

/**
 * Every number of `report` that the naive oracle can compute, computed here from the runs themselves:
 * transitions, rates, hybrids, paired counts and strata (for candidates a and b against ref).
 */
function expectOracle(
  report: FlipReport,
  c: { qrels: Qrels; ref: Run; a: Run; b: Run; depths: number[]; label: Label; level: number },
): void {
  const { ref, a, b, depths, label } = c;
  const pos = positivesOf(c.qrels, c.level);

  expect(report.queries).toBe(pos.size);
  const sortedDepths = [...depths].sort((x, y) => x - y);
  expect(report.depth_list).toEqual(sortedDepths);

  for (const block of report.depths) {
    const k = block.k;
    const B = (q: QueryId) => supported(listOf(ref, q).slice(0, k), pos.get(q)!, label);
    expect(block.reference.supported).toBe([...pos.keys()].filter(B).length);
    [a, b].forEach((cand, ci) => {
      const row = block.candidates[ci]!;
      const Dq = (q: QueryId) => supported(listOf(cand, q).slice(0, k), pos.get(q)!, label);
      const qs = [...pos.keys()];
      const counts = {
        preserved: qs.filter((q) => B(q) && Dq(q)).length,
        broken: qs.filter((q) => B(q) && !Dq(q)).length,
        fixed: qs.filter((q) => !B(q) && Dq(q)).length,
        unchanged: qs.filter((q) => !B(q) && !Dq(q)).length,
      };
      expect({ preserved: row.preserved, broken: row.broken, fixed: row.fixed, unchanged: row.unchanged }).toEqual(counts);
      expect(row.net_gain.value).toBe(counts.fixed - counts.broken);
      const nB = counts.preserved + counts.broken;
      expect(row.negative_flip_rate.value).toBe(nB === 0 ? null : counts.broken / nB);

      const hybrid = (method: string, pick: (q: QueryId) => DocId[]) => {
        const h = report.hybrids.find((x) => x.k === k && x.candidate === cand.name && x.method === method)!;
        const H = (q: QueryId) => supported(pick(q), pos.get(q)!, label);
        expect([h.broken, h.fixed]).toEqual([qs.filter((q) => B(q) && !H(q)).length, qs.filter((q) => !B(q) && H(q)).length]);
        return h;
      };
      hybrid('alternation', (q) => naiveAlternation(listOf(cand, q), listOf(ref, q), k));
      hybrid('rrf', (q) => naiveRrf(listOf(cand, q), listOf(ref, q), k));
      const union = hybrid('union', (q) => [...new Set([...listOf(ref, q).slice(0, k), ...listOf(cand, q).slice(0, k)])]);
      expect(union.broken).toBe(0); // the union keeps every reference top-k passage
      const sizes = qs.map((q) => new Set([...listOf(ref, q).slice(0, k), ...listOf(cand, q).slice(0, k)]).size);
      expect(union.mean_size).toBeCloseTo(sizes.reduce((x, y) => x + y, 0) / qs.length, 12);
    });

    // paired: on reference-supported queries, broken by one candidate only
    const pair = report.paired.find((p) => p.k === k)!;
    const brokenBy = (cand: Run, q: QueryId) => !supported(listOf(cand, q).slice(0, k), pos.get(q)!, label);
    const cohort = [...pos.keys()].filter(B);
    expect([pair.only_a, pair.only_b]).toEqual([
      cohort.filter((q) => brokenBy(a, q) && !brokenBy(b, q)).length,
      cohort.filter((q) => brokenBy(b, q) && !brokenBy(a, q)).length,
    ]);
  }

  // strata: the rank at which the reference first supports a query (any: first positive; strict: last one)
  const supportRank = (q: QueryId) => {
    const list = listOf(ref, q);
    for (let r = 1; r <= list.length; r++) if (supported(list.slice(0, r), pos.get(q)!, label)) return r;
    return Infinity;
  };
  for (const s of report.strata) {
    const inBin = [...pos.keys()].filter((q) => supportRank(q) >= s.from && supportRank(q) <= s.to && supportRank(q) <= s.k);
    const cand = s.candidate === 'a' ? a : b;
    expect(s.reference_supported).toBe(inBin.length);
    expect(s.broken).toBe(inBin.filter((q) => !supported(listOf(cand, q).slice(0, s.k), pos.get(q)!, label)).length);
  }
}

describe('analyzeFlips equals the naive oracle', () => {
  it('on transitions, hybrids, strata and paired counts', () => {
    fc.assert(
      fc.property(arbCase, ({ queries, depths, label, level }) => {
        const lists = (key: 'ref' | 'a' | 'b') =>
          Object.fromEntries(queries.flatMap((q, i) => (q[key] === undefined ? [] : [[`q${i}`, q[key]!]])));
        const qrels = makeQrels(Object.fromEntries(queries.map((q, i) => [`q${i}`, q.judged])));
        const ref = makeRun('ref', lists('ref'));
        const a = makeRun('a', lists('a'));
        const b = makeRun('b', lists('b'));
        const pos = positivesOf(qrels, level);
        if (pos.size === 0) {
          expect(() => analyzeFlips(qrels, ref, [a, b], { depths, label, relevanceLevel: level })).toThrow(
            /no query has a positive judgment/,
          );
          return;
        }
        expectOracle(analyzeFlips(qrels, ref, [a, b], { depths, label, relevanceLevel: level }), {
          qrels,
          ref,
          a,
          b,
          depths,
          label,
          level,
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('input checks', () => {
  it('rejects an empty candidate list and non-positive depths', () => {
    const qrels = makeQrels({ q: { d: 1 } });
    const run = makeRun('r', { q: ['d'] });
    expect(() => analyzeFlips(qrels, run, [])).toThrow(/at least one candidate/);
    expect(() => analyzeFlips(qrels, run, [run], { depths: [0, 5] })).toThrow(/positive integers/);
  });

  it('reports queries a run has no ranking for', () => {
    const qrels = makeQrels({ q1: { d: 1 }, q2: { d: 1 } });
    const report = analyzeFlips(qrels, makeRun('r', { q1: ['d'] }), [makeRun('c', { q1: ['d'], q2: ['d'] })]);
    expect(report.runs.map((r) => r.missing_queries)).toEqual([1, 0]);
    expect(report.depths[0]!.candidates[0]!.fixed).toBe(1);
  });

  it('returns per-query states on request, in qrels order', () => {
    const qrels = makeQrels({ q1: { d: 1 }, q2: { e: 1 } });
    const report = analyzeFlips(qrels, makeRun('r', { q1: ['d'], q2: ['x', 'e'] }), [makeRun('c', { q1: ['x', 'd'], q2: ['e'] })], {
      depths: [1, 2],
      perQuery: true,
    });
    // Unjudged at k = 1, 2: q1's reference [d] has none, its candidate [x, d] one from k = 1; q2's reference [x, e]
    // one from k = 1, its candidate [e] none.
    expect(report.per_query).toEqual([
      {
        qid: 'q1',
        reference_rank: 1,
        reference_unjudged: [0, 0],
        candidates: [{ name: 'c', rank: 2, states: ['broken', 'preserved'], unjudged: [1, 1] }],
      },
      {
        qid: 'q2',
        reference_rank: 2,
        reference_unjudged: [1, 1],
        candidates: [{ name: 'c', rank: 1, states: ['fixed', 'preserved'], unjudged: [0, 0] }],
      },
    ]);
  });
});

describe('prepared analysis', () => {
  it('re-slicing prepared ranks at other depths and labels equals the naive oracle', () => {
    fc.assert(
      fc.property(arbCase, fc.constantFrom<Label>('any', 'strict'), ({ queries, depths }, label) => {
        const lists = (key: 'ref' | 'a' | 'b') =>
          Object.fromEntries(queries.flatMap((q, i) => (q[key] === undefined ? [] : [[`q${i}`, q[key]!]])));
        const qrels = makeQrels(Object.fromEntries(queries.map((q, i) => [`q${i}`, q.judged])));
        if (positivesOf(qrels, 1).size === 0) return;
        const runs = [makeRun('ref', lists('ref')), makeRun('a', lists('a')), makeRun('b', lists('b'))] as const;
        // Prepared once, deeper than any depth asked; each re-slice is checked against the runs themselves.
        const prepared = prepareFlips(qrels, runs[0], [runs[1], runs[2]], { maxDepth: 9 });
        expectOracle(reportFromPrepared(prepared, { depths, label }), {
          qrels,
          ref: runs[0],
          a: runs[1],
          b: runs[2],
          depths,
          label,
          level: 1,
        });
      }),
      { numRuns: 200 },
    );
  });

  it('refuses depths beyond what was prepared', () => {
    const prepared = prepareFlips(makeQrels({ q: { d: 1 } }), makeRun('r', { q: ['d'] }), [makeRun('c', { q: ['d'] })], { maxDepth: 5 });
    expect(() => reportFromPrepared(prepared, { depths: [10] })).toThrow(/exceeds the prepared maximum 5/);
  });
});
