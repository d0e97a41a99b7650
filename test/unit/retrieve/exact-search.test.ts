/**
 * Dense and sparse exact search against brute force: score every document literally, sort by
 * (score desc, index asc), take k.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denseMatrix, denseTopK } from '../../../src/core/retrieve/dense.ts';
import { buildSparseIndex, sparseSearch } from '../../../src/core/retrieve/sparse.ts';

function bruteForce(scores: number[], k: number, eligible: (i: number) => boolean = () => true): number[] {
  return scores
    .map((s, i) => ({ s, i }))
    .filter(({ i }) => eligible(i))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, k)
    .map((x) => x.i);
}

// Small integers keep every dot product exact, so ties are real ties and must go to the lower index.
const arbVec = (dim: number) =>
  fc.array(fc.integer({ min: -3, max: 3 }), { minLength: dim, maxLength: dim }).map((a) => Float32Array.from(a));

describe('dense exact top-k', () => {
  it('equals brute force for any shapes, k and ties', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }).chain((dim) =>
          fc.record({
            docs: fc.array(arbVec(dim), { minLength: 1, maxLength: 30 }),
            queries: fc.array(arbVec(dim), { minLength: 1, maxLength: 9 }),
            k: fc.integer({ min: 1, max: 35 }),
          }),
        ),
        ({ docs, queries, k }) => {
          const got = denseTopK(denseMatrix(docs), denseMatrix(queries), k);
          expect(got).toHaveLength(queries.length);
          queries.forEach((q, qi) => {
            const scores = docs.map((d) => d.reduce((s, x, j) => s + x * q[j]!, 0));
            expect(Array.from(got[qi]!.indices)).toEqual(bruteForce(scores, k));
            expect(Array.from(got[qi]!.scores)).toEqual(bruteForce(scores, k).map((i) => scores[i]));
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects mismatched dimensions and k < 1, and can be aborted', () => {
    const docs = denseMatrix([Float32Array.of(1, 0)]);
    expect(() => denseTopK(docs, denseMatrix([Float32Array.of(1, 0, 0)]), 1)).toThrow(/dimension 3 differs from document dimension 2/);
    expect(() => denseTopK(docs, docs, 0)).toThrow(RangeError);
    const controller = new AbortController();
    controller.abort();
    expect(() => denseTopK(docs, docs, 1, { signal: controller.signal })).toThrow();
  });
});

const arbSparse = (vocab: number) =>
  fc.uniqueArray(fc.integer({ min: 0, max: vocab - 1 }), { maxLength: 6 }).chain((terms) =>
    fc.array(fc.integer({ min: 1, max: 4 }), { minLength: terms.length, maxLength: terms.length }).map((ws) => {
      const order = terms.map((t, i) => [t, ws[i]!] as const).sort((a, b) => a[0] - b[0]);
      return { indices: Uint32Array.from(order.map((o) => o[0])), values: Float32Array.from(order.map((o) => o[1])) };
    }),
  );

describe('sparse exact top-k', () => {
  it('equals the brute-force dot product over documents sharing a term', () => {
    const vocab = 12;
    fc.assert(
      fc.property(
        fc.array(arbSparse(vocab), { minLength: 1, maxLength: 25 }),
        fc.array(arbSparse(vocab), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 30 }),
        (docs, queries, k) => {
          const index = buildSparseIndex(docs, vocab);
          for (const q of queries) {
            const dot = (d: (typeof docs)[number]) => {
              let s = 0;
              d.indices.forEach((t, i) => {
                const j = Array.from(q.indices).indexOf(t);
                if (j >= 0) s += d.values[i]! * q.values[j]!;
              });
              return s;
            };
            const shares = (i: number) => Array.from(docs[i]!.indices).some((t) => Array.from(q.indices).includes(t));
            const got = sparseSearch(index, q, k);
            expect(Array.from(got.indices)).toEqual(bruteForce(docs.map(dot), k, shares));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects term ids outside the vocabulary', () => {
    expect(() => buildSparseIndex([{ indices: Uint32Array.of(5), values: Float32Array.of(1) }], 5)).toThrow(
      /term id 5 outside the vocabulary of 5/,
    );
  });
});
