import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { kthLargest, kthLargestBounded, kthLargestGathered, selectTopK, TopKHeap } from '../../../src/core/retrieve/topk.ts';

/** The oracle: sort every (index, score) by score descending, then index ascending; drop NaN. */
function sortOracle(scores: ArrayLike<number>, k: number, candidates?: readonly number[]): { indices: number[]; scores: number[] } {
  const idx = candidates ? [...candidates] : Array.from({ length: scores.length }, (_, i) => i);
  const kept = idx.filter((i) => !Number.isNaN(scores[i]!));
  kept.sort((a, b) => scores[b]! - scores[a]! || a - b);
  const top = kept.slice(0, k);
  return { indices: top, scores: top.map((i) => scores[i]!) };
}

// Few distinct values so that ties are common.
const score = fc.oneof(fc.constantFrom(0, 1, 1.5, 2, -1, Infinity, -Infinity), fc.double({ noNaN: true, min: -5, max: 5 }));

describe('selectTopK', () => {
  it('equals a full sort (score desc, index asc) on all indices, Float64Array and Float32Array', () => {
    fc.assert(
      fc.property(fc.array(score, { maxLength: 200 }), fc.integer({ min: 0, max: 250 }), (values, k) => {
        for (const arr of [Float64Array.from(values), Float32Array.from(values)]) {
          const got = selectTopK(arr, k);
          const want = sortOracle(arr, k);
          expect(Array.from(got.indices)).toEqual(want.indices);
          expect(Array.from(got.scores)).toEqual(want.scores);
          expect(got.scores).toBeInstanceOf(arr.constructor);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('restricted to candidates (any order), with a reused heap', () => {
    const heap = new TopKHeap(64);
    fc.assert(
      fc.property(
        fc
          .array(score, { minLength: 1, maxLength: 150 })
          .chain((values) =>
            fc.tuple(
              fc.constant(values),
              fc.shuffledSubarray(Array.from({ length: values.length }, (_, i) => i)),
              fc.integer({ min: 0, max: 64 }),
            ),
          ),
        ([values, cands, k]) => {
          const arr = Float64Array.from(values);
          const got = selectTopK(arr, k, Uint32Array.from(cands), cands.length, heap);
          const want = sortOracle(arr, k, cands);
          expect(Array.from(got.indices)).toEqual(want.indices);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('breaks ties by the lower index', () => {
    const got = selectTopK(Float64Array.from([1, 3, 3, 2, 3, 3]), 3);
    expect(Array.from(got.indices)).toEqual([1, 2, 4]);
  });

  it('skips NaN', () => {
    const got = selectTopK(Float64Array.from([NaN, 1, NaN, 0]), 5);
    expect(Array.from(got.indices)).toEqual([1, 3]);
  });

  it('returns fewer than k when there are fewer candidates', () => {
    expect(selectTopK(Float32Array.from([0.5, 0.25]), 10).indices).toHaveLength(2);
    expect(selectTopK(Float32Array.from([]), 10).indices).toHaveLength(0);
  });

  it('rejects a negative or fractional k', () => {
    expect(() => selectTopK(Float64Array.from([1]), -1)).toThrow(RangeError);
    expect(() => selectTopK(Float64Array.from([1]), 1.5)).toThrow(RangeError);
  });
});

describe('kthLargest / kthLargestGathered', () => {
  it('equal the k-th element of a descending sort', () => {
    const nonNeg = fc.oneof(fc.constantFrom(0, 1, 2, 2.5), fc.double({ noNaN: true, min: 0, max: 100 }));
    fc.assert(
      fc.property(fc.array(nonNeg, { minLength: 1, maxLength: 300 }), fc.nat(), (values, kSeed) => {
        const k = 1 + (kSeed % values.length);
        const sorted = [...values].sort((a, b) => b - a);
        expect(kthLargest(Float64Array.from(values), values.length, k)).toBe(sorted[k - 1]);
        const list = Uint32Array.from(values.keys());
        const max = Math.max(...values);
        const work = new Float64Array(values.length);
        expect(kthLargestGathered(Float64Array.from(values), list, values.length, k, max, work)).toBe(sorted[k - 1]);
        const kept = Float64Array.from(values);
        expect(kthLargestBounded(kept, values.length, k, max, work)).toBe(sorted[k - 1]);
        expect(Array.from(kept)).toEqual(values); // left untouched
      }),
      { numRuns: 400 },
    );
  });

  it('kthLargestBounded reads only the first n values', () => {
    const values = Float64Array.from([5, 1, 4, 2, 3, 99, 98]);
    expect(kthLargestBounded(values, 5, 2, 99, new Float64Array(7))).toBe(4);
    expect(kthLargestBounded(Float64Array.from(Array.from({ length: 400 }, (_, i) => i % 37)), 400, 3, 36, new Float64Array(400))).toBe(36);
    expect(() => kthLargestBounded(values, 5, 6, 99, new Float64Array(7))).toThrow(RangeError);
  });

  it('rejects k outside [1, n]', () => {
    expect(() => kthLargest(Float64Array.from([1, 2]), 2, 0)).toThrow(RangeError);
    expect(() => kthLargest(Float64Array.from([1, 2]), 2, 3)).toThrow(RangeError);
  });
});
