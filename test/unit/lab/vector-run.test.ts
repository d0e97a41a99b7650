/**
 * Incremental exact top-k (the lab's live encoder runs) against the core's one-shot searches: whatever the
 * arrival order and batch sizes, the finished run equals `denseTopK` / `sparseSearch` on the whole corpus,
 * and every partial run equals a brute-force search over the documents seen so far.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denseMatrix, denseTopK } from '../../../src/core/retrieve/dense.ts';
import { buildSparseIndex, sparseSearch } from '../../../src/core/retrieve/sparse.ts';
import type { Corpus, DocId, DocIndex, QueryId } from '../../../src/core/types.ts';
import { IncrementalVectorRun } from '../../../src/worker/vector-run.ts';

const corpusOf = (n: number): Corpus => {
  const ids = Array.from({ length: n }, (_, i) => `d${i}` as DocId);
  return { ids, titles: ids.map(() => ''), texts: ids.map(() => ''), indexOf: new Map(ids.map((d, i) => [d, i as DocIndex])) };
};

/** Split a permutation of 0..n-1 into batches. */
const arrival = (n: number) =>
  fc
    .tuple(
      fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 40 }),
    )
    .map(([order, sizes]) => {
      const batches: number[][] = [];
      let at = 0;
      for (let b = 0; at < order.length; b++) {
        const size = sizes[b % sizes.length]!;
        batches.push(order.slice(at, at + size));
        at += size;
      }
      return batches;
    });

const floatVec = (dim: number) =>
  fc
    .array(fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }), { minLength: dim, maxLength: dim })
    .map((a) => Float32Array.from(a));
// Small integers give exact ties, which must go to the lower corpus index whatever the arrival order.
const intVec = (dim: number) =>
  fc.array(fc.integer({ min: -2, max: 2 }), { minLength: dim, maxLength: dim }).map((a) => Float32Array.from(a));

describe('IncrementalVectorRun (dense)', () => {
  it('equals denseTopK on the whole corpus once every batch arrived, in any order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((dim) =>
          fc.integer({ min: 1, max: 25 }).chain((n) =>
            fc.record({
              docs: fc.array(fc.oneof(floatVec(dim), intVec(dim)), { minLength: n, maxLength: n }),
              queries: fc.array(fc.oneof(floatVec(dim), intVec(dim)), { minLength: 1, maxLength: 5 }),
              depth: fc.integer({ min: 1, max: 30 }),
              batches: arrival(n),
            }),
          ),
        ),
        ({ docs, queries, depth, batches }) => {
          const corpus = corpusOf(docs.length);
          const qids = queries.map((_, i) => `q${i}` as QueryId);
          const run = new IncrementalVectorRun(
            'dense',
            qids,
            queries.map((dense) => ({ dense, tokens: 1 })),
            depth,
            docs.length,
          );
          const seen: number[] = [];
          for (const batch of batches) {
            run.add(
              batch,
              batch.map((d) => ({ dense: docs[d]!, tokens: 1 })),
            );
            seen.push(...batch);
            // Partial: brute force over the documents seen so far.
            const snap = run.snapshot(corpus);
            queries.forEach((q, qi) => {
              const expected = seen
                .map((d) => ({ d, s: Math.fround(docs[d]!.reduce((s, x, j) => s + x * q[j]!, 0)) }))
                .sort((a, b) => b.s - a.s || a.d - b.d)
                .slice(0, depth);
              expect(snap.byQuery.get(qids[qi]!)!.docs).toEqual(expected.map((e) => `d${e.d}`));
            });
          }
          expect(run.complete).toBe(true);
          const full = denseTopK(denseMatrix(docs), denseMatrix(queries), depth);
          const snap = run.snapshot(corpus);
          full.forEach((top, qi) => {
            const list = snap.byQuery.get(qids[qi]!)!;
            expect(list.docs).toEqual(Array.from(top.indices, (i) => `d${i}`));
            expect(Array.from(list.scores)).toEqual(Array.from(top.scores));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('ignores a document sent twice and rejects indices outside the corpus', () => {
    const run = new IncrementalVectorRun('r', ['q' as QueryId], [{ dense: Float32Array.of(1), tokens: 1 }], 5, 2);
    run.add([0], [{ dense: Float32Array.of(2), tokens: 1 }]);
    run.add([0], [{ dense: Float32Array.of(9), tokens: 1 }]);
    expect(run.encodedDocs).toBe(1);
    expect(Array.from(run.snapshot(corpusOf(2)).byQuery.get('q' as QueryId)!.scores)).toEqual([2]);
    expect(() => run.add([2], [{ dense: Float32Array.of(1), tokens: 1 }])).toThrow(/outside the corpus/);
    expect(() => run.add([1], [{ dense: Float32Array.of(1, 2), tokens: 1 }])).toThrow(/1 dimensions/);
  });
});

describe('IncrementalVectorRun (sparse)', () => {
  const sparseVec = fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { minLength: 0, maxLength: 6 }).chain((indices) =>
    fc
      .array(fc.oneof(fc.float({ min: Math.fround(0.01), max: 3, noNaN: true }), fc.integer({ min: 1, max: 3 })), {
        minLength: indices.length,
        maxLength: indices.length,
      })
      .map((values) => ({
        indices: Uint32Array.from(indices),
        values: Float32Array.from(values),
      })),
  );

  it('equals sparseSearch on the whole corpus once every batch arrived, in any order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 25 }).chain((n) =>
          fc.record({
            docs: fc.array(sparseVec, { minLength: n, maxLength: n }),
            queries: fc.array(sparseVec, { minLength: 1, maxLength: 5 }),
            depth: fc.integer({ min: 1, max: 30 }),
            batches: arrival(n),
          }),
        ),
        ({ docs, queries, depth, batches }) => {
          const corpus = corpusOf(docs.length);
          const qids = queries.map((_, i) => `q${i}` as QueryId);
          const run = new IncrementalVectorRun(
            'sparse',
            qids,
            queries.map((sparse) => ({ sparse, tokens: 1 })),
            depth,
            docs.length,
          );
          for (const batch of batches)
            run.add(
              batch,
              batch.map((d) => ({ sparse: docs[d]!, tokens: 1 })),
            );
          const index = buildSparseIndex(docs, 13);
          const snap = run.snapshot(corpus);
          queries.forEach((q, qi) => {
            const top = sparseSearch(index, q, depth);
            const list = snap.byQuery.get(qids[qi]!)!;
            expect(list.docs).toEqual(Array.from(top.indices, (i) => `d${i}`));
            expect(Array.from(list.scores)).toEqual(Array.from(top.scores));
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
