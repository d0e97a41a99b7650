/**
 * Table 9's counts against a literal implementation on random data (fast-check), and the control sample:
 * reproducible from (ids, size, seed) alone, a uniform-looking draw, all of the pool when it is small.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerFlipReport, controlSample, mulberry32 } from '../../../src/core/answers/flips.ts';
import { NEVER } from '../../../src/core/flips/cohort.ts';
import type { QueryId } from '../../../src/core/types.ts';

describe('mulberry32 and the control sample', () => {
  it('is deterministic, in [0, 1), and roughly uniform', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01);
    expect(mulberry32(43)()).not.toBe(mulberry32(42)());
  });

  it('depends on the ids, not their order; a seed changes it; a small pool is taken whole', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `q${i}`);
    const s = controlSample(ids, 10, 7);
    expect(controlSample([...ids].reverse(), 10, 7)).toEqual(s);
    expect(new Set(s).size).toBe(10);
    expect(s.every((q) => ids.includes(q))).toBe(true);
    expect(controlSample(ids, 10, 8)).not.toEqual(s);
    expect(new Set(controlSample(ids.slice(0, 4), 10, 7))).toEqual(new Set(ids.slice(0, 4)));
    // A prefix of the same shuffle: a larger sample contains the smaller one.
    expect(controlSample(ids, 20, 7).slice(0, 10)).toEqual(s);
  });

  it('draws every id about equally often over seeds', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `q${i}`);
    const counts = new Map(ids.map((q) => [q, 0]));
    for (let seed = 0; seed < 2000; seed++) for (const q of controlSample(ids, 5, seed)) counts.set(q, counts.get(q)! + 1);
    for (const c of counts.values()) expect(c).toBeGreaterThan(400); // expected 500
  });
});

interface Case {
  n: number;
  k: number;
  seed: number;
  ref: number[];
  cand: number[];
  gold: boolean[];
  refAnswer: (boolean | null)[];
  candAnswer: (boolean | null)[];
}

const caseArb = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    k: fc.integer({ min: 1, max: 12 }),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    ref: fc.array(fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constant(NEVER)), { minLength: n, maxLength: n }),
    cand: fc.array(fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constant(NEVER)), { minLength: n, maxLength: n }),
    gold: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    refAnswer: fc.array(fc.option(fc.boolean()), { minLength: n, maxLength: n }),
    candAnswer: fc.array(fc.option(fc.boolean()), { minLength: n, maxLength: n }),
  }),
);

/** Table 9 as the paper's sentences say it, one query at a time. */
function literal(c: Case) {
  const ids = Array.from({ length: c.n }, (_, i) => `q${String(i).padStart(3, '0')}`);
  const flipSet: string[] = [];
  const both: string[] = [];
  let supported = 0;
  for (let i = 0; i < c.n; i++) {
    if (c.ref[i]! <= c.k) supported++;
    if (!c.gold[i]) continue;
    if (c.ref[i]! <= c.k && c.cand[i]! > c.k) flipSet.push(ids[i]!);
    if (c.ref[i]! <= c.k && c.cand[i]! <= c.k) both.push(ids[i]!);
  }
  const control = controlSample(both, flipSet.length, c.seed);
  const at = (q: string) => ids.indexOf(q);
  const answered = (q: string) => c.refAnswer[at(q)] !== null && c.candAnswer[at(q)] !== null;
  const isRegression = (q: string) => c.refAnswer[at(q)] === true && c.candAnswer[at(q)] === false;
  let regressions = 0;
  let wrongFromRef = 0;
  let flips = 0;
  for (const q of flipSet) {
    if (!answered(q)) continue;
    flips++;
    if (isRegression(q)) regressions++;
    if (c.refAnswer[at(q)] === false) wrongFromRef++;
  }
  let controlRegressions = 0;
  let controlAnswered = 0;
  for (const q of control) {
    if (!answered(q)) continue;
    controlAnswered++;
    if (isRegression(q)) controlRegressions++;
  }
  return { ids, supported, flips, regressions, wrongFromRef, controlAnswered, controlRegressions, flipSet, control };
}

describe('Table 9 against a literal implementation', () => {
  it('counts flips, regressions, controls and the share of reference-supported queries', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const want = literal(c);
        const answers = (xs: (boolean | null)[]) =>
          new Map(want.ids.flatMap((q, i) => (xs[i] === null ? [] : ([[q, xs[i]!]] as [string, boolean][]))));
        const report = answerFlipReport({
          k: c.k,
          seed: c.seed,
          queries: want.ids as QueryId[],
          reference: { name: 'bm25', ranks: Int32Array.from(c.ref), answers: answers(c.refAnswer) },
          candidates: [{ name: 'dense', ranks: Int32Array.from(c.cand), answers: answers(c.candAnswer) }],
          gold: new Set(want.ids.filter((_, i) => c.gold[i])),
        });
        const row = report.candidates[0]!;
        expect(report.referenceSupported).toBe(want.supported);
        expect(row.flipQueries).toEqual(want.flipSet);
        expect(row.controlQueries).toEqual(want.control);
        expect(row.flips).toBe(want.flips);
        expect(row.control).toBe(want.controlAnswered);
        expect(row.regressionsAmongFlips).toMatchObject({ count: want.regressions, of: want.flips });
        expect(row.regressionsInControl).toMatchObject({ count: want.controlRegressions, of: want.controlAnswered });
        expect(row.flipsIncorrectFromReference).toMatchObject({ count: want.wrongFromRef, of: want.flips });
        expect(row.becameIncorrect).toMatchObject({ count: want.regressions, of: want.flips - want.wrongFromRef });
        expect(row.shareOfReferenceSupported).toMatchObject({ count: want.regressions, of: want.supported });
        expect(row.controlShort).toBe(want.control.length < want.flipSet.length);
        if (want.flips > 0) expect(row.regressionsAmongFlips.rate.value).toBeCloseTo(want.regressions / want.flips, 12);
        else expect(row.regressionsAmongFlips.rate.value).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it("reproduces the paper's BGE counts when given its table's numbers (143 flips, 24 regressions, 119 wrong from BM25)", () => {
    // 6,484 BM25-supported queries; 143 negative flips; 119 of them wrong from BM25; all 24 right ones became wrong.
    const n = 6484;
    const ids = Array.from({ length: n }, (_, i) => `q${i}`) as QueryId[];
    const ref = new Int32Array(n).fill(1);
    const cand = Int32Array.from(ids, (_, i) => (i < 143 ? NEVER : 1));
    const refAnswers = new Map(ids.map((q, i) => [q as string, i >= 119]));
    const candAnswers = new Map(ids.map((q, i) => [q as string, i >= 143]));
    const report = answerFlipReport({
      k: 10,
      seed: 1,
      queries: ids,
      reference: { name: 'bm25', ranks: ref, answers: refAnswers },
      candidates: [{ name: 'bge', ranks: cand, answers: candAnswers }],
      gold: new Set(ids),
    });
    const row = report.candidates[0]!;
    expect(row.regressionsAmongFlips.count).toBe(24);
    expect((100 * row.regressionsAmongFlips.rate.value!).toFixed(1)).toBe('16.8');
    expect((100 * row.flipsIncorrectFromReference.rate.value!).toFixed(1)).toBe('83.2');
    expect(row.becameIncorrect).toMatchObject({ count: 24, of: 24 });
    expect((100 * row.shareOfReferenceSupported.rate.value!).toFixed(2)).toBe('0.37');
  });
});
