import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agreementProfile, compareRuns, formatAgreement, RBO_P } from '../../../src/core/agreement/index.ts';
import type { DocId, QueryId, RankedList, Run } from '../../../src/core/types.ts';

// Oracles written from the definitions: literal top-k slices and set intersections.
const topK = (xs: readonly string[], k: number) => new Set(xs.slice(0, k));
const inter = (a: Set<string>, b: Set<string>) => [...a].filter((x) => b.has(x)).length;
const naiveOverlap = (a: readonly string[], b: readonly string[], k: number) => inter(topK(a, k), topK(b, k)) / k;
function naiveRbo(a: readonly string[], b: readonly string[], k: number, p: number): number {
  let sum = 0;
  for (let d = 1; d <= k; d++) sum += Math.pow(p, d - 1) * (inter(topK(a, d), topK(b, d)) / d);
  return (1 - p) * sum;
}

/** A ranking: distinct ids from a small alphabet, so lists share documents often. */
const ranking = fc.uniqueArray(
  fc.integer({ min: 0, max: 25 }).map((i) => `d${i}`),
  { maxLength: 20 },
);
const depthList = fc.uniqueArray(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 5 }).map((ks) => ks.sort((x, y) => x - y));

describe('overlap@k and RBO@k of one query', () => {
  it('equal the literal definitions at every depth', () => {
    fc.assert(
      fc.property(ranking, ranking, depthList, fc.double({ min: 0.05, max: 0.99, noNaN: true }), (a, b, ks, p) => {
        const prof = agreementProfile(a, b, ks, p);
        ks.forEach((k, i) => {
          expect(prof.overlap[i]).toBeCloseTo(naiveOverlap(a, b, k), 12);
          expect(prof.rbo[i]).toBeCloseTo(naiveRbo(a, b, k, p), 12);
        });
      }),
    );
  });

  it('are symmetric and within range', () => {
    fc.assert(
      fc.property(ranking, ranking, depthList, (a, b, ks) => {
        const ab = agreementProfile(a, b, ks);
        const ba = agreementProfile(b, a, ks);
        ks.forEach((k, i) => {
          expect(ab.overlap[i]).toBe(ba.overlap[i]);
          expect(ab.rbo[i]).toBeCloseTo(ba.rbo[i]!, 14);
          expect(ab.overlap[i]).toBeGreaterThanOrEqual(0);
          expect(ab.overlap[i]).toBeLessThanOrEqual(1);
          expect(ab.rbo[i]).toBeGreaterThanOrEqual(0);
          expect(ab.rbo[i]).toBeLessThanOrEqual(1 - RBO_P ** k + 1e-12);
        });
      }),
    );
  });

  it('identical rankings of at least k documents: overlap 1, RBO 1 − p^k', () => {
    fc.assert(
      fc.property(ranking, depthList, (a, ks) => {
        const prof = agreementProfile(a, [...a], ks);
        ks.forEach((k, i) => {
          if (a.length >= k) {
            expect(prof.overlap[i]).toBe(1);
            expect(prof.rbo[i]).toBeCloseTo(1 - Math.pow(RBO_P, k), 12);
          } else expect(prof.overlap[i]).toBeCloseTo(a.length / k, 14);
        });
      }),
    );
  });

  it('the same documents in another order: overlap 1 at the full depth, RBO below the maximum', () => {
    const prof = agreementProfile(['a', 'b', 'c', 'd'], ['d', 'c', 'b', 'a'], [2, 4]);
    expect([...prof.overlap]).toEqual([0, 1]);
    // d=1: 0; d=2: 0; d=3: {b,c}=2/3; d=4: 1.  RBO@4 = 0.1·(0.81·2/3 + 0.729·1)
    expect(prof.rbo[1]).toBeCloseTo(0.1 * (0.81 * (2 / 3) + 0.729), 14);
  });
});

function makeRun(name: string, lists: Record<string, string[]>): Run {
  const byQuery = new Map<QueryId, RankedList>();
  for (const [q, docs] of Object.entries(lists))
    byQuery.set(q as QueryId, { docs: docs as DocId[], scores: Float64Array.from(docs, (_, i) => -i) });
  return { name, byQuery };
}

describe('compareRuns', () => {
  const ref = makeRun('bm25', { q1: ['a', 'b', 'c'], q2: ['d', 'e', 'f'], q3: ['g', 'h', 'i'] });
  const cand = makeRun('dense', { q1: ['a', 'b', 'c'], q2: ['e', 'x', 'd'], q4: ['z'] });
  const r = compareRuns(ref, [cand], [3, 1], { perQuery: true });

  it('averages over every query either run ranks; a query missing from one run scores 0', () => {
    expect(r.queries).toBe(4);
    expect(r.depth_list).toEqual([1, 3]);
    expect(r.runs).toEqual([
      { name: 'bm25', role: 'reference', missing_queries: 1 },
      { name: 'dense', role: 'candidate', missing_queries: 1 },
    ]);
    const per = {
      q1: naiveOverlap(['a', 'b', 'c'], ['a', 'b', 'c'], 3),
      q2: naiveOverlap(['d', 'e', 'f'], ['e', 'x', 'd'], 3),
      q3: 0,
      q4: 0,
    };
    const d3 = r.depths[1]!;
    expect(d3.candidates[0]!.overlap.mean).toBeCloseTo((per.q1 + per.q2) / 4, 14);
    expect(d3.candidates[0]!.full_overlap).toBe(1);
    expect(r.per_query!.map((q) => q.qid)).toEqual(['q1', 'q2', 'q3', 'q4']);
    expect(r.per_query![2]!.candidates[0]!.overlap).toEqual([0, 0]);
    expect(r.per_query![1]!.candidates[0]!.rbo[1]).toBeCloseTo(naiveRbo(['d', 'e', 'f'], ['e', 'x', 'd'], 3, 0.9), 14);
    expect(d3.rbo_max).toBeCloseTo(1 - 0.9 ** 3, 15);
  });

  it('95% interval: mean ± t(0.975, n − 1)·s/√n, clipped to the range', () => {
    // n = 4, df = 3: t = 3.1824463052837078 (scipy.stats.t.ppf(0.975, 3)).
    const values = r.per_query!.map((q) => q.candidates[0]!.rbo[1]!);
    const mean = values.reduce((a, b) => a + b, 0) / 4;
    const s = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / 3);
    const half = (3.1824463052837078 * s) / 2;
    const got = r.depths[1]!.candidates[0]!.rbo;
    expect(got.mean).toBeCloseTo(mean, 14);
    expect(got.hi).toBeCloseTo(Math.min(1 - 0.9 ** 3, mean + half), 9);
    expect(got.lo).toBeCloseTo(Math.max(0, mean - half), 9);
  });

  it('one query: a mean without an interval', () => {
    const one = compareRuns(makeRun('a', { q: ['x', 'y'] }), [makeRun('b', { q: ['y', 'x'] })], [2]);
    expect(one.depths[0]!.candidates[0]!.overlap).toEqual({ mean: 1, lo: null, hi: null });
  });

  it('rejects no candidates, bad depths and bad p', () => {
    expect(() => compareRuns(ref, [], [1])).toThrow(/at least one candidate/);
    expect(() => compareRuns(ref, [cand], [0])).toThrow(/positive integers/);
    expect(() => compareRuns(ref, [cand], [1], { p: 1 })).toThrow(/persistence/);
  });

  it('prints a table per depth and notes missing queries', () => {
    const text = formatAgreement(r);
    expect(text).toMatch(/note: run "bm25" has no ranking for 1 of these queries/);
    expect(text).toMatch(/k = 3: RBO@3 of identical rankings = 0\.271/);
    const m = r.depths[1]!.candidates[0]!.overlap;
    expect(text).toContain(`${m.mean!.toFixed(3)} [${m.lo!.toFixed(3)}, ${m.hi!.toFixed(3)}]`);
  });
});
