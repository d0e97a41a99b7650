/**
 * The ONNX dense path (Gemm + TopK, blocked, merged) equals the JS exact path on both runtimes the
 * product uses: onnxruntime-node (CLI) and onnxruntime-web's WASM backend (browser fallback), here in Node.
 */
import fc from 'fast-check';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { denseTopKModelBase64 } from '../../../scripts/graphs/dense-topk.ts';
import { denseMatrix, denseTopK } from '../../../src/core/retrieve/dense.ts';
import { DENSE_TOPK_ONNX_BASE64, DenseIndex, denseTopKOnnx, type OrtLike } from '../../../src/encoders/dense-onnx.ts';

ortWeb.env.wasm.numThreads = 1;

// Integer-valued vectors: every dot product is exact in float32, so ties are real and must go to the lower index.
const arbVec = (dim: number) =>
  fc.array(fc.integer({ min: -3, max: 3 }), { minLength: dim, maxLength: dim }).map((a) => Float32Array.from(a));
const arbCase = fc.integer({ min: 1, max: 6 }).chain((dim) =>
  fc.record({
    docs: fc.array(arbVec(dim), { minLength: 1, maxLength: 25 }),
    queries: fc.array(arbVec(dim), { minLength: 1, maxLength: 5 }),
    k: fc.integer({ min: 1, max: 30 }),
    docBlockRows: fc.integer({ min: 1, max: 10 }),
    queryBlockRows: fc.integer({ min: 1, max: 4 }),
  }),
);

describe('dense top-k on ONNX Runtime', () => {
  it('embeds exactly the graph the generator writes', () => {
    expect(DENSE_TOPK_ONNX_BASE64).toBe(denseTopKModelBase64());
  });

  it.each([
    ['onnxruntime-node', ortNode as unknown as OrtLike, {}],
    ['onnxruntime-web (wasm)', ortWeb as unknown as OrtLike, { executionProviders: ['wasm'] }],
  ])(
    '%s equals the JS exact path, across document and query blocks',
    async (_, ort, sessionOptions) => {
      await fc.assert(
        fc.asyncProperty(arbCase, async ({ docs, queries, k, docBlockRows, queryBlockRows }) => {
          const D = denseMatrix(docs);
          const Q = denseMatrix(queries);
          const want = denseTopK(D, Q, k);
          const got = await denseTopKOnnx(ort, D, Q, k, { docBlockRows, queryBlockRows, sessionOptions });
          expect(got.map((r) => Array.from(r.indices))).toEqual(want.map((r) => Array.from(r.indices)));
          expect(got.map((r) => Array.from(r.scores))).toEqual(want.map((r) => Array.from(r.scores)));
        }),
        { numRuns: 60 },
      );
    },
    60_000,
  );

  it('an index filled in pieces, in any order, holds the same blocks as one made from the whole matrix', () => {
    fc.assert(
      fc.property(arbCase, fc.integer({ min: 1, max: 7 }), ({ docs, docBlockRows }, piece) => {
        const D = denseMatrix(docs);
        const whole = DenseIndex.from(D, docBlockRows);
        const pieces = new DenseIndex(D.rows, D.dim, docBlockRows);
        const starts = Array.from({ length: Math.ceil(D.rows / piece) }, (_, i) => i * piece).reverse();
        for (const first of starts) pieces.setRows(first, D.data.slice(first * D.dim, Math.min(D.rows, first + piece) * D.dim));
        expect(pieces.blocks).toEqual(whole.blocks);
      }),
    );
    expect(() => new DenseIndex(2, 3).setRows(1, new Float32Array(6))).toThrow(/do not fit a 2-row index/);
  });
});
